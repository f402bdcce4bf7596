package dev.sqloop.common.message;

import java.time.Instant;
import java.util.Objects;

/**
 * A cancelled question or batch, on the compacted {@code cancellations} topic: {@code key} is {@code question:<id>}
 * or {@code batch:<id>}. Stages end a cancelled question {@code cancelled} at the next stage it reaches.
 */
public record Cancellation(int schemaVersion, String target, String tenant, Instant at) implements Message {
    public static final String QUESTION = "question:";
    public static final String BATCH = "batch:";

    public Cancellation {
        Objects.requireNonNull(target, "target");
        schemaVersion = schemaVersion <= 0 ? CURRENT_SCHEMA_VERSION : schemaVersion;
    }

    public static Cancellation ofQuestion(String questionId, String tenant, Instant at) {
        return new Cancellation(0, QUESTION + questionId, tenant, at);
    }

    public static Cancellation ofBatch(String batchId, String tenant, Instant at) {
        return new Cancellation(0, BATCH + batchId, tenant, at);
    }

    @Override
    public String key() {
        return target;
    }
}
