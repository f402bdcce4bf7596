package dev.sqloop.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.datasource.Datasources;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.error.Outcomes;
import dev.sqloop.common.message.AttemptEvent;
import dev.sqloop.common.message.Execution;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.message.TokenUsage;
import dev.sqloop.common.runtime.InfrastructureException;
import dev.sqloop.common.runtime.MicrometerStageMetrics;
import dev.sqloop.common.runtime.Outcome;
import dev.sqloop.common.runtime.StageMetrics;
import dev.sqloop.testkit.engines.DemoWarehouse;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExecuteStageTest {
    private static final Instant NOW = Instant.parse("2026-11-22T10:00:00Z");
    private static final Datasources DATASOURCES = Datasources.of(DatasourceConfig.of("demo", Dialect.DUCKDB, "jdbc:duckdb:/x", null, null));

    private static QuestionTask task(String datasource, String sql) {
        return QuestionTask.create("q1", "t", datasource, "how many?", 3, NOW).withSql(sql, TokenUsage.ZERO);
    }

    private static ExecuteStage stage(QueryRunner runner) {
        return new ExecuteStage(DATASOURCES, runner, StageMetrics.NONE, Clock.fixed(NOW, ZoneOffset.UTC));
    }

    private static void assertScraped(PrometheusMeterRegistry registry, String line) {
        String scrape = registry.scrape();
        assertTrue(scrape.contains(line), () -> "missing " + line + " in\n" + scrape);
    }

    @Test
    void shouldTimeEveryStatementADuckDbEngineSawAndNoneItWasSpared(@TempDir Path dir) throws Exception {
        Datasources demo = Datasources.of(DatasourceConfig.of("demo", Dialect.DUCKDB,
                "jdbc:duckdb:" + DemoWarehouse.create(dir.resolve("demo.duckdb")), null, null));
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (ReadOnlyExecutor executor = new ReadOnlyExecutor()) {
            ExecuteStage s = new ExecuteStage(demo, executor, new MicrometerStageMetrics(registry), Clock.systemUTC());
            assertEquals("forward", s.process(task("demo", "SELECT n_name FROM nation")).kind());
            assertEquals("repair", s.process(task("demo", "SELECT n_nam FROM nation")).kind());
            assertEquals("repair", s.process(task("demo", "DROP TABLE nation")).kind(), "refused by the guard, before the engine");
        }
        assertScraped(registry, "db_client_operation_duration_seconds_count{db_system_name=\"duckdb\",error_type=\"\"} 1");
        assertScraped(registry, "db_client_operation_duration_seconds_count{db_system_name=\"duckdb\",error_type=\"column_not_found\"} 1");
        // the histogram's buckets are published; which one the statement fell in depends on the host's load
        assertScraped(registry, "db_client_operation_duration_seconds_bucket{db_system_name=\"duckdb\",error_type=\"\",le=\"10.0\"}");
        assertScraped(registry, "db_client_operation_duration_seconds_bucket{db_system_name=\"duckdb\",error_type=\"\",le=\"+Inf\"} 1");
        assertScraped(registry, "db_client_operation_duration_seconds_max{db_system_name=\"duckdb\",error_type=\"\"}");
        assertEquals(2, registry.get(dev.sqloop.common.metrics.Metrics.DB_OPERATION_DURATION).timers().stream()
                .mapToLong(t -> t.count()).sum(), "the refused DROP is not an engine call");
    }

    @Test
    void shouldTimeAnUnreachableEngineAsAConnectionErrorUnderItsOtelSystemName() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Datasources spark = Datasources.of(DatasourceConfig.of("lake", Dialect.SPARKSQL, "jdbc:hive2://127.0.0.1:1/default", null, null));
        ExecuteStage s = new ExecuteStage(spark, (ds, sql) -> { throw new InfrastructureException("down", null); },
                new MicrometerStageMetrics(registry), Clock.systemUTC());
        assertThrows(InfrastructureException.class, () -> s.process(task("lake", "SELECT 1")));
        assertScraped(registry, "db_client_operation_duration_seconds_count{db_system_name=\"spark\",error_type=\"connection_error\"} 1");
    }

    @Test
    void shouldNameEveryDialectsEngineAsOpenTelemetryDoes() {
        assertEquals(List.of("trino", "presto", "hive", "spark", "postgresql", "duckdb", "clickhouse"),
                java.util.Arrays.stream(Dialect.values()).map(ExecuteStage::dbSystem).toList());
    }

    @Test
    void shouldForwardToSuccessAndWriteTheFinalResult() {
        Execution e = new Execution(List.of("n"), List.of("BIGINT"), 1, List.of(List.of(3L)), 2);
        QuestionTask withContext = task("demo", "SELECT 3").withContext(
                List.of(new dev.sqloop.common.message.Example("how many?", "SELECT 3", 0.9, "seed")),
                new dev.sqloop.common.message.LinkedSchema(List.of(new dev.sqloop.common.message.LinkedSchema.Table("t", null, List.of()))),
                null);
        Outcome.Send out = (Outcome.Send) stage((ds, sql) -> new QueryRunner.Succeeded(e)).process(withContext);
        assertEquals("forward", out.kind());
        assertEquals(Topics.SUCCESS.name(), out.emissions().get(0).topic());
        // capture gets the question, the SQL and the row count; the rows and the prompt's context stay off success
        QuestionTask success = (QuestionTask) out.emissions().get(0).message();
        assertEquals("SELECT 3", success.sql());
        assertEquals(1, success.execution().rowCount());
        assertEquals(List.of(), success.execution().preview());
        assertEquals(List.of(), success.examples());
        assertEquals(null, success.linkedSchema());
        assertEquals(Topics.RESULTS.name(), out.emissions().get(1).topic());
        dev.sqloop.common.message.QuestionResult result = (dev.sqloop.common.message.QuestionResult) out.emissions().get(1).message();
        assertEquals(dev.sqloop.common.message.QuestionResult.SUCCEEDED, result.status());
        assertEquals("first_attempt_success", result.reason());
        assertEquals(e, result.execution());
        assertEquals("SELECT 3", result.sql());
    }

    @Test
    void shouldRouteAnEngineErrorToRepairWithItsCandidates() {
        EngineError err = EngineError.sql(ErrorCategory.COLUMN_NOT_FOUND, "Binder Error: …", "foo", List.of("food"));
        Outcome.Send out = (Outcome.Send) stage((ds, sql) -> new QueryRunner.Failed(err)).process(task("DEMO", "SELECT foo"));
        assertEquals("repair", out.kind());
        assertEquals(Topics.REPAIR_FEEDBACK.name(), out.emissions().get(0).topic());
        QuestionTask t = (QuestionTask) out.emissions().get(0).message();
        assertEquals(1, t.issues().size());
        assertEquals(ErrorCategory.COLUMN_NOT_FOUND, t.issues().get(0).category());
        assertEquals("execute", t.issues().get(0).stage());
        assertEquals(List.of("food"), t.issues().get(0).candidates());
        assertEquals("foo", t.issues().get(0).identifier());
    }

    @Test
    void shouldEndAQuestionOnAnUnknownDatasource() {
        Outcome.Send out = (Outcome.Send) stage((ds, sql) -> { throw new AssertionError("must not run"); })
                .process(task("nope", "SELECT 1"));
        QuestionResult r = assertInstanceOf(QuestionResult.class, out.emissions().get(0).message());
        assertEquals(Outcomes.UNKNOWN_DATASOURCE, r.reason());
        assertEquals(Topics.RESULTS.name(), out.emissions().get(0).topic());
    }

    @Test
    void shouldRefuseAQuestionResolvedForAnotherEngineThanTheConnection() {
        Outcome.Send out = (Outcome.Send) stage((ds, sql) -> { throw new AssertionError("must not run"); })
                .process(task("demo", "SELECT 1").withDialect(Dialect.TRINO));
        QuestionResult r = assertInstanceOf(QuestionResult.class, out.emissions().get(0).message());
        assertEquals(Outcomes.UNKNOWN_DATASOURCE, r.reason());
        assertTrue(r.errorMessage().contains("duckdb here but the question was submitted for trino"), r.errorMessage());
        Outcome.Send same = (Outcome.Send) stage((ds, sql) -> new QueryRunner.Succeeded(
                new Execution(List.of("n"), List.of("INTEGER"), 1, List.of(List.of(1)), 1)))
                .process(task("demo", "SELECT 1").withDialect(Dialect.DUCKDB));
        assertEquals("forward", same.kind());
    }

    @Test
    void shouldLetTheRunnerRetryAnUnreachableWarehouse() {
        ExecuteStage s = stage((ds, sql) -> { throw new InfrastructureException("down", null); });
        assertThrows(InfrastructureException.class, () -> s.process(task("demo", "SELECT 1")));
    }

    @Test
    void shouldEndAsWarehouseUnavailableWhenRetriesRunOut() {
        Outcome.Send out = (Outcome.Send) stage((ds, sql) -> null)
                .onGiveUp(task("demo", "SELECT 1"), new InfrastructureException("connection refused", null), true, NOW);
        QuestionResult r = (QuestionResult) out.emissions().get(0).message();
        assertEquals(Outcomes.WAREHOUSE_UNAVAILABLE, r.reason());
        assertEquals(ErrorCategory.CONNECTION_ERROR, r.errorCategory());
        assertEquals(QuestionResult.FAILED, r.status());
    }

    @Test
    void shouldAskForSqlWhenThereIsNone() {
        Outcome.Send out = (Outcome.Send) stage((ds, sql) -> { throw new AssertionError(); }).process(task("demo", " "));
        assertEquals("repair", out.kind());
        assertEquals(ErrorCategory.LLM_OUTPUT_INVALID, ((QuestionTask) out.emissions().get(0).message()).issues().get(0).category());
    }

    @Test
    void shouldSendATieToTheGeneratorWhereTheDatasourceBreaksTiesElseEndItUncertain() {
        // three candidates, three different results: no group is larger than every other
        QueryRunner runner = (ds, sql) -> new QueryRunner.Succeeded(new Execution(List.of("n"), List.of("INTEGER"), 1,
                List.of(List.<Object>of(sql.length())), 1));
        QuestionTask tie = task("demo", "SELECT 1").withCandidates(List.of(dev.sqloop.common.message.Candidate.generated(2, "SELECT 22"),
                dev.sqloop.common.message.Candidate.generated(3, "SELECT 333")));
        Outcome.Send sent = assertInstanceOf(Outcome.Send.class, stage(runner).withTieBreak(java.util.Set.of("demo")).process(tie));
        assertEquals("tie-break", sent.kind());
        assertEquals(List.of(Topics.REGENERATE.name()), sent.emissions().stream().map(Outcome.Emission::topic).toList());
        QuestionTask back = (QuestionTask) sent.emissions().getFirst().message();
        assertTrue(back.awaitsTieBreak(), "the generator knows it for a tie-break");
        assertEquals(List.of(1, 2, 3), back.candidates().stream().map(dev.sqloop.common.message.Candidate::index).toList());
        assertTrue(back.candidates().stream().allMatch(dev.sqloop.common.message.Candidate::votes), "every result travels with it");

        Outcome.Send off = assertInstanceOf(Outcome.Send.class, stage(runner).process(tie));
        assertEquals(Outcomes.UNCERTAIN, ((QuestionResult) off.emissions().getFirst().message()).reason(), "tie-break off: uncertain as before");
        // a tie-break never runs where nothing ran but one candidate (sole) or all failed: once the others' attempts are
        // spent, the one that ran answers
        QueryRunner failing = (ds, sql) -> sql.equals("SELECT 1") ? new QueryRunner.Succeeded(new Execution(List.of("n"), List.of("INTEGER"), 1,
                List.of(List.<Object>of(1)), 1)) : new QueryRunner.Failed(new EngineError(ErrorCategory.SYNTAX_ERROR, "bad", null, List.of(), false, null), true);
        QuestionTask spent = task("demo", "SELECT 1").withCandidates(tie.candidates().stream().map(c -> new dev.sqloop.common.message.Candidate(
                c.index(), c.sql(), c.status(), null, null, null, 3, null)).toList());
        assertEquals("forward", stage(failing).withTieBreak(java.util.Set.of("demo")).process(spent).kind(), "one ran: sole, answered");
    }

    /**
     * Issue 50's "candidates that fail go through repair as today, within the same attempt budget": the question's own SQL
     * (candidate 1) failing goes to repair with the other candidates riding along unrun; once the repaired attempt runs,
     * they run and vote beside it; a failed candidate 2.. whose vote could still change the choice goes to the generator
     * for its correction, comes back, runs (the question's own result is not run again) and votes.
     */
    @Test
    void shouldRepairEveryFailedCandidateThatCouldChangeTheChoice() {
        List<String> ran = new java.util.ArrayList<>();
        QueryRunner runner = (ds, sql) -> {
            ran.add(sql);
            return sql.contains("nam ") || sql.contains("broken")
                    ? new QueryRunner.Failed(new EngineError(ErrorCategory.COLUMN_NOT_FOUND, "no column nam", "nam", List.of("name"), false, null), true)
                    : new QueryRunner.Succeeded(new Execution(List.of("n"), List.of("INTEGER"), 1, List.of(List.<Object>of(sql.contains("7") ? 7 : 1)), 1));
        };
        List<dev.sqloop.common.message.Candidate> others = List.of(dev.sqloop.common.message.Candidate.generated(2, "SELECT 1 AS n"),
                dev.sqloop.common.message.Candidate.generated(3, "SELECT broken"), dev.sqloop.common.message.Candidate.generated(4, "SELECT 7"));
        QuestionTask first = task("demo", "SELECT nam FROM t").withCandidates(others);
        Outcome repair = stage(runner).process(first);
        assertEquals("repair", repair.kind());
        QuestionTask failed = (QuestionTask) ((Outcome.Send) repair).emissions().getFirst().message();
        assertEquals(List.of("ran", "failed", "ran"), failed.candidates().stream().map(dev.sqloop.common.message.Candidate::status).toList(),
                "the others ran (1 against 7, one failed): the question's own SQL, repaired, decides; their results ride along");
        assertEquals(ErrorCategory.COLUMN_NOT_FOUND, failed.issues().getFirst().category(), "the repair sees the own SQL's error");
        // the repair worker's next attempt (one attempt of the same budget), with the LLM's fixed SQL
        QuestionTask repaired = failed.nextAttempt("The previous SQL failed: regenerate").withSql("SELECT 1 AS one", TokenUsage.ZERO);
        assertEquals(2, repaired.attempt());
        ran.clear();
        // 2 agree (candidates 1 and 2) against 1 (candidate 4): failed candidate 3, repaired, could tie them, so it is repaired
        Outcome.Send sent = assertInstanceOf(Outcome.Send.class, stage(runner).process(repaired));
        assertEquals(List.of("SELECT 1 AS one"), ran, "only the repaired SQL runs: the others' results were kept");
        assertEquals("candidate-repair", sent.kind());
        assertEquals(List.of(Topics.REGENERATE.name(), Topics.EVENTS.name()), sent.emissions().stream().map(Outcome.Emission::topic).toList());
        QuestionTask toGenerator = (QuestionTask) sent.emissions().getFirst().message();
        assertTrue(toGenerator.awaitsCandidateRepair() && !toGenerator.awaitsTieBreak());
        dev.sqloop.common.message.Candidate third = toGenerator.candidates().stream().filter(c -> c.index() == 3).findFirst().orElseThrow();
        assertEquals(dev.sqloop.common.message.Candidate.REPAIR, third.status());
        assertEquals(ErrorCategory.COLUMN_NOT_FOUND, third.issue().category(), "the engine's error travels for the correction prompt");
        assertEquals("nam", third.issue().identifier());
        AttemptEvent event = (AttemptEvent) sent.emissions().get(1).message();
        assertEquals(AttemptEvent.CANDIDATE_REPAIR, event.kind());
        assertEquals("repair-candidates", event.decision());
        assertTrue(event.reason().contains("repairing candidate 3 (attempt 1, column_not_found: no column nam)"), event.reason());

        // the generator's correction of candidate 3 (what GenerateStage does on this shape), then the executor again
        QuestionTask back = toGenerator.withCandidates(toGenerator.candidates().stream().map(c -> c.index() == 3
                ? c.repairedAs(dev.sqloop.common.message.Candidate.generated(3, "SELECT 1 AS three")) : c).toList());
        ran.clear();
        Outcome.Send done = assertInstanceOf(Outcome.Send.class, stage(runner).process(back));
        assertEquals(List.of("SELECT 1 AS three"), ran, "only the corrected candidate runs: the others' results were kept");
        QuestionResult r = done.emissions().stream().map(Outcome.Emission::message).filter(QuestionResult.class::isInstance)
                .map(QuestionResult.class::cast).findFirst().orElseThrow();
        assertEquals(Outcomes.CORRECTED_SUCCESS, r.reason());
        assertEquals("SELECT 1 AS one", r.sql(), "three agree now against candidate 4");
        assertEquals(List.of("ran", "ran", "ran", "ran"), r.candidates().stream().map(dev.sqloop.common.message.Candidate::status).toList());
        assertEquals(2, r.candidates().get(2).attempt(), "the corrected candidate's attempt");
    }

    @Test
    void shouldNotRepairFailedCandidatesWhenTheirVotesCannotChangeTheChoiceOrTheirBudgetIsSpent() {
        QueryRunner runner = (ds, sql) -> sql.contains("broken")
                ? new QueryRunner.Failed(new EngineError(ErrorCategory.COLUMN_NOT_FOUND, "no column", "x", List.of(), false, null), true)
                : new QueryRunner.Succeeded(new Execution(List.of("n"), List.of("INTEGER"), 1, List.of(List.<Object>of(1)), 1));
        // three agree, one failed: even repaired it could not outvote them
        QuestionTask settled = task("demo", "SELECT 1").withCandidates(List.of(dev.sqloop.common.message.Candidate.generated(2, "SELECT 1 AS a"),
                dev.sqloop.common.message.Candidate.generated(3, "SELECT 1 AS b"), dev.sqloop.common.message.Candidate.generated(4, "SELECT broken")));
        assertEquals("forward", stage(runner).process(settled).kind());
        // a sole result and a failed candidate on its last attempt: nothing left to repair, the sole one answers
        QuestionTask last = task("demo", "SELECT 1").withCandidates(List.of(new dev.sqloop.common.message.Candidate(2, "SELECT broken",
                dev.sqloop.common.message.Candidate.GENERATED, null, null, null, 3, null)));
        assertEquals("forward", stage(runner).process(last).kind());
        // a failure no correction addresses (permission) is not repaired either
        QueryRunner denied = (ds, sql) -> sql.contains("broken")
                ? new QueryRunner.Failed(new EngineError(ErrorCategory.PERMISSION_DENIED, "denied", null, List.of(), false, null), true)
                : new QueryRunner.Succeeded(new Execution(List.of("n"), List.of("INTEGER"), 1, List.of(List.<Object>of(1)), 1));
        QuestionTask refused = task("demo", "SELECT 1").withCandidates(List.of(dev.sqloop.common.message.Candidate.generated(2, "SELECT broken")));
        assertEquals("forward", stage(denied).process(refused).kind());
    }

    @Test
    void shouldLetTheOtherCandidatesAnswerWhenTheQuestionsOwnSqlFailsAndItsRepairCannotChangeTheChoice() {
        QueryRunner runner = (ds, sql) -> sql.contains("broken")
                ? new QueryRunner.Failed(new EngineError(ErrorCategory.COLUMN_NOT_FOUND, "no column", "x", List.of(), false, null), true)
                : new QueryRunner.Succeeded(new Execution(List.of("n"), List.of("INTEGER"), 1, List.of(List.<Object>of(sql.contains("7") ? 7 : 1)), 1));
        // the own SQL fails, but three others agree: even repaired it could not outvote them, so they answer at once
        QuestionTask wide = task("demo", "SELECT broken").withCandidates(List.of(dev.sqloop.common.message.Candidate.generated(2, "SELECT 1 AS a"),
                dev.sqloop.common.message.Candidate.generated(3, "SELECT 1 AS b"), dev.sqloop.common.message.Candidate.generated(4, "SELECT 1 AS c")));
        Outcome.Send answered = assertInstanceOf(Outcome.Send.class, stage(runner).process(wide));
        QuestionResult r = answered.emissions().stream().map(Outcome.Emission::message).filter(QuestionResult.class::isInstance)
                .map(QuestionResult.class::cast).findFirst().orElseThrow();
        assertEquals(QuestionResult.SUCCEEDED, r.status());
        assertEquals("SELECT 1 AS a", r.sql(), "the agreeing group's first candidate");
        assertEquals("failed", r.candidates().getFirst().status(), "the own SQL's failure is kept for review");
        assertEquals(ErrorCategory.COLUMN_NOT_FOUND, r.candidates().getFirst().issue().category());
        // on its last attempt the own SQL is not repaired: two others tie, so no answer
        QuestionTask last = task("demo", "SELECT broken").withCandidates(List.of(dev.sqloop.common.message.Candidate.generated(2, "SELECT 1 AS a"),
                dev.sqloop.common.message.Candidate.generated(3, "SELECT 7 AS b")));
        for (int a = 1; a < 3; a++) last = last.nextAttempt("fix").withSql("SELECT broken", TokenUsage.ZERO);
        assertEquals(3, last.attempt());
        Outcome.Send tied = assertInstanceOf(Outcome.Send.class, stage(runner).process(last));
        assertEquals(Outcomes.UNCERTAIN, ((QuestionResult) tied.emissions().getFirst().message()).reason());
        // nothing else ran either: the repair worker ends it with the own SQL's error, as without candidates
        QuestionTask none = task("demo", "SELECT broken").withCandidates(List.of(dev.sqloop.common.message.Candidate.generated(2, "SELECT broken 2")));
        assertEquals("repair", stage(runner).process(none).kind());
    }

    @Test
    void shouldNeverRunSqlTheValidatorRefusedAndLetTheOtherCandidatesAnswer() {
        List<String> ran = new java.util.ArrayList<>();
        QueryRunner runner = (ds, sql) -> {
            ran.add(sql);
            return new QueryRunner.Succeeded(new Execution(List.of("n"), List.of("INTEGER"), 1, List.of(List.<Object>of(1)), 1));
        };
        dev.sqloop.common.message.Issue refusal = dev.sqloop.common.message.Issue.of("static-validate", ErrorCategory.READ_ONLY_VIOLATION,
                "statement writes data (DELETE)");
        QuestionTask refused = task("demo", "DELETE FROM t").withCandidates(List.of(dev.sqloop.common.message.Candidate.generated(2, "SELECT 1 AS a"),
                dev.sqloop.common.message.Candidate.generated(3, "SELECT 1 AS b"), dev.sqloop.common.message.Candidate.generated(4, "SELECT 1 AS c")))
                .withIssues(List.of(refusal));
        Outcome.Send out = assertInstanceOf(Outcome.Send.class, stage(runner).process(refused));
        assertEquals(List.of("SELECT 1 AS a", "SELECT 1 AS b", "SELECT 1 AS c"), ran, "the refused SQL never reaches the engine");
        QuestionResult r = out.emissions().stream().map(Outcome.Emission::message).filter(QuestionResult.class::isInstance)
                .map(QuestionResult.class::cast).findFirst().orElseThrow();
        assertEquals("SELECT 1 AS a", r.sql());
        // a refused SQL without candidates (not what the validator sends) is not run either: back to repair
        ran.clear();
        assertEquals("repair", stage(runner).process(task("demo", "DELETE FROM t").withIssues(List.of(refusal))).kind());
        assertEquals(List.of(), ran);
    }
}
