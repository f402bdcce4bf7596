package dev.sqloop.store;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * A question→SQL pair as stored: the datasource it belongs to, its dialect, where it came from
 * ({@code seed}, {@code auto} or {@code manual}) and when, who created it ({@code tenant}, null for seeds), a
 * curator's notes and tags, and who may see it: every tenant of the datasource ({@code shared}: seeds and examples a
 * curator shared) or only {@code tenant}. An example without a tenant is always shared.
 */
public record StoredExample(String datasource, String question, String sql, String dialect, String source, Instant createdAt,
                            String tenant, String notes, List<String> tags, boolean shared) {
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
        shared = shared || tenant == null;
    }

    /** Shared exactly when it has no tenant. */
    public StoredExample(String datasource, String question, String sql, String dialect, String source, Instant createdAt,
                         String tenant, String notes, List<String> tags) {
        this(datasource, question, sql, dialect, source, createdAt, tenant, notes, tags, tenant == null);
    }

    /** The tenant whose own example this is; null when it is shared. */
    public String owner() {
        return shared ? null : tenant;
    }

    /** Whether {@code tenant} may see it (retrieval, the repeat-question shortcut): shared, or its own. */
    public boolean visibleTo(String tenant) {
        return shared || dev.sqloop.common.message.ExampleIds.owner(tenant).equals(this.tenant);
    }

    /** An example with no owner, notes or tags (seeds, tests): shared. */
    public StoredExample(String datasource, String question, String sql, String dialect, String source, Instant createdAt) {
        this(datasource, question, sql, dialect, source, createdAt, null, null, List.of());
    }
}
