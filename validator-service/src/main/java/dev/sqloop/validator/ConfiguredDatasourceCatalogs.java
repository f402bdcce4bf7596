package dev.sqloop.validator;

import dev.sqloop.chdb.ChdbUrl;
import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.datasource.Datasources;
import dev.sqloop.common.datasource.ReadOnlyJdbc;
import dev.sqloop.validator.schema.CachedSchemaCatalog;
import dev.sqloop.validator.schema.CatalogLoadOptions;
import dev.sqloop.validator.schema.ChdbSchemaCatalogLoader;
import dev.sqloop.validator.schema.JdbcSchemaCatalogLoader;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * {@link DatasourceCatalogs} over a fixed set of named datasources, each with its dialect and a TTL-cached
 * catalog. The service's wiring builds it from the datasource configuration.
 */
public final class ConfiguredDatasourceCatalogs implements DatasourceCatalogs {

    /** One configured datasource. */
    public record Entry(Dialect dialect, CachedSchemaCatalog catalog, java.util.Set<String> extraFunctions,
                        dev.sqloop.parse.DialectParser engineParser) {
        public Entry(Dialect dialect, CachedSchemaCatalog catalog, java.util.Set<String> extraFunctions) {
            this(dialect, catalog, extraFunctions, null);
        }

        public Entry(Dialect dialect, CachedSchemaCatalog catalog) {
            this(dialect, catalog, java.util.Set.of());
        }
    }

    private final Map<String, Entry> entries;

    public ConfiguredDatasourceCatalogs(Map<String, Entry> entries) {
        this.entries = Map.copyOf(entries);
    }

    /**
     * From the datasource configuration: each catalog is loaded over a read-only JDBC connection
     * ({@link ReadOnlyJdbc}; a {@code jdbc:chdb:} datasource on a read-only chDB session, {@link ChdbSchemaCatalogLoader}), scoped by the datasource's own allow-lists when it has them, and cached with a TTL.
     */
    public static ConfiguredDatasourceCatalogs fromDatasources(Datasources configured, CatalogLoadOptions options, Duration ttl,
                                                               Clock clock) {
        Map<String, Entry> entries = new TreeMap<>();
        for (DatasourceConfig ds : configured.all()) {
            CatalogLoadOptions scoped = new CatalogLoadOptions(options.catalogs(),
                    ds.allowedSchemas().isEmpty() ? options.allowedSchemas() : ds.allowedSchemas(),
                    ds.allowedTables().isEmpty() ? options.allowedTables() : ds.allowedTables(),
                    options.valueIndexMaxDistinct(), options.valueIndexMaxColumns());
            JdbcSchemaCatalogLoader loader = new JdbcSchemaCatalogLoader(ds.dialect(), scoped);
            // chDB runs in this process and has no JDBC driver: its catalog is read on a chDB session
            ChdbSchemaCatalogLoader inProcess = ChdbUrl.matches(ds.jdbcUrl()) ? new ChdbSchemaCatalogLoader(scoped) : null;
            entries.put(ds.name(), new Entry(ds.dialect(), new CachedSchemaCatalog(() -> {
                if (inProcess != null) return inProcess.load(ds);
                try (Connection c = ReadOnlyJdbc.open(ds)) {
                    return loader.load(c);
                }
            }, ttl, clock), ds.safeguards().functions(),
                    // ClickHouse SQL JSqlParser cannot read is parsed by the datasource's own engine (EXPLAIN AST)
                    ds.dialect() == Dialect.CLICKHOUSE ? ClickHouseExplain.parser(ds) : null));
        }
        return new ConfiguredDatasourceCatalogs(entries);
    }

    @Override
    public Optional<ValidationTarget> find(String datasource) {
        Entry e = entries.get(datasource);
        return e == null ? Optional.empty() : Optional.of(new ValidationTarget(e.dialect(), e.catalog().get(), e.extraFunctions(), e.engineParser()));
    }
}
