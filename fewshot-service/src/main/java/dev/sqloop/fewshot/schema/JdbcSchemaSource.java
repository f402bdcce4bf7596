package dev.sqloop.fewshot.schema;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.AllowList;
import dev.sqloop.common.datasource.DistinctValues;
import dev.sqloop.common.datasource.InformationSchemaColumns;
import dev.sqloop.common.datasource.PostgresRelations;
import dev.sqloop.common.datasource.SessionSchemas;
import dev.sqloop.common.sql.Identifiers;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * Reads a schema over JDBC: names and types from {@code information_schema} (DuckDB, Trino, PostgreSQL with its materialized
 * views and without its partitions: {@link PostgresRelations}) or the driver's
 * metadata (HiveServer2: Hive, Spark), table and
 * column comments from {@link DatabaseMetaData} remarks, and up to {@link #MAX_SAMPLES} distinct values of text and
 * boolean columns that have no more than that many (low cardinality: statuses, regions, cuisines); on Hive, where a
 * DISTINCT is a job, from the rows of tables up to {@value #HIVE_SAMPLE_MAX_ROWS} rows.
 */
public final class JdbcSchemaSource implements SchemaSource {
    public static final int MAX_SAMPLES = 5;
    /** On Hive, samples come from the rows of tables up to this many rows (a larger table shows none). */
    static final int HIVE_SAMPLE_MAX_ROWS = 20_000;
    private static final Set<String> SYSTEM_SCHEMAS = Set.of("information_schema", "pg_catalog", "pg_toast");

    /** Opens a read-only connection to a datasource. */
    @FunctionalInterface
    public interface Connector {
        Connection open(String datasource) throws SQLException;
    }

    private final Connector connector;
    private final String schema;
    private final Function<String, Set<String>> allowedSchemas;

    /**
     * @param schema the schema to read ({@code main} for DuckDB, {@code public} for PostgreSQL; its tables shown bare
     *               only when the session resolves bare names there, else as schema.table), or null for the
     *               connection's own (the one its URL or search path names, which unqualified names resolve in), or every
     *               user schema when the connection names none
     */
    public JdbcSchemaSource(Connector connector, String schema) {
        this(connector, schema, datasource -> Set.of());
    }

    /**
     * @param allowedSchemas per datasource, the schemas its queries may read (its {@code _ALLOWED_SCHEMAS}): the tables of
     *                    those other than the connection's own are offered too, as {@code schema.table}, since a bare
     *                    name resolves only in the connection's own; when its own is not among them, every table is
     *                    offered that way (the executor refuses a bare name there). Empty: the connection's own schema
     *                    alone (every user schema when it names none)
     */
    public JdbcSchemaSource(Connector connector, String schema, Function<String, Set<String>> allowedSchemas) {
        this.connector = connector;
        this.schema = schema;
        this.allowedSchemas = allowedSchemas;
    }

    @Override
    public List<TableInfo> tables(String datasource) throws SQLException {
        try (Connection c = connector.open(datasource)) {
            String product = product(c);
            boolean hive = hiveServer2(c, product);
            // the schemas bare names resolve in (a table of another schema would reach the prompt by a bare name the engine
            // then resolves in these: a Trino datasource per schema of a shared catalog got the whole catalog's tables)
            List<String> path = SessionSchemas.searchPath(c);
            // PostgreSQL folds an unquoted name to lower case and keeps a quoted one's: "Sales" is not sales, here as in
            // the executor's allow-list check
            boolean foldsToLower = product.contains("postgresql");
            AllowList allowList = new AllowList(foldsToLower, Set.of(), allowedSchemas.apply(datasource), Set.of());
            Set<String> allowed = allowList.schemas();
            if (!allowList.bareNamesAllowed(path)) {
                // bare names resolve (partly) outside the allow-list, and the executor refuses them: every table is
                // offered as schema.table, from the allowed schemas only
                path = List.of();
            }
            Set<String> spelled = allowed.isEmpty() ? allowed : spelled(c, allowList);
            // a configured schema is read in place of the path, its tables bare only if the session resolves them there
            List<String> scopes = schema != null ? scopes(List.of(schema), spelled, foldsToLower) : scopes(path, spelled, foldsToLower);
            // Hive runs each DISTINCT as a job of its own (seconds each: minutes for a schema's samples): it samples rows
            boolean hiveJobs = hive && !product.contains("spark");
            Map<String, List<String[]>> columns = columns(c, scopes, hive);
            if (columns.isEmpty() && allowed.isEmpty() && schema == null && !path.isEmpty() && !hive) {
                // the session's own schemas hold no table (a DuckDB file or a PostgreSQL database kept in a schema of its
                // own) and no allow-list says where to look: every user schema's tables, as schema.table, rather than a
                // prompt without a table; a warehouse of Hive databases is left to its allow-list
                path = List.of();
                columns = columns(c, scopes(path, spelled, foldsToLower), false);
            }
            // a partition beside its table invites a query of one partition for the whole: the table stands for them
            if (!hive) {
                for (PostgresRelations.Name p : PostgresRelations.partitions(c)) columns.remove(key(p.schema(), p.table()));
            }
            // HiveServer2's backticks, else the standard double quotes of the information_schema engines
            UnaryOperator<String> quote = (hive ? Dialect.HIVE : Dialect.TRINO)::quote;
            // a mixed-case name must be quoted on PostgreSQL to be found
            UnaryOperator<String> written = name -> Identifiers.written(name, foldsToLower, quote);
            Map<String, String> tableRemarks = new HashMap<>();
            Map<String, String> columnRemarks = new HashMap<>();
            if (!duckdbComments(c, tableRemarks, columnRemarks)) {
                for (String scope : scopes) remarks(c.getMetaData(), scope, tableRemarks, columnRemarks);
            }
            List<TableInfo> out = new ArrayList<>();
            Set<String> bareNames = new HashSet<>();
            for (var e : columns.entrySet()) {
                String[] st = e.getKey().split("\u0000", 2);
                Map<String, List<String>> samples = samples(c, st[0].isEmpty() ? null : st[0], st[1], e.getValue(), quote, hiveJobs);
                List<ColumnInfo> cols = new ArrayList<>();
                for (String[] col : e.getValue()) {
                    cols.add(new ColumnInfo(col[0], col[1], columnRemarks.get(e.getKey() + "\u0000" + col[0]),
                            samples.getOrDefault(col[0], List.of()), written.apply(col[0])));
                }
                // a bare name resolves in the connection's own schema (on PostgreSQL: the first schema of its search
                // path holding the name): a table of another (an allowed one, a shadowed one, any when the URL names only
                // a catalog) is offered as schema.table
                boolean bare = st[0].isEmpty()
                        || path.stream().anyMatch(p -> sameSchema(p, st[0], foldsToLower)) && bareNames.add(st[1].toLowerCase(Locale.ROOT));
                out.add(new TableInfo(bare ? st[1] : st[0] + "." + st[1], tableRemarks.get(e.getKey()), cols,
                        bare ? written.apply(st[1]) : written.apply(st[0]) + "." + written.apply(st[1])));
            }
            return out;
        }
    }

    /** The columns of the tables in {@code scopes}, by {@link #key}. */
    private static Map<String, List<String[]>> columns(Connection c, List<String> scopes, boolean hive) throws SQLException {
        Map<String, List<String[]>> columns = new LinkedHashMap<>();
        for (String scope : scopes) {
            if (hive) {
                columns.putAll(metadataColumns(c, scope));
            } else {
                try {
                    columns.putAll(informationSchema(c, scope));
                } catch (SQLException noInformationSchema) {
                    columns.putAll(metadataColumns(c, scope)); // an engine without it: what its driver's metadata says
                }
            }
        }
        return columns;
    }

    /**
     * The schemas to read: those bare names resolve in (in their order), then each other allowed one; null alone (every
     * user schema) when the connection names none and no schema is allowed.
     *
     * @param keepsCase the engine's schema names differ by case (PostgreSQL: {@code "S2"} is not {@code s2})
     */
    static List<String> scopes(List<String> path, Set<String> also, boolean keepsCase) {
        List<String> scopes = new ArrayList<>(path);
        if (path.isEmpty() && also.isEmpty()) scopes.add(null);
        also.stream().sorted().filter(s -> path.stream().noneMatch(p -> sameSchema(p, s, keepsCase))).forEach(scopes::add);
        return scopes;
    }

    /** Two spellings of a schema the engine reported, compared as it compares them. */
    private static boolean sameSchema(String a, String b, boolean keepsCase) {
        return keepsCase ? a.equals(b) : a.equalsIgnoreCase(b);
    }

    /**
     * The allowed schemas as the engine spells them (the allow-list holds them folded, {@link AllowList}; PostgreSQL and
     * DuckDB keep a schema's case), so each is read with an exact match the engine can push down.
     */
    private static Set<String> spelled(Connection c, AllowList allowList) {
        Set<String> out = new TreeSet<>();
        Set<String> unmatched = new HashSet<>(allowList.schemas());
        try (ResultSet rs = c.getMetaData().getSchemas()) {
            while (rs.next()) {
                String s = rs.getString("TABLE_SCHEM");
                if (s != null && unmatched.remove(allowList.key(s))) out.add(s);
            }
        } catch (SQLException | RuntimeException e) {
            // no schema list from this driver: the names as configured
        }
        out.addAll(unmatched);
        return out;
    }

    /** The key of a table's columns and remarks: its schema (empty when the driver names none) and name. */
    private static String key(String schema, String table) {
        return (schema == null ? "" : schema) + "\u0000" + table;
    }

    /** Names and types from {@code information_schema} (DuckDB, PostgreSQL, Trino), by schema and table. */
    private static Map<String, List<String[]>> informationSchema(Connection c, String schema) throws SQLException {
        Map<String, List<String[]>> columns = new LinkedHashMap<>();
        for (InformationSchemaColumns.Column col : InformationSchemaColumns.read(c, null, schema)) {
            if (SYSTEM_SCHEMAS.contains(col.schema().toLowerCase(Locale.ROOT))) continue;
            columns.computeIfAbsent(key(col.schema(), col.table()), k -> new ArrayList<>()).add(new String[] {col.column(), col.type()});
        }
        return columns;
    }

    /**
     * Names and types from the driver's metadata, for HiveServer2 (Hive, Spark Thrift Server), which has no
     * {@code information_schema}: the configured schema, else the database the connection's URL names.
     */
    private static Map<String, List<String[]>> metadataColumns(Connection c, String scope) throws SQLException {
        Map<String, List<String[]>> columns = new LinkedHashMap<>();
        try (ResultSet rs = c.getMetaData().getColumns(null, scope, "%", "%")) {
            while (rs.next()) {
                String s = rs.getString("TABLE_SCHEM");
                if (s != null && SYSTEM_SCHEMAS.contains(s.toLowerCase(Locale.ROOT))) continue;
                columns.computeIfAbsent(key(s, rs.getString("TABLE_NAME")), k -> new ArrayList<>())
                        .add(new String[] {rs.getString("COLUMN_NAME"), rs.getString("TYPE_NAME")});
            }
        }
        return columns;
    }

    /** Hive or Spark Thrift Server, by the product the driver names (its URL is not always given by the driver). */
    private static boolean hiveServer2(Connection c, String product) {
        if (product.contains("hive") || product.contains("spark")) return true;
        try {
            String url = c.getMetaData().getURL();
            return (url != null && url.startsWith("jdbc:hive2:")) || c.getClass().getName().startsWith("org.apache.hive");
        } catch (SQLException | RuntimeException e) {
            return c.getClass().getName().startsWith("org.apache.hive");
        }
    }

    /** The database product the driver names, lower case; empty when it does not say. */
    private static String product(Connection c) {
        try {
            String p = c.getMetaData().getDatabaseProductName();
            return p == null ? "" : p.toLowerCase(Locale.ROOT);
        } catch (SQLException | RuntimeException e) {
            return "";
        }
    }

    /** DuckDB's JDBC metadata has no remarks; its catalog functions carry {@code COMMENT ON} text. */
    private boolean duckdbComments(Connection c, Map<String, String> tables, Map<String, String> columns) {
        if (!c.getClass().getName().startsWith("org.duckdb")) return false;
        try (Statement st = c.createStatement()) {
            try (ResultSet rs = st.executeQuery("SELECT schema_name, table_name, comment FROM duckdb_tables() WHERE comment IS NOT NULL")) {
                while (rs.next()) tables.put(key(rs.getString(1), rs.getString(2)), rs.getString(3));
            }
            try (ResultSet rs = st.executeQuery(
                    "SELECT schema_name, table_name, column_name, comment FROM duckdb_columns() WHERE comment IS NOT NULL")) {
                while (rs.next()) columns.put(key(rs.getString(1), rs.getString(2)) + "\u0000" + rs.getString(3), rs.getString(4));
            }
            return true;
        } catch (SQLException e) {
            return false;
        }
    }

    /** Comments are optional metadata: a driver without remarks support leaves descriptions empty. */
    private static void remarks(DatabaseMetaData md, String schema, Map<String, String> tables, Map<String, String> columns) {
        try (ResultSet rs = md.getTables(null, schema, "%", null)) {
            while (rs.next()) {
                if (rs.getString("REMARKS") != null) tables.put(key(rs.getString("TABLE_SCHEM"), rs.getString("TABLE_NAME")), rs.getString("REMARKS"));
            }
        } catch (SQLException | RuntimeException ignored) {
            // no table comments from this driver
        }
        try (ResultSet rs = md.getColumns(null, schema, "%", "%")) {
            while (rs.next()) {
                if (rs.getString("REMARKS") != null) {
                    columns.put(key(rs.getString("TABLE_SCHEM"), rs.getString("TABLE_NAME")) + "\u0000" + rs.getString("COLUMN_NAME"),
                            rs.getString("REMARKS"));
                }
            }
        } catch (SQLException | RuntimeException ignored) {
            // no column comments from this driver
        }
    }

    /**
     * The low-cardinality columns' values of one table, by column: its text columns read together
     * ({@link DistinctValues}: one round trip per table where the engine takes the union), boolean and enum columns apart
     * (they do not union with text without a cast).
     */
    private static Map<String, List<String>> samples(Connection c, String schema, String table, List<String[]> columns,
                                                     UnaryOperator<String> quote, boolean hiveJobs) {
        List<List<String>> groups = new ArrayList<>();
        List<String> text = new ArrayList<>();
        groups.add(text);
        for (String[] col : columns) {
            String t = col[1].toLowerCase(Locale.ROOT);
            if (t.endsWith("[]")) continue; // an array's values ({gift}) are not what a filter compares with
            if (t.contains("char") || t.contains("text") || t.contains("string")) text.add(col[0]);
            else if (t.contains("bool") || t.contains("enum")) groups.add(List.of(col[0]));
        }
        String reference = (schema == null ? "" : quote.apply(schema) + ".") + quote.apply(table);
        Map<String, List<String>> out = new HashMap<>();
        if (hiveJobs) {
            // Hive: every sampled column in one plain projection of a small table's rows, no job (DistinctValues.readSmallTable)
            List<String> all = groups.stream().flatMap(List::stream).toList();
            if (all.isEmpty()) return out;
            DistinctValues.readSmallTable(c, reference, all, MAX_SAMPLES + 1, HIVE_SAMPLE_MAX_ROWS, quote, 5)
                    .forEach((column, values) -> {
                        List<String> low = lowCardinality(values);
                        if (!low.isEmpty()) out.put(column, low);
                    });
            return out;
        }
        for (List<String> group : groups) {
            if (group.isEmpty()) continue;
            DistinctValues.read(c, reference, group, MAX_SAMPLES + 1, quote, 5)
                    .forEach((column, values) -> {
                        List<String> low = lowCardinality(values);
                        if (!low.isEmpty()) out.put(column, low);
                    });
        }
        return out;
    }

    /** More distinct values than we would show: not a low-cardinality column, samples would mislead. */
    private static List<String> lowCardinality(List<String> values) {
        return values.size() > MAX_SAMPLES ? List.of() : values.stream().sorted().toList();
    }
}
