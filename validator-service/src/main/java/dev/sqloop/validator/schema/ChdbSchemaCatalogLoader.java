package dev.sqloop.validator.schema;

import dev.sqloop.chdb.Chdb;
import dev.sqloop.chdb.ChdbException;
import dev.sqloop.chdb.ChdbResult;
import dev.sqloop.chdb.ChdbSession;
import dev.sqloop.chdb.ChdbUrl;
import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.AllowList;
import dev.sqloop.common.datasource.DatasourceConfig;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Loads a {@link SchemaCatalog} from a chDB datasource ({@code jdbc:chdb:DIR?database=NAME}), which has no JDBC driver:
 * tables and columns from {@code system.columns} of the URL's database (or of the allowed schemas, which are ClickHouse
 * databases), functions from {@code system.functions}, and the distinct values of low-cardinality text columns, a
 * table's columns in one {@code groupUniqArray} scan. Read on a session of its own with {@code readonly=1} and the
 * datasource's timeout as {@code max_execution_time}.
 */
public final class ChdbSchemaCatalogLoader {
    private final CatalogLoadOptions options;
    private final AllowList allowList;

    public ChdbSchemaCatalogLoader(CatalogLoadOptions options) {
        this.options = options;
        this.allowList = options.allowList(Dialect.CLICKHOUSE);
    }

    /** The catalog of {@code ds}, whose URL is a {@code jdbc:chdb:} one; the engine's failures arrive as SQLException. */
    public SchemaCatalog load(DatasourceConfig ds) throws SQLException {
        ChdbUrl url = ChdbUrl.of(ds.jdbcUrl());
        long seconds = Math.max(1, ds.queryTimeout().toSeconds());
        try (ChdbSession session = Chdb.open(url.directory()).session(Map.of("readonly", "1", "max_execution_time", Long.toString(seconds)))) {
            return load(session, url.database());
        } catch (ChdbException e) {
            throw new SQLException("chDB catalog of " + ds.name() + ": " + e.getMessage(), e);
        }
    }

    /** The catalog read on {@code session}; bare names resolve in {@code database}. */
    public SchemaCatalog load(ChdbSession session, String database) throws ChdbException {
        List<String> databases = allowList.schemas().isEmpty() ? List.of(database) : List.copyOf(allowList.schemas());
        String in = databases.stream().map(ChdbSchemaCatalogLoader::literal).collect(Collectors.joining(", "));
        Map<String, TableSchema.Builder> tables = new LinkedHashMap<>();
        ChdbResult columns = session.query("SELECT database, table, name, type FROM system.columns WHERE database IN (" + in
                + ") ORDER BY database, table, position");
        for (List<Object> row : columns.rows()) {
            String db = (String) row.get(0);
            String table = (String) row.get(1);
            if (!allowList.tableAllowed(null, db, table)) continue;
            tables.computeIfAbsent(db + "." + table, k -> new TableSchema.Builder(null, db, table)).column((String) row.get(2), (String) row.get(3));
        }
        List<TableSchema> built = tables.values().stream().map(TableSchema.Builder::build).toList();
        InMemorySchemaCatalog.Builder b = InMemorySchemaCatalog.builder();
        built.forEach(b::table);
        b.functions(functions(session));
        b.defaultSchema(database);
        b.searchPath(List.of(database));
        b.bareNamesOutsideAllowList(!allowList.bareNamesAllowed(List.of(database)));
        indexValues(session, JdbcSchemaCatalogLoader.ownSchemasFirst(built, List.of(database)), b);
        return b.build();
    }

    /**
     * The engine's functions in lower case, as the validator reads a query's; each aggregate also under each combinator
     * suffix ({@code countIf}, {@code sumOrNull}, {@code uniqArray}), which {@code system.functions} does not list. One
     * suffix deep: a stacked one ({@code sumArrayIf}) is not in the list.
     */
    static java.util.Set<String> functions(ChdbSession session) throws ChdbException {
        java.util.Set<String> names = new java.util.TreeSet<>();
        List<String> aggregates = new ArrayList<>();
        for (List<Object> row : session.query("SELECT name, is_aggregate FROM system.functions").rows()) {
            String name = ((String) row.get(0)).toLowerCase(java.util.Locale.ROOT);
            names.add(name);
            if (Long.valueOf(1).equals(row.get(1))) aggregates.add(name);
        }
        for (List<Object> row : session.query("SELECT name FROM system.aggregate_function_combinators").rows()) {
            String suffix = ((String) row.get(0)).toLowerCase(java.util.Locale.ROOT);
            for (String a : aggregates) names.add(a + suffix);
        }
        return names;
    }

    private void indexValues(ChdbSession session, List<TableSchema> tables, InMemorySchemaCatalog.Builder b) {
        int max = options.valueIndexMaxDistinct();
        for (Map.Entry<TableSchema, List<String>> picked : options.valueIndexColumns(tables, ChdbSchemaCatalogLoader::isText).entrySet()) {
            TableSchema t = picked.getKey();
            List<String> text = picked.getValue();
            // max + 1 values tell a column over the limit from one at it; NULLs are not values (the aggregate skips them)
            String select = text.stream().map(c -> "groupUniqArray(" + (max + 1) + ")(toString(" + quote(c) + "))")
                    .collect(Collectors.joining(", "));
            ChdbResult r;
            try {
                r = session.query("SELECT " + select + " FROM " + quote(t.spelling().schema()) + "." + quote(t.spelling().name()));
            } catch (ChdbException e) {
                continue; // values are what exact comparisons are checked against, not what makes the catalog
            }
            if (r.rows().isEmpty()) continue;
            for (int i = 0; i < text.size(); i++) {
                List<?> values = (List<?>) r.rows().getFirst().get(i);
                if (values.size() <= max) b.values(t, text.get(i), values.stream().map(String::valueOf).sorted().toList());
            }
        }
    }

    /** String, FixedString and Enum columns, also under Nullable and LowCardinality. */
    static boolean isText(String type) {
        String t = type.strip();
        while (t.startsWith("Nullable(") || t.startsWith("LowCardinality(")) t = t.substring(t.indexOf('(') + 1, t.length() - 1).strip();
        return t.equals("String") || t.startsWith("FixedString(") || t.startsWith("Enum8(") || t.startsWith("Enum16(");
    }

    private static String quote(String identifier) {
        return "`" + identifier.replace("\\", "\\\\").replace("`", "\\`") + "`";
    }

    private static String literal(String value) {
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'";
    }
}
