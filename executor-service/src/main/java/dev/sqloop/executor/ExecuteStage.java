package dev.sqloop.executor;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.Topics;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.datasource.Datasources;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.error.Outcomes;
import dev.sqloop.common.message.Issue;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.runtime.AbstractStage;
import dev.sqloop.common.runtime.Outcome;
import dev.sqloop.common.runtime.InfrastructureException;
import dev.sqloop.common.runtime.Stage;
import dev.sqloop.common.runtime.StageMetrics;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The {@code execute} step: runs the attempt's SQL read-only on the question's datasource. A result goes to
 * {@code success}; an engine error (including {@code permission_denied}, which the repair worker does not
 * retry) goes to {@code repair-feedback} as an issue; an unreachable warehouse is retried by the runner and,
 * once its budget is spent, ends the question as {@code warehouse_unavailable}. Every statement an engine saw is
 * one {@code db.client.operation.duration} record; one refused before reaching it is none.
 */
public final class ExecuteStage extends AbstractStage<QuestionTask> {
    public static final String NAME = "execute";

    private final Datasources datasources;
    private final QueryRunner executor;
    private final StageMetrics metrics;
    private final Clock clock;

    public ExecuteStage(Datasources datasources, QueryRunner executor, StageMetrics metrics, Clock clock) {
        super(NAME, QuestionTask.class);
        this.datasources = datasources;
        this.executor = executor;
        this.metrics = metrics;
        this.clock = clock;
    }

    @Override
    public Outcome process(QuestionTask task) {
        Optional<DatasourceConfig> ds = datasources.find(task.datasource());
        if (ds.isEmpty()) {
            return Outcome.finish(QuestionResult.failed(task, Outcomes.UNKNOWN_DATASOURCE, null,
                    "unknown datasource '" + task.datasource() + "' (known: " + datasources.names() + ")", clock.instant()));
        }
        if (task.dialect() != null && task.dialect() != ds.get().dialect()) {
            // The connection decides the engine; a question resolved to another dialect was written for another engine.
            return Outcome.finish(QuestionResult.failed(task, Outcomes.UNKNOWN_DATASOURCE, null, "datasource '" + task.datasource()
                    + "' is " + ds.get().dialect().wireName() + " here but the question was submitted for "
                    + task.dialect().wireName() + ": SQLOOP_DATASOURCE_<NAME>_DIALECT differs between services", clock.instant()));
        }
        if (task.sql() == null || task.sql().isBlank()) {
            return Outcome.repair(task.withIssues(List.of(Issue.of(NAME, ErrorCategory.LLM_OUTPUT_INVALID, "no SQL to execute"))));
        }
        long start = System.nanoTime();
        String system = dbSystem(ds.get().dialect());
        QueryRunner.Result result;
        try {
            result = executor.run(ds.get(), task.sql());
        } catch (RuntimeException e) {
            ErrorCategory category = e instanceof InfrastructureException ? ErrorCategory.CONNECTION_ERROR : ErrorCategory.UNKNOWN;
            metrics.dbCall(system, category.wireName(), Duration.ofNanos(System.nanoTime() - start));
            throw e;
        }
        switch (result) {
            case QueryRunner.Succeeded s -> metrics.dbCall(system, "", Duration.ofNanos(System.nanoTime() - start));
            case QueryRunner.Failed f when f.sent() ->
                    metrics.dbCall(system, f.error().category().wireName(), Duration.ofNanos(System.nanoTime() - start));
            case QueryRunner.Failed f -> {
                // refused by the guard or an allow-list: no engine saw it
            }
        }
        QuestionTask timed = task.withTiming(NAME, (System.nanoTime() - start) / 1_000_000);
        return switch (result) {
            case QueryRunner.Succeeded s -> {
                // success feeds auto-capture (what it reads, no more); the final result goes straight to results so
                // capture never delays it
                QuestionTask done = timed.withIssues(List.of()).withExecution(s.execution());
                yield Outcome.forward(Topics.SUCCESS, done.forCapture()).and(Topics.RESULTS, QuestionResult.succeeded(done, clock.instant()));
            }
            case QueryRunner.Failed f -> Outcome.repair(timed.withExecution(null).withIssues(List.of(toIssue(f.error()))));
        };
    }

    /** The OTel {@code db.system.name} of the engine a dialect runs on. */
    static String dbSystem(Dialect dialect) {
        return switch (dialect) {
            case TRINO -> "trino";
            case PRESTO -> "presto";
            case HIVE -> "hive";
            case SPARKSQL -> "spark";
            case POSTGRES -> "postgresql";
            case DUCKDB -> "duckdb";
        };
    }

    static Issue toIssue(EngineError e) {
        return new Issue(NAME, e.category(), e.message(), e.identifier(), e.candidates());
    }

    /** An exhausted infrastructure budget means the warehouse stayed unreachable: say so, never "in progress". */
    @Override
    public Outcome onGiveUp(QuestionTask task, Exception cause, boolean infrastructure, Instant now) {
        if (!infrastructure) return super.onGiveUp(task, cause, false, now);
        return Outcome.finish(QuestionResult.failed(task.withIssues(List.of(Issue.of(NAME, ErrorCategory.CONNECTION_ERROR,
                        Stage.describe(cause)))), Outcomes.WAREHOUSE_UNAVAILABLE, ErrorCategory.CONNECTION_ERROR,
                Stage.describe(cause), now));
    }
}
