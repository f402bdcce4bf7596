package dev.sqloop.generator;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.topic.Topic;
import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.message.AttemptEvent;
import dev.sqloop.common.message.Message;
import dev.sqloop.common.message.PromptParts;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.runtime.Outcome;
import dev.sqloop.common.runtime.AbstractStage;
import dev.sqloop.common.sql.SqlDiff;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code repair-feedback} worker: decides whether a failed attempt is retried ({@link RepairDecision}),
 * and if so sends the question back to the generator with attempt+1 and a correction prompt, on its priority lane
 * {@code regenerate}; otherwise
 * the question ends on {@code results} with the reason. Every decision is also an {@link AttemptEvent}
 * on {@code events} (SQL, issues, decision, reason, diff against the previous attempt).
 */
public final class RepairStage extends AbstractStage<QuestionTask> {
    public static final String NAME = "repair";
    private static final Logger log = LoggerFactory.getLogger(RepairStage.class);

    private final DialectLookup dialects;
    private final CorrectionPromptBuilder prompts;
    private final Clock clock;
    private final Topic<QuestionTask> retryTopic;

    public RepairStage(DialectLookup dialects, CorrectionPromptBuilder prompts, Clock clock) {
        this(dialects, prompts, clock, true);
    }

    /** @param priorityLane retries go to {@code regenerate} (default), else back into {@code generate} behind first attempts */
    public RepairStage(DialectLookup dialects, CorrectionPromptBuilder prompts, Clock clock, boolean priorityLane) {
        super(NAME, QuestionTask.class);
        this.dialects = dialects;
        this.prompts = prompts;
        this.clock = clock;
        this.retryTopic = priorityLane ? Topics.REGENERATE : Topics.GENERATE;
    }

    @Override
    public Outcome process(QuestionTask task) {
        Instant start = clock.instant();
        RepairDecision decision = RepairDecision.decide(task, dialects);
        Instant now = clock.instant();
        AttemptEvent event = new AttemptEvent(Message.CURRENT_SCHEMA_VERSION, task.questionId(), task.attempt(), NAME,
                "repair-decision", task.sql(), task.issues(), decision.decision(), decision.reason() + ": " + decision.detail(),
                SqlDiff.compact(task.previousSql(), task.sql()), Duration.between(start, now).toMillis(), now, task.round(),
                task.retries(), unseenByValidator(task) ? PromptParts.of(task) : null);
        // Debug, not info: at batch scale every attempt would be a line; the events topic is the durable trace.
        log.debug("question {} attempt {}: {} ({}) {} diff: {}", task.questionId(), task.attempt(), decision.decision(),
                decision.reason(), decision.category().wireName(), event.sqlDiff());
        if (decision.retry()) {
            // decide() has checked the datasource is known.
            Dialect dialect = dialects.dialectOf(task).orElseThrow();
            return Outcome.forward(retryTopic, task.nextAttempt(prompts.build(task, dialect))).and(Topics.EVENTS, event);
        }
        return Outcome.finish(QuestionResult.failed(task, decision.reason(), decision.category(), decision.detail(), now))
                .and(Topics.EVENTS, event);
    }

    /**
     * An answer that was not SQL comes here straight from the generator: no validator event carries that attempt's
     * prompt, so the repair decision's does (a reviewer sees what was asked for the garbage too).
     */
    static boolean unseenByValidator(QuestionTask task) {
        return !task.issues().isEmpty() && task.issues().stream().allMatch(i -> GenerateStage.NAME.equals(i.stage()));
    }
}
