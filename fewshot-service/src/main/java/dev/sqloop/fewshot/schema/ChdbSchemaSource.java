package dev.sqloop.fewshot.schema;

import dev.sqloop.chdb.Chdb;
import dev.sqloop.chdb.ChdbResult;
import dev.sqloop.chdb.ChdbSession;
import dev.sqloop.chdb.ChdbUrl;
import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.DatasourceConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The schema of a chDB datasource ({@code jdbc:chdb:DIR?database=NAME}), which has no JDBC driver: tables, columns, types
 * and comments from {@code system.columns} and {@code system.tables}, and up to {@link JdbcSchemaSource#MAX_SAMPLES}
 * values of text and boolean columns that have no more, a table's columns in one {@code groupUniqArray} scan. The URL's
 * database is shown bare; the other databases its {@code _ALLOWED_SCHEMAS} name as {@code database.table}. Read on a
 * session of its own with {@code readonly=1}.
 */
public final class ChdbSchemaSource implements SchemaSource {
    private final Function<String, DatasourceConfig> datasources;

    /** @param datasources the configuration of a datasource by name (a {@code jdbc:chdb:} one) */
    public ChdbSchemaSource(Function<String, DatasourceConfig> datasources) {
        this.datasources = datasources;
    }

    @Override
    public List<TableInfo> tables(String datasource) throws Exception {
        DatasourceConfig ds = datasources.apply(datasource);
        ChdbUrl url = ChdbUrl.of(ds.jdbcUrl());
        long seconds = Math.max(1, ds.queryTimeout().toSeconds());
        try (ChdbSession s = Chdb.open(url.directory()).session(Map.of("readonly", "1", "max_execution_time", Long.toString(seconds)))) {
            Set<String> databases = new LinkedHashSet<>();
            databases.add(url.database());
            databases.addAll(ds.allowedSchemas());
            String in = databases.stream().map(ChdbSchemaSource::literal).collect(Collectors.joining(", "));
            Map<String, String> tableComments = new LinkedHashMap<>();
            for (List<Object> r : s.query("SELECT database, name, comment FROM system.tables WHERE database IN (" + in + ")").rows()) {
                tableComments.put(r.get(0) + "." + r.get(1), (String) r.get(2));
            }
            Map<String, List<String[]>> columns = new LinkedHashMap<>();
            for (List<Object> r : s.query("SELECT database, table, name, type, comment FROM system.columns WHERE database IN (" + in
                    + ") ORDER BY database, table, position").rows()) {
                columns.computeIfAbsent(r.get(0) + "." + r.get(1), k -> new ArrayList<>())
                        .add(new String[] {(String) r.get(2), (String) r.get(3), (String) r.get(4)});
            }
            List<TableInfo> out = new ArrayList<>();
            for (Map.Entry<String, List<String[]>> e : columns.entrySet()) {
                String[] dt = e.getKey().split("\\.", 2);
                Map<String, List<String>> samples = samples(s, dt[0], dt[1], e.getValue());
                List<ColumnInfo> cols = new ArrayList<>();
                for (String[] c : e.getValue()) cols.add(new ColumnInfo(c[0], c[1], c[2], samples.get(c[0]), written(c[0])));
                boolean bare = dt[0].equals(url.database());
                out.add(new TableInfo(bare ? dt[1] : e.getKey(), tableComments.get(e.getKey()), cols,
                        bare ? written(dt[1]) : written(dt[0]) + "." + written(dt[1])));
            }
            return out;
        }
    }

    /** Up to {@link JdbcSchemaSource#MAX_SAMPLES} values of each text or boolean column that has no more. */
    private static Map<String, List<String>> samples(ChdbSession s, String database, String table, List<String[]> columns) {
        List<String> sampled = columns.stream().map(c -> c[0]).filter(c -> sampled(columns.stream()
                .filter(x -> x[0].equals(c)).findFirst().orElseThrow()[1])).toList();
        if (sampled.isEmpty()) return Map.of();
        String select = sampled.stream().map(c -> "groupUniqArray(" + (JdbcSchemaSource.MAX_SAMPLES + 1) + ")(toString(" + quote(c) + "))")
                .collect(Collectors.joining(", "));
        ChdbResult r;
        try {
            r = s.query("SELECT " + select + " FROM " + quote(database) + "." + quote(table));
        } catch (dev.sqloop.chdb.ChdbException e) {
            return Map.of(); // samples help the prompt; a table whose values cannot be read is shown without them
        }
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (int i = 0; i < sampled.size(); i++) {
            List<?> values = (List<?>) r.rows().getFirst().get(i);
            if (!values.isEmpty() && values.size() <= JdbcSchemaSource.MAX_SAMPLES) {
                out.put(sampled.get(i), values.stream().map(String::valueOf).sorted().toList());
            }
        }
        return out;
    }

    private static boolean sampled(String type) {
        String t = type.strip();
        while (t.startsWith("Nullable(") || t.startsWith("LowCardinality(")) t = t.substring(t.indexOf('(') + 1, t.length() - 1).strip();
        return t.equals("String") || t.equals("Bool") || t.startsWith("FixedString(") || t.startsWith("Enum");
    }

    /** A plain name as it is (ClickHouse keeps case, quoted or not); anything else in double quotes. */
    private static String written(String name) {
        return name.matches("[A-Za-z_][A-Za-z0-9_]*") ? name : Dialect.CLICKHOUSE.quote(name);
    }

    private static String quote(String identifier) {
        return "`" + identifier.replace("\\", "\\\\").replace("`", "\\`") + "`";
    }

    private static String literal(String value) {
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'";
    }
}
