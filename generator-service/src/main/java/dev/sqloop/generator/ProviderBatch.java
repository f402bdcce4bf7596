package dev.sqloop.generator;

import dev.sqloop.common.message.Message;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.topic.Topic;
import dev.sqloop.common.topic.Topics;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One window of generate requests sent (or about to be sent) as one provider batch: the latest state per window on
 * the compacted {@code llm-batches} topic, so a restarted generator resumes polling the provider batch it had
 * submitted instead of submitting it again or losing its questions. A tombstone removes it once every question was
 * forwarded.
 *
 * @param version grows with each state written, so an older record read back late never overrides a newer one
 * @param providerBatchId the provider's batch id; null while {@link State#SEALED}
 * @param tasks the window's questions in request order: request {@code i} has the custom id {@link #customId}
 */
public record ProviderBatch(int schemaVersion, String windowId, long version, State state, String providerBatchId,
                            String inputFileId, Instant sealedAt, List<QuestionTask> tasks) implements Message {
    /** The compacted topic of windows in flight. One partition: one generator polls all windows, others take over. */
    public static final Topic<ProviderBatch> TOPIC = Topic.of("llm-batches", ProviderBatch.class);
    public static final Topics.Spec SPEC = Topics.Spec.of(TOPIC, 1, true);
    /** The provider batch's metadata key naming its window: how a submission interrupted before it was recorded is found. */
    public static final String WINDOW_METADATA = "sqloop_window";

    /** {@code SEALED}: recorded, not yet known to be submitted; {@code SUBMITTED}: the provider has it as {@code providerBatchId}. */
    public enum State { SEALED, SUBMITTED }

    public ProviderBatch {
        Objects.requireNonNull(windowId, "windowId");
        Objects.requireNonNull(state, "state");
        schemaVersion = schemaVersion <= 0 ? CURRENT_SCHEMA_VERSION : schemaVersion;
        tasks = tasks == null ? List.of() : List.copyOf(tasks);
    }

    public static ProviderBatch sealed(String windowId, Instant sealedAt, List<QuestionTask> tasks) {
        return new ProviderBatch(0, windowId, 1, State.SEALED, null, null, sealedAt, tasks);
    }

    public ProviderBatch submitted(String providerBatchId, String inputFileId) {
        return new ProviderBatch(schemaVersion, windowId, version + 1, State.SUBMITTED, providerBatchId, inputFileId, sealedAt, tasks);
    }

    /** The request's custom id in the JSONL: its index in the window, then the question id for whoever reads the file. */
    public static String customId(int index, QuestionTask task) {
        return index + ":" + task.questionId();
    }

    /**
     * The index a custom id names, or -1 for one this window did not write; the index ends at a {@code :} or, in the id
     * as rewritten for Anthropic (which allows only {@code [A-Za-z0-9_-]}), a {@code -}.
     */
    public static int indexOf(String customId) {
        if (customId == null) return -1;
        int end = 0;
        while (end < customId.length() && customId.charAt(end) != ':' && customId.charAt(end) != '-') end++;
        try {
            return Integer.parseInt(customId.substring(0, end));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    @Override
    public String key() {
        return windowId;
    }
}
