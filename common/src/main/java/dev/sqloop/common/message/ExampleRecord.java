package dev.sqloop.common.message;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One example as the few-shot store holds it, published on the compacted {@code examples} topic under its id
 * (a tombstone when it is deleted).
 *
 * @param source {@code seed}, {@code auto} (captured from a success) or {@code manual} (saved by a curator)
 * @param tenant the tenant that created it (asked the captured question, saved or posted it); null for seeds
 */
public record ExampleRecord(int schemaVersion, String id, String datasource, String question, String sql, String dialect,
                            String source, String tenant, String notes, List<String> tags, Instant createdAt) implements Message {
    public static final String SEED = "seed";
    public static final String AUTO = "auto";
    public static final String MANUAL = "manual";
    public static final List<String> SOURCES = List.of(SEED, AUTO, MANUAL);

    public ExampleRecord {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(datasource, "datasource");
        Objects.requireNonNull(question, "question");
        Objects.requireNonNull(sql, "sql");
        schemaVersion = schemaVersion <= 0 ? CURRENT_SCHEMA_VERSION : schemaVersion;
        tags = tags == null ? List.of() : List.copyOf(tags);
    }

    @Override
    public String key() {
        return id;
    }
}
