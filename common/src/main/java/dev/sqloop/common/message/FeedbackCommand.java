package dev.sqloop.common.message;

import java.time.Instant;
import java.util.Objects;

/**
 * A curator's command on the {@code feedback} topic: {@code save}, {@code unsave} or {@code mark-wrong}.
 * {@code dialect} is the datasource's (null from older producers: the fewshot service's default then applies).
 */
public record FeedbackCommand(int schemaVersion, String questionId, String action, String tenant, String datasource,
                              String question, String sql, String dialect, Instant at) implements Message {
    public FeedbackCommand {
        Objects.requireNonNull(questionId, "questionId");
        Objects.requireNonNull(action, "action");
        schemaVersion = schemaVersion <= 0 ? CURRENT_SCHEMA_VERSION : schemaVersion;
    }

    @Override
    public String key() {
        return questionId;
    }
}
