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
 * @param shared visible to every tenant of the datasource (seeds, examples a curator shared); otherwise only
 *               {@code tenant} sees it. Absent (older records): shared exactly when there is no tenant
 * @param batchId, questionId provenance of an auto-captured example: the batch (null for a single question) and the
 *               question it was captured from, so one batch's captures can be found and rolled back together; null for
 *               seeds, saved and posted examples, and records published before provenance was kept
 */
public record ExampleRecord(int schemaVersion, String id, String datasource, String question, String sql, String dialect,
                            String source, String tenant, String notes, List<String> tags, Instant createdAt, Boolean shared,
                            String batchId, String questionId)
        implements Message {
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
        shared = shared == null ? tenant == null : shared || tenant == null;
    }

    /** A record without provenance (not captured from a question). */
    public ExampleRecord(int schemaVersion, String id, String datasource, String question, String sql, String dialect,
                         String source, String tenant, String notes, List<String> tags, Instant createdAt, Boolean shared) {
        this(schemaVersion, id, datasource, question, sql, dialect, source, tenant, notes, tags, createdAt, shared, null, null);
    }

    /** The same record captured from {@code questionId} of {@code batchId}. */
    public ExampleRecord capturedFrom(String batchId, String questionId) {
        return new ExampleRecord(schemaVersion, id, datasource, question, sql, dialect, source, tenant, notes, tags, createdAt, shared,
                batchId, questionId);
    }

    /** A record without a visibility: shared exactly when it has no tenant (a seed). */
    public ExampleRecord(int schemaVersion, String id, String datasource, String question, String sql, String dialect,
                         String source, String tenant, String notes, List<String> tags, Instant createdAt) {
        this(schemaVersion, id, datasource, question, sql, dialect, source, tenant, notes, tags, createdAt, null);
    }

    /** Whether {@code viewer} may see it: shared, or the viewer's own. */
    public boolean visibleTo(String viewer) {
        return shared || ExampleIds.owner(viewer).equals(tenant);
    }

    /** The tenant whose own example this is; null when it is shared. */
    public String owner() {
        return shared ? null : tenant;
    }

    @Override
    public String key() {
        return id;
    }
}
