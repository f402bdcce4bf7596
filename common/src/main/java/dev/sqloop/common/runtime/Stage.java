package dev.sqloop.common.runtime;

import dev.sqloop.common.error.Outcomes;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.message.QuestionTask;
import java.time.Instant;

/**
 * A pipeline step as a pure function: one decoded input in, one {@link Outcome} out. No Kafka types here;
 * {@link StageRunner} owns consuming, producing, retries and the dead-letter queue.
 *
 * <p>Throw {@link InfrastructureException} for a failure worth retrying unchanged (LLM 429/5xx, dropped
 * warehouse connection); the runner retries it with backoff and never counts it as an attempt. Any other
 * exception is a defect for this record: it goes to the DLQ at once. A wrong SQL is not an exception but
 * an ordinary {@link Outcome}.
 *
 * <p>Implementations extend {@link AbstractStage}, which holds the name and the input type. A stage reports what the
 * runner cannot see (LLM and engine calls, few-shot retrieval…) through {@link StageMetrics}, never through a metrics library.
 */
public interface Stage<I> {

    /** Short stable name, used in metrics tags, logs and dead-letter headers. */
    String name();

    Class<I> inputType();

    /**
     * Everything a stage needs travels in the message itself (attempt, datasource, dialect, deadline); the
     * {@code sqloop-*} headers mirror it for operators and the DLQ, and no stage reads them.
     */
    Outcome process(I input) throws Exception;

    /**
     * What ends a record whose processing failed for good (infrastructure budget exhausted, or a defect).
     * The record also goes to the DLQ. For questions the default is a final failed result, so nothing stays
     * "in progress"; stages override it to name the reason ({@code llm_unavailable}…).
     */
    default Outcome onGiveUp(I input, Exception cause, boolean infrastructure, Instant now) {
        if (input instanceof QuestionTask task) {
            String reason = infrastructure ? Outcomes.INFRASTRUCTURE_ERROR : Outcomes.INTERNAL_ERROR;
            return Outcome.finish(QuestionResult.failed(task, reason, null, describe(cause), now));
        }
        return Outcome.drop("gave up: " + describe(cause));
    }

    /**
     * Whether this is the stage that starts questions (the pipeline's entry, where {@link Admission} holds a big
     * batch's questions until the path has room). A question's deadline counts from there, not from submission:
     * the runner moves a task's deadline by the time it waited to be started ({@link QuestionTask#started}) instead of
     * ending it, so a batch longer than the deadline does not lose its tail to the wait behind its own questions.
     */
    default boolean startsQuestions() {
        return false;
    }

    /** What ends a record that arrived after its {@code sqloop-deadline}. */
    default Outcome onDeadline(I input, Instant deadline, Instant now) {
        if (input instanceof QuestionTask task) {
            return Outcome.finish(QuestionResult.failed(task, Outcomes.DEADLINE_EXCEEDED, null,
                    "deadline " + deadline + " passed before stage " + name(), now));
        }
        return Outcome.drop("deadline " + deadline + " passed");
    }

    /** What ends a record whose question or batch was cancelled (it reaches no further stage, no LLM). */
    default Outcome onCancelled(I input, Instant now) {
        if (input instanceof QuestionTask task) {
            return Outcome.finish(QuestionResult.failed(task, Outcomes.CANCELLED, null, "cancelled before stage " + name(), now));
        }
        return Outcome.drop("cancelled");
    }

    static String describe(Throwable t) {
        return t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
    }
}
