package dev.sqloop.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.message.Candidate;
import dev.sqloop.common.message.Execution;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which candidates tie, what the comparison prompt shows, and how a reply's choice is read (issue 50). */
class PairwiseTieBreakTest {
    static Candidate ran(int index, String sql, String fingerprint, Object... firstColumn) {
        List<List<Object>> rows = java.util.Arrays.stream(firstColumn).map(v -> List.<Object>of(v)).toList();
        return Candidate.generated(index, sql).ran(new Execution(List.of("total"), List.of("BIGINT"), rows.size(), rows, 3), fingerprint);
    }

    @Test
    void shouldPickOneCandidatePerLargestGroupInIndexOrder() {
        List<Candidate> cs = List.of(ran(1, "SELECT 1", "x"), ran(2, "SELECT 2", "y"), ran(3, "SELECT 3", "x"),
                ran(4, "SELECT 4", "y"), ran(5, "SELECT 5", "z"), Candidate.generated(6, "SELECT 6").failed("syntax_error: x"));
        assertEquals(List.of(1, 2), PairwiseTieBreak.contenders(cs).stream().map(Candidate::index).toList(),
                "two groups of two tie; the group of one and the failed candidate do not take part");
        assertEquals(List.of(1, 2, 3), PairwiseTieBreak.contenders(List.of(ran(1, "a", "x"), ran(2, "b", "y"), ran(3, "c", "z")))
                .stream().map(Candidate::index).toList());
        assertEquals(List.of(), PairwiseTieBreak.contenders(List.of(Candidate.generated(1, "a").failed("timeout: slow"))));
    }

    @Test
    void shouldShowTheQuestionBothQueriesAndTheirFirstRows() {
        Object[] many = java.util.stream.IntStream.range(0, 25).boxed().toArray();
        LlmClient.Prompt p = PairwiseTieBreak.prompt(Tasks.fresh("demo").withInstructions("count refunds as sales"), Dialect.DUCKDB,
                ran(1, "SELECT sum(amount) FROM sales", "x", 40), ran(3, "SELECT amount FROM sales", "y", many));
        String u = p.user();
        assertTrue(u.startsWith("Question: " + Tasks.QUESTION + "\nInstructions: count refunds as sales\n"), u);
        assertTrue(u.contains("Candidate A:\n```sql\nSELECT sum(amount) FROM sales\n```\nResult of A (1 row):\ntotal\n40\n"), u);
        assertTrue(u.contains("Candidate B:\n```sql\nSELECT amount FROM sales\n```\nResult of B (25 rows, first 10 shown):\n"), u);
        assertTrue(u.contains("\n9\n") && !u.contains("\n10\n"), "ten rows of B, no more: " + u);
        assertTrue(u.endsWith(PairwiseTieBreak.ASK), u);
        assertTrue(p.system().contains("duckdb") && p.system().contains("CHOICE: A"), p.system());
        assertTrue(p.correction(), "served before first attempts, as corrections are");
    }

    @Test
    void shouldReadTheChoiceAsTextOrJsonAndNothingElse() {
        PairwiseTieBreak.Verdict text = PairwiseTieBreak.parse("CHOICE: B\nREASON: B filters on the right year.").orElseThrow();
        assertFalse(text.chooseA());
        assertEquals("B filters on the right year.", text.reason());
        PairwiseTieBreak.Verdict json = PairwiseTieBreak.parse("{\"choice\": \"A\", \"reason\": \"A sums\"}").orElseThrow();
        assertTrue(json.chooseA());
        assertEquals("A sums", json.reason());
        assertEquals("no reason given", PairwiseTieBreak.parse("choice: a").orElseThrow().reason());
        assertTrue(PairwiseTieBreak.parse("Both look fine to me.").isEmpty());
        assertTrue(PairwiseTieBreak.parse("CHOICE: C").isEmpty());
        assertTrue(PairwiseTieBreak.parse(null).isEmpty());
    }
}
