package dev.sqloop.validator;

import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.datasource.Datasources;
import dev.sqloop.common.datasource.ReadOnlyJdbc;
import dev.sqloop.validator.schema.CachedSchemaCatalog;
import dev.sqloop.validator.schema.CatalogLoadOptions;
import dev.sqloop.validator.schema.JdbcSchemaCatalogLoader;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** {@link DatasourceCatalogs} over the configured datasources: each catalog is loaded read-only over JDBC and cached with a TTL. */
public final class ConfiguredCatalogs implements DatasourceCatalogs {
    private final Map<String, DatasourceConfig> datasources = new TreeMap<>();
    private final Map<String, CachedSchemaCatalog> catalogs = new TreeMap<>();

    public ConfiguredCatalogs(Datasources configured, CatalogLoadOptions options, Duration ttl, Clock clock) {
        for (DatasourceConfig ds : configured.all()) {
            CatalogLoadOptions scoped = new CatalogLoadOptions(options.catalogs(),
                    ds.allowedSchemas().isEmpty() ? options.allowedSchemas() : ds.allowedSchemas(),
                    ds.allowedTables().isEmpty() ? options.allowedTables() : ds.allowedTables(),
                    options.valueIndexMaxDistinct(), options.valueIndexMaxColumns());
            JdbcSchemaCatalogLoader loader = new JdbcSchemaCatalogLoader(ds.dialect(), scoped);
            datasources.put(ds.name(), ds);
            catalogs.put(ds.name(), new CachedSchemaCatalog(() -> {
                try (Connection c = ReadOnlyJdbc.open(ds)) {
                    return loader.load(c);
                }
            }, ttl, clock));
        }
    }

    @Override
    public Optional<ValidationTarget> find(String datasource) {
        DatasourceConfig ds = datasources.get(datasource);
        if (ds == null) return Optional.empty();
        return Optional.of(new ValidationTarget(ds.dialect(), catalogs.get(datasource).get()));
    }
}
