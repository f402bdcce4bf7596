package dev.sqloop.testkit.llm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 46's opt-in fault kinds: each made on a gold it fits, in every dialect where it is foreign, repaired only when the
 * correction carries its evidence; and never drawn by a default mix.
 */
class SignalFaultsTest {
    private static final String Q_TOP = "Which 3 customers have the highest total transaction amount?";
    private static final String TOP = "SELECT c.sbCustName, SUM(t.sbTxAmount) AS total FROM sbCustomer c JOIN sbTransaction t"
            + " ON c.sbCustId = t.sbTxCustId GROUP BY c.sbCustName ORDER BY total DESC LIMIT 3";
    private static final String Q_HAVING = "Which countries have more than 2 customers?";
    private static final String HAVING = "SELECT sbCustCountry, COUNT(*) AS n FROM sbCustomer GROUP BY sbCustCountry HAVING COUNT(*) > 2";
    private static final String Q_WINDOW = "Which 5 tickers had the highest closing price?";
    private static final String WINDOW = "SELECT sbDpTickerId, sbDpClose FROM sbDailyPrice WHERE sbDpClose > 0 ORDER BY sbDpClose DESC LIMIT 5";
    private static final List<String> DIALECTS = List.of("postgres", "duckdb", "trino", "sparksql", "hive");

    private static OracleResponder oracle(String question, String gold, Fault fault, String dialect) {
        return new OracleResponder(Map.of(question, gold), Map.of(), dialect, 1).withFaults(Map.of(question, fault));
    }

    @Test
    void shouldWriteEachConstructTheWayAnotherDialectDoes() {
        assertEquals("SELECT TOP 3 c.sbCustName, SUM(t.sbTxAmount) AS total FROM sbCustomer c JOIN sbTransaction t"
                + " ON c.sbCustId = t.sbTxCustId GROUP BY c.sbCustName ORDER BY total DESC", oracle(Q_TOP, TOP, Fault.FOREIGN_TOP, "postgres")
                .injectionFor(Q_TOP).faultyAnswer());
        assertEquals("SELECT sbCustCountry, COUNT(*) AS n FROM sbCustomer WHERE COUNT(*) > 2 GROUP BY sbCustCountry",
                oracle(Q_HAVING, HAVING, Fault.AGGREGATE_IN_WHERE, "trino").injectionFor(Q_HAVING).faultyAnswer());
        assertEquals("SELECT sbDpTickerId, sbDpClose FROM sbDailyPrice WHERE sbDpClose > 0 AND ROW_NUMBER() OVER (ORDER BY sbDpClose DESC) <= 5",
                oracle(Q_WINDOW, WINDOW, Fault.WINDOW_IN_WHERE, "duckdb").injectionFor(Q_WINDOW).faultyAnswer());
        assertTrue(oracle(Q_TOP, TOP, Fault.FOREIGN_QUOTING, "postgres").injectionFor(Q_TOP).faultyAnswer().contains("c.`sbCustName`"));
        assertTrue(oracle(Q_TOP, TOP, Fault.FOREIGN_QUOTING, "hive").injectionFor(Q_TOP).faultyAnswer().contains("c.[sbCustName]"));
        assertTrue(oracle(Q_TOP, TOP, Fault.FOREIGN_NULL_FUNCTION, "trino").injectionFor(Q_TOP).faultyAnswer()
                .contains("IFNULL(SUM(t.sbTxAmount), 0) AS total"));
        assertTrue(oracle(Q_TOP, TOP, Fault.FOREIGN_NULL_FUNCTION, "duckdb").injectionFor(Q_TOP).faultyAnswer().contains("NVL(SUM("));
        assertTrue(oracle(Q_TOP, TOP, Fault.FOREIGN_DATE_FUNCTION, "postgres").injectionFor(Q_TOP).faultyAnswer().contains("DATE_FORMAT("));
        assertTrue(oracle(Q_TOP, TOP, Fault.FOREIGN_DATE_FUNCTION, "trino").injectionFor(Q_TOP).faultyAnswer().contains("GETDATE()"));
        assertTrue(oracle(Q_TOP, TOP, Fault.FOREIGN_LIMIT_OFFSET, "sparksql").injectionFor(Q_TOP).faultyAnswer().endsWith("LIMIT 0, 3"));
        assertTrue(oracle(Q_TOP, TOP, Fault.SILENT_JOIN, "postgres").injectionFor(Q_TOP).faultyAnswer().contains("ON c.sbCustName = t.sbTxCustId"));
    }

    @Test
    void shouldNotMakeAConstructWhereItIsTheDialectsOwn() {
        // Hive writes LIMIT offset, count itself; Spark has IFNULL, NVL and ISNULL: the oracle falls back to another kind
        assertNotEquals(Fault.FOREIGN_LIMIT_OFFSET, oracle(Q_TOP, TOP, Fault.FOREIGN_LIMIT_OFFSET, "hive").injectionFor(Q_TOP).fault());
        assertNotEquals(Fault.FOREIGN_NULL_FUNCTION, oracle(Q_TOP, TOP, Fault.FOREIGN_NULL_FUNCTION, "sparksql").injectionFor(Q_TOP).fault());
    }

    @Test
    void shouldRepairOnlyWithTheEvidence() {
        Map<Fault, String[]> golds = new EnumMap<>(Fault.class);
        for (Fault f : Fault.signal()) golds.put(f, new String[] {Q_TOP, TOP});
        golds.put(Fault.AGGREGATE_IN_WHERE, new String[] {Q_HAVING, HAVING});
        golds.put(Fault.WINDOW_IN_WHERE, new String[] {Q_WINDOW, WINDOW});
        int made = 0;
        for (Fault f : Fault.signal()) {
            for (String dialect : DIALECTS) {
                String q = golds.get(f)[0];
                OracleResponder o = oracle(q, golds.get(f)[1], f, dialect);
                Injection i = o.injectionFor(q);
                if (i.fault() != f) continue;
                made++;
                String faulty = o.respond(new ChatCall("openai", "m", "s", q, false));
                assertNotEquals("```sql\n" + i.goldSql() + "\n```", faulty, f + "/" + dialect);
                String blind = "Failed SQL:\n" + i.faultyAnswer() + "\n\nFix the error.\n\nFix and regenerate for: \"" + q + "\"";
                assertEquals(faulty, o.respond(new ChatCall("openai", "m", "s", blind, false)), f + "/" + dialect + " blind");
                String informed = "Failed SQL:\n" + i.faultyAnswer() + "\n\nError:\n" + i.errorMessage() + "\n\nFix and regenerate for: \"" + q + "\"";
                assertEquals("```sql\n" + i.goldSql() + "\n```", o.respond(new ChatCall("openai", "m", "s", informed, false)),
                        f + "/" + dialect + " informed: " + i.errorMessage());
            }
        }
        // 8 kinds × 5 dialects, less LIMIT a, b on Hive and a null function on Spark
        assertEquals(38, made);
    }

    @Test
    void shouldKeepEveryDefaultMixToTheClassicKinds() {
        Map<String, String> gold = new HashMap<>();
        List<String> golds = List.of(TOP, HAVING, WINDOW);
        for (int k = 0; k < 300; k++) gold.put("question number " + k + " about sales?", golds.get(k % 3));
        OracleResponder uniform = new OracleResponder(gold, OracleResponder.uniformMix(), "trino", 7);
        gold.keySet().forEach(q -> assertTrue(!uniform.injectionFor(q).fault().isSignal(), q));
        OracleResponder signal = new OracleResponder(gold, OracleResponder.signalMix(), "trino", 7);
        Map<Fault, Integer> seen = new EnumMap<>(Fault.class);
        gold.keySet().forEach(q -> seen.merge(signal.injectionFor(q).fault(), 1, Integer::sum));
        for (Fault f : Fault.signal()) assertTrue(seen.containsKey(f), f + " drawn by the signal mix: " + seen);
        assertEquals(10, Fault.classic().size());
    }
}
