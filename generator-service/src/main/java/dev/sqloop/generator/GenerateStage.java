package dev.sqloop.generator;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.Topics;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.error.Outcomes;
import dev.sqloop.common.message.Issue;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.runtime.InfrastructureException;
import dev.sqloop.common.runtime.AbstractStage;
import dev.sqloop.common.runtime.Outcome;
import dev.sqloop.common.runtime.Stage;
import dev.sqloop.common.runtime.StageMetrics;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The {@code generate} worker: one LLM call per message. Valid SQL goes on to {@code static-validate};
 * an answer that is not one SQL statement goes to {@code repair-feedback} as {@code llm_output_invalid},
 * costing an attempt like any other wrong SQL. LLM outages are thrown as {@link InfrastructureException}
 * for the runner to retry, and end the question {@code llm_unavailable} once its budget is spent.
 */
public final class GenerateStage extends AbstractStage<QuestionTask> {
    public static final String NAME = "generate";

    private final LlmClient llm;
    private final DialectLookup dialects;
    private final PromptBuilder prompts;
    private final ProjectionContract projection;
    private final StageMetrics metrics;
    private final Clock clock;

    public GenerateStage(LlmClient llm, DialectLookup dialects, PromptBuilder prompts, StageMetrics metrics, Clock clock) {
        this(llm, dialects, prompts, ProjectionContract.OFF, metrics, clock);
    }

    public GenerateStage(LlmClient llm, DialectLookup dialects, PromptBuilder prompts, ProjectionContract projection,
                         StageMetrics metrics, Clock clock) {
        super(NAME, QuestionTask.class);
        this.llm = llm;
        this.dialects = dialects;
        this.prompts = prompts;
        this.projection = projection;
        this.metrics = metrics;
        this.clock = clock;
    }

    @Override
    public Outcome process(QuestionTask task) {
        Optional<Dialect> dialect = dialects.dialectOf(task);
        if (dialect.isEmpty()) {
            return Outcome.finish(QuestionResult.failed(task, Outcomes.UNKNOWN_DATASOURCE, null,
                    "unknown datasource '" + task.datasource() + "'", clock.instant()));
        }
        LlmClient.Prompt prompt = prompts.build(task, dialect.get());
        Instant start = clock.instant();
        long callStart = System.nanoTime();
        LlmClient.Reply reply;
        try {
            reply = llm.complete(prompt);
        } catch (LlmRejectedException e) {
            llmCall(LlmErrorType.of(e), callStart);
            return Outcome.finish(QuestionResult.failed(task, Outcomes.LLM_UNAVAILABLE, ErrorCategory.CONNECTION_ERROR,
                    e.getMessage(), clock.instant()));
        } catch (dev.sqloop.common.runtime.Cancellations.Cancelled c) {
            throw c; // cancelled while waiting for a slot: no call was made
        } catch (RuntimeException e) {
            // recorded before the runner retries it: each try is one call in the metrics
            llmCall(LlmErrorType.of(e), callStart);
            throw e;
        }
        llmCall("", callStart);
        long millis = Math.max(0, clock.millis() - start.toEpochMilli());
        metrics.llmTokens(llm.provider(), llm.model(), reply.usage().inputTokens(), reply.usage().outputTokens());
        return switch (OutputGuardrails.check(reply.text())) {
            case OutputGuardrails.Valid v -> Outcome.forward(Topics.STATIC_VALIDATE,
                    task.withSql(projection.enforce(v.sql(), task.question()), reply.usage()).withTiming(NAME, millis));
            case OutputGuardrails.Invalid inv -> Outcome.repair(task.withSql(inv.text(), reply.usage())
                    .withIssues(List.of(Issue.of(NAME, ErrorCategory.LLM_OUTPUT_INVALID, inv.reason())))
                    .withTiming(NAME, millis));
        };
    }

    private void llmCall(String errorType, long startNanos) {
        metrics.llmCall(llm.provider(), llm.model(), errorType, Duration.ofNanos(System.nanoTime() - startNanos));
    }

    /** An LLM that stays down past the runner's budget ends the question with a clear reason, not "in progress". */
    @Override
    public Outcome onGiveUp(QuestionTask task, Exception cause, boolean infrastructure, Instant now) {
        if (!infrastructure) return super.onGiveUp(task, cause, false, now);
        return Outcome.finish(QuestionResult.failed(task, Outcomes.LLM_UNAVAILABLE, ErrorCategory.CONNECTION_ERROR,
                "LLM endpoint unavailable after retries: " + Stage.describe(cause), now));
    }
}
