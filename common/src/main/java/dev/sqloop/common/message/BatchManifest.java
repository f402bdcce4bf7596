package dev.sqloop.common.message;

import java.time.Instant;
import java.util.Objects;

/** A submitted batch: who submitted it, how many questions it holds, when. Keyed by batch id. */
public record BatchManifest(int schemaVersion, String batchId, String tenant, int size, Instant createdAt) implements Message {
    public BatchManifest {
        Objects.requireNonNull(batchId, "batchId");
        Objects.requireNonNull(tenant, "tenant");
        schemaVersion = schemaVersion <= 0 ? CURRENT_SCHEMA_VERSION : schemaVersion;
    }

    @Override
    public String key() {
        return batchId;
    }
}
