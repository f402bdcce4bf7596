package dev.sqloop.embedded.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.datasource.Datasources;
import dev.sqloop.common.message.TokenUsage;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code eval --candidates}: the table's figures from rows whose answers are known, and the metrics' uncertain outcome. */
class CandidatesTableTest {
    private static final EvalCase A = new EvalCase("a", "q a", "SELECT 1", "dw", "join");
    private static final EvalCase B = new EvalCase("b", "q b", "SELECT 2", "dw", "join");
    private static final EvalCase C = new EvalCase("c", "q c", "SELECT 3", "dw", "join");

    private static Eval.Row row(EvalCase c, String status, String reason, boolean ex, double cost) {
        return new Eval.Row(c, 3, status, reason, 1, "succeeded".equals(status) ? c.gold() : null, null, null, 100,
                new Scorer.Score("succeeded".equals(status), ex, null, ex, null), new TokenUsage(90, 10, 0, cost));
    }

    private static EvalReport report(Eval.Row... rows) {
        return new EvalReport(List.of(A, B, C), List.of(3), List.of(rows), Map.of(3, 1.0),
                Datasources.of(DatasourceConfig.of("dw", Dialect.DUCKDB, "jdbc:duckdb:", null, null)), Map.of());
    }

    @Test
    void shouldCountWrongAnswersAndTheShareOfThemCaught() {
        Map<Integer, EvalReport> byCount = new LinkedHashMap<>();
        // one candidate: a and b answered wrongly (succeeded, not EX), c right
        byCount.put(1, report(row(A, "succeeded", "first_attempt_success", false, 0.001), row(B, "succeeded", "first_attempt_success", false, 0.001),
                row(C, "succeeded", "first_attempt_success", true, 0.001)));
        // three: a right now, b uncertain (no answer: caught), c still right
        byCount.put(3, report(row(A, "succeeded", "first_attempt_success", true, 0.003), row(B, "failed", "uncertain", false, 0.003),
                row(C, "succeeded", "first_attempt_success", true, 0.003)));
        String t = CandidatesTable.of(byCount, List.of(3), 0.3);
        assertTrue(t.contains("| 1 | 3 | 3 | 33.3 % | 0.0 % | 2 | — | 100 | 0.001000 | 1.00× |"), t);
        assertTrue(t.contains("| 3 | 3 | 3 | 66.7 % | 33.3 % | 0 | 2 of 2 (100.0 %) | 100 | 0.003000 | 3.00× |"), t);
        assertEquals(Map.of("first_attempt_success", 2L, "uncertain", 1L), byCount.get(3).outcomes(3),
                "the report names an uncertain question as the pipeline's metrics do");
    }
}
