package dev.sqloop.store;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * A question→SQL pair as stored: the datasource it belongs to, its dialect, where it came from
 * ({@code seed}, {@code auto} or {@code manual}) and when, who created it ({@code tenant}, null for seeds) and a
 * curator's notes and tags.
 */
public record StoredExample(String datasource, String question, String sql, String dialect, String source, Instant createdAt,
                            String tenant, String notes, List<String> tags) {
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
        tenant = tenant == null || tenant.isEmpty() ? null : tenant;
        notes = notes == null || notes.isEmpty() ? null : notes;
        tags = tags == null ? List.of() : List.copyOf(tags);
    }

    /** An example with no owner, notes or tags (seeds, tests). */
    public StoredExample(String datasource, String question, String sql, String dialect, String source, Instant createdAt) {
        this(datasource, question, sql, dialect, source, createdAt, null, null, List.of());
    }
}
