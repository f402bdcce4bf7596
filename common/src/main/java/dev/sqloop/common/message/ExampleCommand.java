package dev.sqloop.common.message;

import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * A curator's change to the example store, from {@code POST} or {@code DELETE /v1/examples} on the
 * {@code example-commands} topic, keyed by example id. The fewshot service applies it, so it stays the only writer
 * of its store.
 *
 * @param action {@code upsert} (question, sql, dialect, notes and tags given) or {@code delete} (datasource and
 *               question of the stored example)
 * @param tenant who asked for the change
 * @param owner  whose own example it changes; null (older producers) means {@code tenant}'s. Ignored when shared
 * @param shared the change is to the shared example of the question (a curator's), not to a tenant's own
 */
public record ExampleCommand(int schemaVersion, String exampleId, String action, String tenant, String datasource,
                             String question, String sql, String dialect, String notes, List<String> tags, Instant at,
                             String owner, boolean shared)
        implements Message {
    public static final String UPSERT = "upsert";
    public static final String DELETE = "delete";

    public ExampleCommand {
        Objects.requireNonNull(exampleId, "exampleId");
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(datasource, "datasource");
        Objects.requireNonNull(question, "question");
        action = action.toLowerCase(Locale.ROOT);
        schemaVersion = schemaVersion <= 0 ? CURRENT_SCHEMA_VERSION : schemaVersion;
        tags = tags == null ? List.of() : List.copyOf(tags);
        owner = shared ? null : ExampleIds.owner(owner == null ? tenant : owner);
    }

    /** A change to {@code tenant}'s own example. */
    public ExampleCommand(int schemaVersion, String exampleId, String action, String tenant, String datasource,
                          String question, String sql, String dialect, String notes, List<String> tags, Instant at) {
        this(schemaVersion, exampleId, action, tenant, datasource, question, sql, dialect, notes, tags, at, null, false);
    }

    @Override
    public String key() {
        return exampleId;
    }
}
