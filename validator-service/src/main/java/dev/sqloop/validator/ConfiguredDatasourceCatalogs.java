package dev.sqloop.validator;

import dev.sqloop.common.Dialect;
import dev.sqloop.validator.schema.CachedSchemaCatalog;
import java.util.Map;
import java.util.Optional;

/**
 * {@link DatasourceCatalogs} over a fixed set of named datasources, each with its dialect and a TTL-cached
 * catalog. The service's wiring builds it from the datasource configuration.
 */
public final class ConfiguredDatasourceCatalogs implements DatasourceCatalogs {

    /** One configured datasource. */
    public record Entry(Dialect dialect, CachedSchemaCatalog catalog) {}

    private final Map<String, Entry> entries;

    public ConfiguredDatasourceCatalogs(Map<String, Entry> entries) {
        this.entries = Map.copyOf(entries);
    }

    @Override
    public Optional<ValidationTarget> find(String datasource) {
        Entry e = entries.get(datasource);
        return e == null ? Optional.empty() : Optional.of(new ValidationTarget(e.dialect(), e.catalog().get()));
    }
}
