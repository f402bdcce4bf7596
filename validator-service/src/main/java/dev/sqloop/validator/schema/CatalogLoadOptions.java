package dev.sqloop.validator.schema;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.datasource.AllowList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * How a schema catalog is loaded from a datasource.
 *
 * @param catalogs Trino catalogs to read {@code information_schema} from (empty: the connection's catalog)
 * @param allowedSchemas schemas whose tables may be queried (empty: all but system schemas; on Hive/Spark, the
 *     JDBC URL's database only, since each table costs a DESCRIBE)
 * @param allowedTables tables that may be queried, as {@code table} or {@code schema.table} (empty: all); both lists
 *     as written, compared the way the datasource's engine compares names ({@link #allowList})
 * @param valueIndexMaxDistinct text columns with at most this many distinct values are indexed (0: no index)
 * @param valueIndexMaxColumns at most this many columns are indexed per load, bounding the load's cost
 */
public record CatalogLoadOptions(List<String> catalogs, Set<String> allowedSchemas, Set<String> allowedTables,
                                 int valueIndexMaxDistinct, int valueIndexMaxColumns) {

    public static final CatalogLoadOptions DEFAULTS = new CatalogLoadOptions(List.of(), Set.of(), Set.of(), 50, 200);

    public CatalogLoadOptions {
        catalogs = List.copyOf(catalogs);
        allowedSchemas = Set.copyOf(allowedSchemas);
        allowedTables = Set.copyOf(allowedTables);
    }

    /** Reads {@code <prefix>CATALOGS}, {@code ALLOWED_SCHEMAS}, {@code ALLOWED_TABLES} (comma lists), {@code VALUE_INDEX_MAX_DISTINCT}. */
    public static CatalogLoadOptions fromEnv(EnvConfig env, String prefix) {
        return new CatalogLoadOptions(list(env.string(prefix + "CATALOGS", "")),
                Set.copyOf(list(env.string(prefix + "ALLOWED_SCHEMAS", ""))),
                Set.copyOf(list(env.string(prefix + "ALLOWED_TABLES", ""))),
                env.integer(prefix + "VALUE_INDEX_MAX_DISTINCT", 50, 0, 10_000),
                env.integer(prefix + "VALUE_INDEX_MAX_COLUMNS", 200, 0, 100_000));
    }

    /** The lists as {@code dialect} compares names (on PostgreSQL a quoted entry keeps its case). */
    public AllowList allowList(Dialect dialect) {
        return AllowList.of(dialect, Set.of(), allowedSchemas, allowedTables);
    }

    /**
     * The columns whose values a load indexes, table by table in {@code tables}' order, each as stored: the text columns
     * ({@code isText}, the engine's own types), at most {@link #valueIndexMaxColumns} in all; none when
     * {@link #valueIndexMaxDistinct} is 0. A table without one is left out.
     */
    public Map<TableSchema, List<String>> valueIndexColumns(List<TableSchema> tables, Predicate<String> isText) {
        Map<TableSchema, List<String>> out = new LinkedHashMap<>();
        if (valueIndexMaxDistinct <= 0) return out;
        int budget = valueIndexMaxColumns;
        for (TableSchema t : tables) {
            List<String> text = new ArrayList<>();
            for (Map.Entry<String, String> col : t.columns().entrySet()) {
                if (budget <= 0) break;
                if (!isText.test(col.getValue())) continue;
                text.add(t.storedColumn(col.getKey()));
                budget--;
            }
            if (!text.isEmpty()) out.put(t, text);
        }
        return out;
    }

    private static List<String> list(String csv) {
        return Arrays.stream(csv.split(",")).map(String::strip).filter(x -> !x.isEmpty()).toList();
    }
}
