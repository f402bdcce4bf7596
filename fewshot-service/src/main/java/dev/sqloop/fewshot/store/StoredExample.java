package dev.sqloop.fewshot.store;

import java.time.Instant;
import java.util.Objects;

/**
 * A question→SQL pair as stored: the datasource it belongs to, its dialect, where it came from
 * ({@code seed}, {@code auto} or {@code manual}) and when.
 */
public record StoredExample(String datasource, String question, String sql, String dialect, String source, Instant createdAt) {
    public static final String SEED = "seed";
    public static final String AUTO = "auto";
    public static final String MANUAL = "manual";

    public StoredExample {
        Objects.requireNonNull(datasource, "datasource");
        Objects.requireNonNull(question, "question");
        Objects.requireNonNull(sql, "sql");
        dialect = dialect == null ? "" : dialect;
        source = source == null ? AUTO : source;
        createdAt = createdAt == null ? Instant.now() : createdAt;
    }
}
