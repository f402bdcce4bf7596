package dev.sqloop.generator;

import static dev.sqloop.generator.Tasks.failed;
import static dev.sqloop.generator.Tasks.issue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.error.Outcomes;
import dev.sqloop.common.message.QuestionTask;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RepairDecisionTest {
    private static final DialectLookup DIALECTS = Tasks.DIALECTS;

    @Test
    void shouldRetryAChangedSqlWithBudgetLeft() {
        RepairDecision d = RepairDecision.decide(failed(1, null, "SELECT regionn FROM sales",
                issue(ErrorCategory.COLUMN_NOT_FOUND, "Column 'regionn' cannot be resolved")), DIALECTS);
        assertTrue(d.retry());
        assertEquals(RepairDecision.RETRY, d.reason());
        assertEquals(ErrorCategory.COLUMN_NOT_FOUND, d.category());
        assertEquals("attempt 2 of 3", d.detail());
    }

    @Test
    void shouldStopAtMaxAttempts() {
        RepairDecision d = RepairDecision.decide(failed(3, "SELECT a FROM t", "SELECT b FROM t",
                issue(ErrorCategory.COLUMN_NOT_FOUND, "no b")), DIALECTS);
        assertFalse(d.retry());
        assertEquals(Outcomes.MAX_ATTEMPTS, d.reason());
    }

    @Test
    void shouldCheckTheBudgetBeforeAnythingElse() {
        RepairDecision d = RepairDecision.decide(failed(3, "SELECT a FROM t", "select  a from T",
                issue(ErrorCategory.PERMISSION_DENIED, "Access Denied")), DIALECTS);
        assertEquals(Outcomes.MAX_ATTEMPTS, d.reason(), "max attempts wins over non-retryable and unchanged");
    }

    @Test
    void shouldStopOnNonRetryableCategories() {
        for (ErrorCategory c : new ErrorCategory[] {ErrorCategory.PERMISSION_DENIED, ErrorCategory.CONNECTION_ERROR}) {
            RepairDecision d = RepairDecision.decide(failed(1, null, "SELECT a FROM t",
                    issue(ErrorCategory.COLUMN_NOT_FOUND, "x"), issue(c, "denied")), DIALECTS);
            assertEquals(Outcomes.NON_RETRYABLE, d.reason(), c + " in any issue stops the loop");
            assertEquals(c, d.category());
        }
    }

    @Test
    void shouldStopOnAnUnknownDatasource() {
        QuestionTask t = failed(1, null, "SELECT a FROM t", issue(ErrorCategory.COLUMN_NOT_FOUND, "x"));
        RepairDecision d = RepairDecision.decide(t, DialectLookup.of(Map.of("other", Dialect.HIVE)));
        assertEquals(Outcomes.UNKNOWN_DATASOURCE, d.reason());
    }

    @Test
    void shouldStopWhenSqlUnchanged() {
        RepairDecision d = RepairDecision.decide(failed(2, "SELECT id FROM products", "select id\n from PRODUCTS; -- again",
                issue(ErrorCategory.COLUMN_NOT_FOUND, "no id")), DIALECTS);
        assertEquals(Outcomes.UNCHANGED_SQL, d.reason());
        assertTrue(d.detail().contains("repeated the previous SQL"), d.detail());
    }

    @Test
    void shouldCheckNonRetryableBeforeUnchanged() {
        RepairDecision d = RepairDecision.decide(failed(2, "SELECT a FROM t", "SELECT a FROM t",
                issue(ErrorCategory.CONNECTION_ERROR, "refused")), DIALECTS);
        assertEquals(Outcomes.NON_RETRYABLE, d.reason());
    }

    @Test
    void shouldTreatAMissingIssueAsUnknownAndStillRetry() {
        RepairDecision d = RepairDecision.decide(failed(1, null, "SELECT a FROM t"), DIALECTS);
        assertTrue(d.retry());
        assertEquals(ErrorCategory.UNKNOWN, d.category());
    }

    private static dev.sqloop.common.message.Issue tooExpensive(double overBudget) {
        return new dev.sqloop.common.message.Issue("execute", ErrorCategory.TOO_EXPENSIVE, "too expensive to run: the engine"
                + " estimates " + (int) (overBudget * 1000) + " rows scanned (budget 1,000); largest scans: flight. Not run.", "flight", java.util.List.of(), false, overBudget);
    }

    /** Attempt 2 of a question whose attempt 1 was refused {@code before} times over budget, itself refused {@code now}. */
    private static QuestionTask repairedTooExpensive(double before, String sql, double now) {
        return Tasks.fresh("warehouse").withSql("SELECT * FROM flight", null).withIssues(java.util.List.of(tooExpensive(before)))
                .nextAttempt("fix it").withSql(sql, null).withIssues(java.util.List.of(tooExpensive(now)));
    }

    @Test
    void shouldRetryATooExpensiveQueryOnceAndAgainWhileItsRepairsLowerTheEstimate() {
        RepairDecision first = RepairDecision.decide(failed(1, null, "SELECT * FROM flight", tooExpensive(4.0)), DIALECTS);
        assertTrue(first.retry(), "the first refusal is repaired like any error");
        assertEquals(ErrorCategory.TOO_EXPENSIVE, first.category());
        RepairDecision lower = RepairDecision.decide(repairedTooExpensive(4.0, "SELECT * FROM flight WHERE day = 1", 1.5), DIALECTS);
        assertTrue(lower.retry(), "a repair that lowered the estimate gets another: " + lower);
    }

    @Test
    void shouldStopATooExpensiveQueryWhoseRepairDidNotLowerTheEstimate() {
        for (double now : new double[] {4.0, 6.5}) {
            RepairDecision d = RepairDecision.decide(repairedTooExpensive(4.0, "SELECT flight_id, day FROM flight", now), DIALECTS);
            assertFalse(d.retry());
            assertEquals(Outcomes.NON_RETRYABLE, d.reason(), "estimate " + now + "× after 4.0×");
            assertEquals(ErrorCategory.TOO_EXPENSIVE, d.category());
            assertTrue(d.detail().contains("did not lower the cost estimate") && d.detail().contains("flight"), d.detail());
        }
        RepairDecision same = RepairDecision.decide(repairedTooExpensive(4.0, "select *  from FLIGHT", 4.0), DIALECTS);
        assertEquals(Outcomes.UNCHANGED_SQL, same.reason(), "the same SQL again is unchanged_sql, not a repair");
    }

    @Test
    void shouldRetryWhenATooExpensiveRepairFailsForAnotherReason() {
        QuestionTask t = Tasks.fresh("warehouse").withSql("SELECT * FROM flight", null).withIssues(java.util.List.of(tooExpensive(4.0)))
                .nextAttempt("fix it").withSql("SELECT * FROM flight WHERE dayy = 1", null)
                .withIssues(java.util.List.of(issue(ErrorCategory.COLUMN_NOT_FOUND, "no dayy")));
        assertTrue(RepairDecision.decide(t, DIALECTS).retry());
    }
}
