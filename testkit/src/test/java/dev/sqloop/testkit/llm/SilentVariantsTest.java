package dev.sqloop.testkit.llm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SilentVariantsTest {
    private static final String Q = "Which 3 regions sold the most since March?";
    private static final String GOLD = "SELECT r.name, SUM(s.amount) AS total FROM sales s JOIN regions r ON s.regionId = r.regionId"
            + " WHERE s.day >= '2024-03-01' AND r.name <> 'x >= y' GROUP BY r.name ORDER BY total DESC LIMIT 3";

    @Test
    void everyKindIsMadeOnTheGoldAndNoneTouchesALiteral() {
        List<String> v = SilentVariants.of(GOLD);
        assertEquals(List.of(
                GOLD.replace("s.day >= '2024", "s.day > '2024"),
                GOLD.replace("s.day >= '2024-03-01' AND ", ""),
                GOLD.replace("SUM(s.amount)", "AVG(s.amount)"),
                GOLD.replace("total DESC", "total ASC"),
                GOLD.replace("LIMIT 3", "LIMIT 2"),
                GOLD.replace("ON s.regionId", "ON s.amount")), v);
        v.forEach(sql -> assertTrue(sql.contains("'x >= y'"), sql));
    }

    @Test
    void aFilterInsideBetweenOrASubqueryIsNotDropped() {
        assertEquals(List.of(), SilentVariants.of("SELECT count(*) FROM t WHERE d BETWEEN 1 AND 5"));
        assertEquals(List.of("SELECT a FROM t WHERE q = 2"),
                SilentVariants.of("SELECT a FROM t WHERE x IN (SELECT y FROM u WHERE p = 1) AND q = 2"), "the whole IN filter, or nothing");
        assertEquals(List.of("SELECT a FROM t WHERE q = 2"), SilentVariants.of("SELECT a FROM t WHERE q1 = 1 AND q = 2")
                .stream().filter(s -> !s.contains("q1")).toList());
    }

    @Test
    void theOracleAnswersEachCandidateTheSameWayEveryTime() {
        OracleResponder o = new OracleResponder(Map.of(Q, GOLD), Map.of(Fault.NONE, 1.0), "duckdb", 7)
                .withSilentCandidates(Map.of(Q, Set.of(1, 3)));
        String one = o.respond(new ChatCall("openai", "m", "s", Q, false));
        String two = o.respond(new ChatCall("openai", "m", "s", Q + "\n\nCandidate 2 of 3: write the query independently.", false));
        String three = o.respond(new ChatCall("openai", "m", "s", Q + "\n\nCandidate 3 of 3: write the query independently.", false));
        assertEquals("```sql\n" + GOLD + "\n```", two);
        assertNotEquals(two, one);
        assertNotEquals(two, three);
        assertNotEquals(one, three, "two wrong candidates of a question differ");
        assertEquals(one, o.respond(new ChatCall("openai", "m", "s", Q, false)));

        // by rate: about the share asked for, and the same draw for the same question and candidate
        Map<String, String> gold = new java.util.LinkedHashMap<>();
        for (int i = 0; i < 400; i++) gold.put("Question number " + i + " about sales?", GOLD);
        OracleResponder rated = new OracleResponder(gold, Map.of(Fault.NONE, 1.0), "duckdb", 7).withSilentVariants(0.3);
        long silent = gold.keySet().stream().filter(q -> rated.silentVariantFor(q, 2) != null).count();
        assertTrue(silent > 90 && silent < 150, "about 30 % of 400: " + silent);
        gold.keySet().forEach(q -> assertEquals(rated.silentVariantFor(q, 2), rated.silentVariantFor(q, 2)));
        // independent across a question's candidates: both 2 and 3 silent about 9 % of the time, not 30 %
        long both = gold.keySet().stream().filter(q -> rated.silentVariantFor(q, 2) != null && rated.silentVariantFor(q, 3) != null).count();
        assertTrue(both > 15 && both < 60, "about 9 % of 400: " + both);
        assertEquals(10, Fault.classic().size(), "the silent variant is in no default mix");
        assertTrue(Fault.signal().stream().noneMatch(f -> f == Fault.SILENT_VARIANT));
    }
}
