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
 */
public record ExampleCommand(int schemaVersion, String exampleId, String action, String tenant, String datasource,
                             String question, String sql, String dialect, String notes, List<String> tags, Instant at)
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
    }

    @Override
    public String key() {
        return exampleId;
    }
}
