package dev.sqloop.testkit.llm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OracleResponderTest {
    private static final String Q = "What is the total amount per region?";
    private static final String GOLD = "SELECT region, sum(amount) AS total FROM sales GROUP BY region ORDER BY total DESC";

    private static OracleResponder oracle(Fault fault, String dialect) {
        return new OracleResponder(Map.of(Q, GOLD), Map.of(), dialect, 1).withFaults(Map.of(Q, fault));
    }

    private static ChatCall first() {
        return new ChatCall("openai", "m", "system", Q, false);
    }

    private static String fenced(String sql) {
        return "```sql\n" + sql + "\n```";
    }

    @Test
    void shouldInjectEachFaultAndRepairOnlyWhenTheCorrectionCarriesTheEvidence() {
        for (Fault fault : Fault.values()) {
            if (fault == Fault.NONE) continue;
            for (String dialect : List.of("trino", "duckdb", "sparksql", "hive")) {
                OracleResponder o = oracle(fault, dialect);
                Injection i = o.injectionFor(Q);
                assertEquals(fault, i.fault(), "fault applies to the gold SQL: " + fault);
                String firstAnswer = o.respond(first());
                assertNotEquals(fenced(GOLD), firstAnswer, fault + " first answer is faulty");

                String blind = "Failed SQL:\n" + i.faultyAnswer() + "\n\nFix the error.\n\nFix and regenerate for: \"" + Q + "\"";
                assertEquals(firstAnswer, o.respond(new ChatCall("openai", "m", "s", blind, false)),
                        fault + "/" + dialect + ": without evidence the fault repeats");

                String error = i.errorMessage() != null ? i.errorMessage() : "the answer was prose, not a SQL statement";
                String informed = "Failed SQL:\n" + i.faultyAnswer() + "\n\nError:\n" + error + "\n\nFix and regenerate for: \"" + Q + "\"";
                assertEquals(fenced(GOLD), o.respond(new ChatCall("openai", "m", "s", informed, false)),
                        fault + "/" + dialect + ": with the evidence the gold SQL comes back");
            }
        }
    }

    @Test
    void shouldBuildRealisticFaults() {
        assertEquals("SELECT region_nm, sum(amount) AS total FROM sales GROUP BY region ORDER BY total DESC",
                oracle(Fault.WRONG_COLUMN, "trino").injectionFor(Q).faultyAnswer());
        assertEquals("SELECT region, sum(amount) AS total FROM sales_tbl GROUP BY region ORDER BY total DESC",
                oracle(Fault.WRONG_TABLE, "trino").injectionFor(Q).faultyAnswer());
        assertEquals("SELECT region, sum(amount) AS total FROM sales ORDER BY total DESC",
                oracle(Fault.MISSING_GROUP_BY, "trino").injectionFor(Q).faultyAnswer());
        assertTrue(oracle(Fault.FOREIGN_FUNCTION, "trino").injectionFor(Q).faultyAnswer().contains("strftime("));
        assertTrue(oracle(Fault.FOREIGN_FUNCTION, "duckdb").injectionFor(Q).faultyAnswer().contains("format_datetime("));
        assertTrue(oracle(Fault.SYNTAX_SLIP, "trino").injectionFor(Q).faultyAnswer().contains(" FORM sales"));
    }

    @Test
    void shouldAnswerJsonWhenAskedAndDrawFaultsFromTheMix() {
        OracleResponder none = new OracleResponder(Map.of(Q, GOLD), Map.of(Fault.NONE, 1.0), "trino", 1);
        assertEquals("{\"sql\":\"" + GOLD + "\"}", none.respond(new ChatCall("openai", "m", "s", Q, true)));

        Map<String, String> gold = new HashMap<>();
        for (int k = 0; k < 200; k++) gold.put("question number " + k + " about sales?", GOLD);
        OracleResponder mixed = new OracleResponder(gold, OracleResponder.uniformMix(), "trino", 7);
        Map<Fault, Integer> seen = new EnumMap<>(Fault.class);
        gold.keySet().forEach(q -> seen.merge(mixed.injectionFor(q).fault(), 1, Integer::sum));
        assertEquals(Fault.values().length - 1, seen.size(), "every fault of the mix is drawn: " + seen);
    }

    @Test
    void shouldAcceptEvidenceOnlyInTheLastUserMessageOutsideTheFaultySqlAndTheSystemPrompt() {
        OracleResponder o = oracle(Fault.KEYWORD_TYPO, "trino");
        Injection i = o.injectionFor(Q);
        assertTrue(i.faultyAnswer().startsWith("SELEC "), i.faultyAnswer());
        String bare = "Failed SQL:\n" + i.faultyAnswer() + "\n\nError:\n[syntax_error] the answer was prose\n\nFix and regenerate for: \"" + Q + "\"";
        String firstAnswer = o.respond(new ChatCall("openai", "m", "s", Q, false));
        // the faulty SQL itself (even re-spaced) holds SELEC: not evidence
        assertEquals(firstAnswer, o.respond(new ChatCall("openai", "m", "s", bare.replace(i.faultyAnswer(), i.faultyAnswer().replace(" ", "  ")), false)));
        // evidence in the system prompt or an earlier user turn does not count
        assertEquals(firstAnswer, o.respond(new ChatCall("openai", "m", "Offending token: 'SELEC'", bare, false)));
        assertEquals(firstAnswer, o.respond(new ChatCall("openai", "m", "s", "Offending token: 'SELEC'\n" + bare, false, bare)));
        // quoted in the last user message, outside the SQL: the fix
        assertEquals(fenced(GOLD), o.respond(new ChatCall("openai", "m", "s", bare + " Offending token: 'SELEC'.", false)));
    }
}
