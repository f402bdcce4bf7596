package dev.sqloop.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.message.Candidate;
import dev.sqloop.common.message.Execution;
import dev.sqloop.executor.CandidateSelector.Decision;
import dev.sqloop.executor.CandidateSelector.Selection;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class CandidateSelectorTest {

    private static Execution rows(List<?>... rows) {
        List<List<Object>> preview = new ArrayList<>();
        for (List<?> r : rows) preview.add(new ArrayList<>(r));
        return new Execution(List.of("a", "b"), List.of(), rows.length, preview, 1);
    }

    private static Candidate ran(int index, String sql, Execution e) {
        return Candidate.generated(index, sql).ran(e, ResultFingerprint.of(sql, e));
    }

    private static final Execution GOLD = rows(List.of("x", 1), List.of("y", 2));
    private static final Execution WRONG = rows(List.of("x", 1));
    private static final Execution OTHER = rows(List.of("z", 3));

    @Test
    void theMajorityOutvotesASilentVariantAndTheLowestIndexOfItsGroupWins() {
        Selection s = CandidateSelector.select(List.of(ran(1, "SELECT 1", WRONG), ran(2, "SELECT 2", GOLD), ran(3, "SELECT 3", GOLD)));
        assertEquals(Decision.MAJORITY, s.decision());
        assertEquals(2, s.winner().index());
        assertEquals(List.of(2, 1), s.groups());
        assertTrue(s.reason().contains("candidate 2 chosen"), s.reason());
    }

    @Test
    void aPluralityOfTwoAmongFiveWinsButTwoGroupsOfTwoAreATie() {
        Selection plurality = CandidateSelector.select(List.of(ran(1, "q", GOLD), ran(2, "q", WRONG), ran(3, "q", GOLD),
                ran(4, "q", OTHER), ran(5, "q", rows(List.of("w", 9)))));
        assertEquals(Decision.MAJORITY, plurality.decision());
        assertEquals(1, plurality.winner().index());
        Selection tie = CandidateSelector.select(List.of(ran(1, "q", GOLD), ran(2, "q", WRONG), ran(3, "q", GOLD),
                ran(4, "q", WRONG), ran(5, "q", OTHER)));
        assertEquals(Decision.UNCERTAIN, tie.decision());
        assertNull(tie.winner());
        assertEquals(List.of(2, 2, 1), tie.groups());
    }

    @Test
    void allDifferentIsUncertain() {
        Selection s = CandidateSelector.select(List.of(ran(1, "q", GOLD), ran(2, "q", WRONG), ran(3, "q", OTHER)));
        assertEquals(Decision.UNCERTAIN, s.decision());
        assertTrue(s.reason().startsWith("no agreement: 3 candidates, all ran; results in 3 groups of 1, 1, 1"), s.reason());
    }

    @Test
    void failedAndInvalidCandidatesDoNotVote() {
        Candidate failed = Candidate.generated(2, "SELECT nope").failed("column nope not found");
        Candidate invalid = Candidate.invalid(3, "I think you should look at the table", "not a SQL statement");
        Selection sole = CandidateSelector.select(List.of(ran(1, "q", GOLD), failed, invalid));
        assertEquals(Decision.SOLE, sole.decision());
        assertEquals(1, sole.winner().index());
        assertTrue(sole.reason().contains("2 did not run"), sole.reason());
        Selection two = CandidateSelector.select(List.of(ran(1, "q", WRONG), failed, ran(3, "q", GOLD), ran(4, "q", GOLD)));
        assertEquals(Decision.MAJORITY, two.decision());
        assertEquals(3, two.winner().index());
        assertEquals(Decision.UNCERTAIN, CandidateSelector.select(List.of(failed, invalid)).decision());
    }

    @Test
    void unanimousWhenEveryCandidateAgrees() {
        Selection s = CandidateSelector.select(List.of(ran(1, "q", GOLD), ran(2, "q", GOLD), ran(3, "q", GOLD)));
        assertEquals(Decision.UNANIMOUS, s.decision());
        assertEquals(List.of(3), s.groups());
    }

    @Test
    void theFingerprintIgnoresRowOrderUnlessTheQueryOrdersItsRowsAndColumnNames() {
        Execution ab = rows(List.of("x", 1), List.of("y", 2));
        Execution ba = rows(List.of("y", 2), List.of("x", 1));
        assertEquals(ResultFingerprint.of("SELECT a, b FROM t", ab), ResultFingerprint.of("SELECT b2, a FROM t", ba));
        assertNotEquals(ResultFingerprint.of("SELECT a, b FROM t ORDER BY b", ab), ResultFingerprint.of("SELECT a, b FROM t ORDER BY b", ba));
        // an ORDER BY inside a subquery or a window does not order the result; one in a string is no clause
        assertFalse(ResultFingerprint.ordersRows("SELECT * FROM (SELECT a FROM t ORDER BY a LIMIT 3) s"));
        assertFalse(ResultFingerprint.ordersRows("SELECT rank() OVER (ORDER BY a) FROM t WHERE n = 'order by'"));
        assertTrue(ResultFingerprint.ordersRows("WITH s AS (SELECT a FROM t) SELECT a FROM s order  by a DESC"));
    }

    @Test
    void numbersAgreeByValueAndNullsAreDistinct() {
        Execution integer = rows(List.of("x", 5L));
        Execution decimal = rows(List.of("x", new BigDecimal("5.000")));
        Execution dbl = rows(List.of("x", 5.0d));
        assertEquals(ResultFingerprint.of("q", integer), ResultFingerprint.of("q", decimal));
        assertEquals(ResultFingerprint.of("q", integer), ResultFingerprint.of("q", dbl));
        assertEquals(ResultFingerprint.of("q", rows(List.of("x", 0.1 + 0.2))), ResultFingerprint.of("q", rows(List.of("x", 0.3))));
        assertNotEquals(ResultFingerprint.of("q", rows(Arrays.asList("x", null))), ResultFingerprint.of("q", rows(List.of("x", "\u2205x"))));
        assertNotEquals(ResultFingerprint.of("q", rows(List.of("x", 5L))), ResultFingerprint.of("q", rows(List.of("x", 6L))));
    }

    @Test
    void theRowCountCountsBeyondThePreview() {
        Execution fewer = new Execution(List.of("a"), List.of(), 20, List.of(List.of("x")), 1);
        Execution more = new Execution(List.of("a"), List.of(), 21, List.of(List.of("x")), 1);
        assertNotEquals(ResultFingerprint.of("q", fewer), ResultFingerprint.of("q", more));
    }
}
