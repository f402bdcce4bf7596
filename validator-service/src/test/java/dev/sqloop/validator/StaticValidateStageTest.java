package dev.sqloop.validator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.error.Outcomes;
import dev.sqloop.common.message.AttemptEvent;
import dev.sqloop.common.message.Issue;
import dev.sqloop.common.message.NlConstraints;
import java.util.List;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.message.TokenUsage;
import dev.sqloop.common.runtime.Outcome;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class StaticValidateStageTest {
    private static final Instant NOW = Instant.parse("2026-11-22T10:00:00Z");

    private final StaticValidateStage stage = new StaticValidateStage(
            name -> name.equals("shop") ? Optional.of(new ValidationTarget(Dialect.DUCKDB, SampleCatalog.create())) : Optional.empty(),
            Clock.fixed(NOW, ZoneOffset.UTC));

    private static QuestionTask task(String datasource, String sql, NlConstraints constraints) {
        return QuestionTask.create("q-1", "t", datasource, "top 5 orders by amount", 3, NOW)
                .withContext(null, null, constraints).withSql(sql, TokenUsage.ZERO);
    }

    @Test
    void shouldForwardValidSqlToExecuteAndLogAPassEvent() {
        Outcome.Send out = (Outcome.Send) stage.process(task("shop", "SELECT id FROM orders ORDER BY amount DESC LIMIT 5",
                new NlConstraints(null, null, "desc", 5, null)));
        assertEquals("forward", out.kind());
        assertEquals(Topics.EXECUTE.name(), out.emissions().get(0).topic());
        assertEquals(Topics.EVENTS.name(), out.emissions().get(1).topic());
        assertEquals("pass", ((AttemptEvent) out.emissions().get(1).message()).decision());
    }

    @Test
    void shouldSendIssuesToRepairWhenAColumnIsMissing() {
        Outcome.Send out = (Outcome.Send) stage.process(task("shop", "SELECT amout FROM orders", null));
        assertEquals("repair", out.kind());
        assertEquals(Topics.REPAIR_FEEDBACK.name(), out.emissions().get(0).topic());
        QuestionTask sent = (QuestionTask) out.emissions().get(0).message();
        Issue issue = sent.issues().getFirst();
        assertEquals(ErrorCategory.COLUMN_NOT_FOUND, issue.category());
        assertTrue(issue.candidates().contains("amount"));
        assertEquals("repair", ((AttemptEvent) out.emissions().get(1).message()).decision());
    }

    @Test
    void shouldReportSyntaxErrorsWithTheParserPosition() {
        Outcome.Send out = (Outcome.Send) stage.process(task("shop", "SELECT id FROM orders WHERE", null));
        Issue issue = ((QuestionTask) out.emissions().get(0).message()).issues().getFirst();
        assertEquals(ErrorCategory.SYNTAX_ERROR, issue.category());
        assertTrue(issue.message().contains("line 1"), issue.message());
    }

    @Test
    void shouldCallAKeywordTypoASyntaxErrorNamingTheTokenAndItsPosition() {
        for (Dialect d : List.of(Dialect.DUCKDB, Dialect.POSTGRES, Dialect.TRINO, Dialect.SPARKSQL, Dialect.HIVE)) {
            for (String sql : List.of("SELEC id FROM orders", "SLECT id FROM orders", "WTIH x AS (SELECT id FROM orders) SELECT id FROM x")) {
                Issue issue = StaticValidator.validate(sql, new ValidationTarget(d, SampleCatalog.create()), null).getFirst();
                assertEquals(ErrorCategory.SYNTAX_ERROR, issue.category(), d + ": " + sql + " → " + issue);
                assertEquals(sql.substring(0, sql.indexOf(' ')), issue.identifier(), d + ": " + issue);
                assertTrue(issue.message().contains("line 1") || issue.message().contains("1:"), d + ": " + issue.message());
            }
            Issue slip = StaticValidator.validate("SELECT id FORM orders", new ValidationTarget(d, SampleCatalog.create()), null).getFirst();
            assertEquals(ErrorCategory.SYNTAX_ERROR, slip.category(), d + ": " + slip);
            assertEquals("FORM", slip.identifier(), d + ": " + slip.message());
        }
    }

    @Test
    void shouldNotInventAnAggregationErrorForAColumnThatDoesNotExist() {
        // the wrong column in the select list is the error; that it is "not grouped" would be a second, invented one
        for (Dialect d : List.of(Dialect.DUCKDB, Dialect.POSTGRES, Dialect.TRINO)) {
            List<Issue> issues = StaticValidator.validate("SELECT stauts, count(*) FROM orders GROUP BY status",
                    new ValidationTarget(d, SampleCatalog.create()), null);
            assertEquals(List.of(ErrorCategory.COLUMN_NOT_FOUND), issues.stream().map(Issue::category).toList(), d + ": " + issues);
            List<Issue> real = StaticValidator.validate("SELECT status, amount, count(*) FROM orders GROUP BY status",
                    new ValidationTarget(d, SampleCatalog.create()), null);
            assertEquals(ErrorCategory.AGGREGATION_ERROR, real.getFirst().category(), d + ": " + real);
        }
    }

    @Test
    void shouldSendWritesToRepairAsReadOnlyViolations() {
        Outcome.Send out = (Outcome.Send) stage.process(task("shop", "SELECT 1; DROP TABLE orders", null));
        assertEquals("repair", out.kind());
        assertEquals(ErrorCategory.READ_ONLY_VIOLATION, ((QuestionTask) out.emissions().get(0).message()).issues().getFirst().category());
    }

    @Test
    void shouldRunSqlWhoseOnlyIssuesAreHintsAndKeepThemInTheTrace() {
        // "the top 5" is read from the wording: a hint, never a reason to refuse otherwise valid SQL, on any attempt.
        Outcome.Send out = (Outcome.Send) stage.process(task("shop", "SELECT id FROM orders ORDER BY amount DESC",
                new NlConstraints(null, null, "desc", 5, null)));
        assertEquals(Topics.EXECUTE.name(), out.emissions().get(0).topic());
        AttemptEvent event = assertInstanceOf(AttemptEvent.class, out.emissions().get(1).message());
        assertEquals("pass-with-hints", event.decision());
        Issue hint = event.issues().getFirst();
        assertEquals(ErrorCategory.CONSTRAINT_VIOLATION, hint.category());
        assertTrue(hint.hint());
        assertEquals("question asks for the top 5, SQL has no LIMIT", hint.message());
    }

    @Test
    void shouldPutErrorsBeforeHintsWhenBothAreFound() {
        Outcome.Send out = (Outcome.Send) stage.process(task("shop", "SELECT amout FROM orders ORDER BY amount DESC",
                new NlConstraints(null, null, "desc", 5, null)));
        assertEquals(Topics.REPAIR_FEEDBACK.name(), out.emissions().get(0).topic(), "an error goes to repair");
        List<Issue> issues = ((QuestionTask) out.emissions().get(0).message()).issues();
        assertEquals(ErrorCategory.COLUMN_NOT_FOUND, issues.get(0).category());
        assertFalse(issues.get(0).hint());
        assertTrue(issues.get(1).hint(), "the LIMIT doubt rides along as a hint");
    }

    @Test
    void shouldKeepTheGroupingHintWithTheColumnsItWouldNeed() {
        Outcome.Send out = (Outcome.Send) stage.process(task("shop", "SELECT count(*) AS n FROM orders",
                new NlConstraints(null, true, null, null, null)));
        assertEquals(Topics.EXECUTE.name(), out.emissions().get(0).topic(), "a per-group wording alone does not refuse SQL");
        AttemptEvent event = assertInstanceOf(AttemptEvent.class, out.emissions().get(1).message());
        assertEquals("question asks for a result per group, SQL has no GROUP BY", event.issues().getFirst().message());
    }

    @Test
    void shouldNameAWriteStatementAsSqlNamesIt() {
        Outcome.Send out = (Outcome.Send) stage.process(task("shop", "CREATE TABLE t AS SELECT id FROM orders", null));
        Issue issue = ((QuestionTask) out.emissions().get(0).message()).issues().getFirst();
        assertEquals(ErrorCategory.READ_ONLY_VIOLATION, issue.category());
        assertTrue(issue.message().startsWith("CREATE TABLE"), issue.message());
    }

    @Test
    void shouldEndTheQuestionForAnUnknownDatasource() {
        Outcome.Send out = (Outcome.Send) stage.process(task("nowhere", "SELECT 1", null));
        assertEquals("final", out.kind());
        QuestionResult result = assertInstanceOf(QuestionResult.class, out.emissions().get(0).message());
        assertEquals(Outcomes.UNKNOWN_DATASOURCE, result.reason());
        assertEquals(QuestionResult.FAILED, result.status());
    }

    @Test
    void shouldParseWithTheDialectTheTaskCarries() {
        // configured DuckDB here; the gateway resolved Trino, whose parser refuses DuckDB's "::" cast
        String sql = "SELECT id::VARCHAR FROM orders";
        assertEquals("forward", stage.process(task("shop", sql, null)).kind());
        assertEquals("repair", stage.process(task("shop", sql, null).withDialect(Dialect.TRINO)).kind());
    }

    @Test
    void shouldTreatAMissingSqlAsInvalidLlmOutput() {
        QuestionTask noSql = QuestionTask.create("q-2", "t", "shop", "?", 3, NOW);
        Outcome.Send out = (Outcome.Send) stage.process(noSql);
        assertEquals(ErrorCategory.LLM_OUTPUT_INVALID, ((QuestionTask) out.emissions().get(0).message()).issues().getFirst().category());
    }

    @Test
    void shouldPassARefusedAttemptOnToItsOtherCandidatesMarkedRefused() {
        // issue 50: the question's own SQL is refused, but other candidates may answer; the executor runs them, not it
        QuestionTask task = task("shop", "DELETE FROM orders", null).withCandidates(List.of(
                dev.sqloop.common.message.Candidate.generated(2, "SELECT count(*) FROM orders")));
        Outcome.Send out = (Outcome.Send) stage.process(task);
        assertEquals(Topics.EXECUTE.name(), out.emissions().getFirst().topic());
        QuestionTask passed = (QuestionTask) out.emissions().getFirst().message();
        assertEquals(ErrorCategory.READ_ONLY_VIOLATION, passed.issues().getFirst().category());
        assertTrue(passed.issues().getFirst().error(), "an error: the executor never runs this SQL");
        assertEquals("refused", ((dev.sqloop.common.message.AttemptEvent) out.emissions().get(1).message()).decision());
        // without another candidate to run, to repair as before
        assertEquals("repair", stage.process(task("shop", "DELETE FROM orders", null)).kind());
    }
}
