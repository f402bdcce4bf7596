package dev.sqloop.validator.schema;

import dev.sqloop.common.config.EnvConfig;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * How a schema catalog is loaded from a datasource.
 *
 * @param catalogs Trino catalogs to read {@code information_schema} from (empty: the connection's catalog)
 * @param allowedSchemas schemas whose tables may be queried (empty: all but system schemas; on Hive/Spark, the
 *     JDBC URL's database only, since each table costs a DESCRIBE)
 * @param allowedTables tables that may be queried, as {@code table} or {@code schema.table} (empty: all)
 * @param valueIndexMaxDistinct text columns with at most this many distinct values are indexed (0: no index)
 * @param valueIndexMaxColumns at most this many columns are indexed per load, bounding the load's cost
 */
public record CatalogLoadOptions(List<String> catalogs, Set<String> allowedSchemas, Set<String> allowedTables,
                                 int valueIndexMaxDistinct, int valueIndexMaxColumns) {

    public static final CatalogLoadOptions DEFAULTS = new CatalogLoadOptions(List.of(), Set.of(), Set.of(), 50, 200);

    public CatalogLoadOptions {
        catalogs = List.copyOf(catalogs);
        allowedSchemas = lower(allowedSchemas);
        allowedTables = lower(allowedTables);
    }

    /** Reads {@code <prefix>CATALOGS}, {@code ALLOWED_SCHEMAS}, {@code ALLOWED_TABLES} (comma lists), {@code VALUE_INDEX_MAX_DISTINCT}. */
    public static CatalogLoadOptions fromEnv(EnvConfig env, String prefix) {
        return new CatalogLoadOptions(list(env.string(prefix + "CATALOGS", "")),
                Set.copyOf(list(env.string(prefix + "ALLOWED_SCHEMAS", ""))),
                Set.copyOf(list(env.string(prefix + "ALLOWED_TABLES", ""))),
                env.integer(prefix + "VALUE_INDEX_MAX_DISTINCT", 50, 0, 10_000),
                env.integer(prefix + "VALUE_INDEX_MAX_COLUMNS", 200, 0, 100_000));
    }

    public boolean allows(String schema, String table) {
        String s = schema == null ? null : schema.toLowerCase(Locale.ROOT);
        String t = table.toLowerCase(Locale.ROOT);
        if (!allowedSchemas.isEmpty() && (s == null || !allowedSchemas.contains(s))) return false;
        return allowedTables.isEmpty() || allowedTables.contains(t) || s != null && allowedTables.contains(s + "." + t);
    }

    private static List<String> list(String csv) {
        return Arrays.stream(csv.split(",")).map(String::strip).filter(x -> !x.isEmpty()).toList();
    }

    private static Set<String> lower(Set<String> in) {
        return in.stream().map(x -> x.toLowerCase(Locale.ROOT)).collect(Collectors.toUnmodifiableSet());
    }
}
