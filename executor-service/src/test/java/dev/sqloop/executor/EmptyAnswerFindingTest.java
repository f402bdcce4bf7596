package dev.sqloop.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.datasource.Datasources;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.AttemptEvent;
import dev.sqloop.common.message.EmptyAnswer;
import dev.sqloop.common.message.Execution;
import dev.sqloop.common.message.Issue;
import dev.sqloop.common.message.LinkedSchema;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.message.TokenUsage;
import dev.sqloop.common.runtime.Outcome;
import dev.sqloop.common.runtime.StageMetrics;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The executor's empty-answer finding (issue 46): what it names, when it is a hint and when one repair round. */
class EmptyAnswerFindingTest {
    private static final Instant NOW = Instant.parse("2026-12-02T10:00:00Z");
    private static final String WRONG_KEY = "SELECT c.sbCustName, COUNT(*) AS n FROM sbCustomer c JOIN sbTransaction t"
            + " ON c.sbCustName = t.sbTxCustId GROUP BY c.sbCustName";
    private static final Execution NONE = new Execution(List.of("sbCustName", "n"), List.of("VARCHAR", "BIGINT"), 0, List.of(), 3);
    private static final Execution SOME = new Execution(List.of("sbCustName", "n"), List.of("VARCHAR", "BIGINT"), 2,
            List.of(List.of("Ann", 3), List.of("Bo", 1)), 3);

    private static QuestionTask task(String question, String sql, int attempt) {
        QuestionTask t = QuestionTask.create("q1", "t", "demo", question, 3, NOW).withSql(sql, TokenUsage.ZERO);
        for (int i = 1; i < attempt; i++) t = t.nextAttempt("fix").withSql(sql, TokenUsage.ZERO);
        return t;
    }

    @ParameterizedTest
    @EnumSource(value = Dialect.class)
    void shouldNameAJoinThatComparesAnIdWithANonIdOnEveryParser(Dialect dialect) {
        Issue hint = EmptyAnswerFinding.of(task("How many transactions has each customer made?", WRONG_KEY, 1), dialect, NONE).orElseThrow();
        assertTrue(hint.hint());
        assertEquals(ErrorCategory.JOIN_ERROR, hint.category());
        assertTrue(hint.message().startsWith(EmptyAnswer.NO_ROWS), hint.message());
        assertTrue(hint.message().contains("id column t.sbtxcustid with c.sbcustname"), hint.message());
    }

    @Test
    void shouldNameJoinColumnsOfDifferentTypesFromTheLinkedSchema() {
        LinkedSchema schema = new LinkedSchema(List.of(
                new LinkedSchema.Table("orders", null, List.of(new LinkedSchema.Column("customer_id", "INTEGER", null, List.of()))),
                new LinkedSchema.Table("customers", null, List.of(new LinkedSchema.Column("customer_id", "VARCHAR", null, List.of())))));
        String sql = "SELECT o.* FROM orders o JOIN customers c ON o.customer_id = c.customer_id";
        String message = EmptyAnswerFinding.suspiciousJoin(sql, Dialect.DUCKDB, schema).orElseThrow()[0];
        assertTrue(message.contains("o.customer_id (INTEGER) with c.customer_id (VARCHAR)"), message);
        assertTrue(EmptyAnswerFinding.suspiciousJoin(sql, Dialect.DUCKDB, null).isEmpty(), "same names, no types: nothing to say");
    }

    @Test
    void shouldSayNothingOfARightJoinARowfulAnswerOrAYesNoQuestion() {
        String right = "SELECT c.sbCustName FROM sbCustomer c JOIN sbTransaction t ON c.sbCustId = t.sbTxCustId WHERE t.sbTxType = 'x'";
        Issue plain = EmptyAnswerFinding.of(task("Which customers made an x transaction?", right, 1), Dialect.POSTGRES, NONE).orElseThrow();
        assertEquals(ErrorCategory.CONSTRAINT_VIOLATION, plain.category());
        assertTrue(plain.message().contains("check each join's keys and each filter's values"), plain.message());
        assertTrue(EmptyAnswerFinding.of(task("Which customers?", WRONG_KEY, 1), Dialect.POSTGRES, SOME).isEmpty());
        assertTrue(EmptyAnswerFinding.of(task("Is there any customer with transactions?", WRONG_KEY, 1), Dialect.POSTGRES, NONE).isEmpty());
    }

    private static ExecuteStage stage(Set<String> repair, Execution result) {
        Datasources ds = Datasources.of(DatasourceConfig.of("demo", Dialect.DUCKDB, "jdbc:duckdb:/x", null, null));
        QueryRunner runner = (d, sql) -> new QueryRunner.Succeeded(result);
        return new ExecuteStage(ds, runner, StageMetrics.NONE, Clock.fixed(NOW, ZoneOffset.UTC), repair);
    }

    private static <T> T only(Outcome o, String topic, Class<T> type) {
        return ((Outcome.Send) o).emissions().stream().filter(e -> e.topic().equals(topic)).map(e -> type.cast(e.message()))
                .findFirst().orElseThrow(() -> new AssertionError("nothing on " + topic + ": " + o));
    }

    @Test
    void shouldSucceedWithTheHintOnTheResultAndInTheTraceByDefault() {
        Outcome o = stage(Set.of(), NONE).process(task("How many transactions has each customer made?", WRONG_KEY, 1));
        assertEquals("forward", o.kind());
        QuestionResult result = only(o, Topics.RESULTS.name(), QuestionResult.class);
        assertEquals("first_attempt_success", result.reason());
        assertTrue(result.issues().getFirst().hint() && EmptyAnswer.isFinding(result.issues().getFirst()), result.issues().toString());
        AttemptEvent event = only(o, Topics.EVENTS.name(), AttemptEvent.class);
        assertEquals("pass-with-hints", event.decision());
        assertEquals("execute", event.stage());
        assertTrue(EmptyAnswer.anyFinding(only(o, Topics.SUCCESS.name(), QuestionTask.class).issues()), "capture sees the hint");
        // a rowful answer carries no hint and writes no event
        Outcome rows = stage(Set.of(), SOME).process(task("How many transactions has each customer made?", WRONG_KEY, 1));
        assertTrue(only(rows, Topics.RESULTS.name(), QuestionResult.class).issues().isEmpty());
        assertFalse(((Outcome.Send) rows).emissions().stream().anyMatch(e -> e.topic().equals(Topics.EVENTS.name())));
    }

    @Test
    void shouldSpendOneRepairRoundWhereTheDatasourceAsksAndAnAttemptRemains() {
        String q = "How many transactions has each customer made?";
        Outcome first = stage(Set.of("demo"), NONE).process(task(q, WRONG_KEY, 1));
        assertEquals("repair", first.kind());
        QuestionTask toRepair = only(first, Topics.REPAIR_FEEDBACK.name(), QuestionTask.class);
        assertTrue(toRepair.issues().getFirst().error() && toRepair.issues().getFirst().message().contains("sbtxcustid"));
        // the round spent: the same empty answer now succeeds with the hint (nothing may be the right answer)
        QuestionTask again = toRepair.nextAttempt("fix").withSql(WRONG_KEY, TokenUsage.ZERO);
        assertEquals("forward", stage(Set.of("demo"), NONE).process(again).kind());
        // no attempt left: the hint only
        QuestionTask last = task(q, WRONG_KEY, 3);
        assertEquals("forward", stage(Set.of("demo"), NONE).process(last).kind());
    }
}
