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
}
