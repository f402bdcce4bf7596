package dev.sqloop.validator.schema;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.AllowList;
import dev.sqloop.common.datasource.DistinctValues;
import dev.sqloop.common.datasource.InformationSchemaColumns;
import dev.sqloop.common.datasource.SessionSchemas;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Loads a {@link SchemaCatalog} from a live datasource through JDBC, the engine's own way: {@code
 * information_schema.columns} on PostgreSQL (with its materialized views, {@link InformationSchemaColumns}), DuckDB and Trino; {@code SHOW TABLES} + {@code DESCRIBE} on Hive
 * and Spark. Functions come from {@code pg_proc}, {@code duckdb_functions()} or {@code SHOW FUNCTIONS}. Text
 * columns with few distinct values are indexed ({@code SELECT DISTINCT … LIMIT n+1}).
 */
public final class JdbcSchemaCatalogLoader {
    /**
     * On Hive the values are read from tables of at most this many rows, without a job ({@link
     * DistinctValues#readSmallTable}); a DISTINCT per table costs a MapReduce/Tez job each.
     */
    static final int HIVE_VALUE_INDEX_MAX_ROWS = 20_000;
    private static final Set<String> SYSTEM_SCHEMAS = Set.of("information_schema", "pg_catalog", "pg_toast", "sys");
    private static final Set<String> TEXT_TYPES = Set.of("varchar", "text", "string", "char", "character varying",
            "character", "bpchar", "enum");

    private final Dialect dialect;
    private final CatalogLoadOptions options;
    private final AllowList allowList;

    public JdbcSchemaCatalogLoader(Dialect dialect, CatalogLoadOptions options) {
        this.dialect = dialect;
        this.options = options;
        this.allowList = options.allowList(dialect);
    }

    public SchemaCatalog load(Connection connection) throws SQLException {
        InMemorySchemaCatalog.Builder b = InMemorySchemaCatalog.builder();
        String defaultSchema = defaultSchema(connection);
        List<TableSchema> tables = switch (dialect) {
            case HIVE, SPARKSQL -> showTables(connection, defaultSchema);
            default -> informationSchema(connection);
        };
        tables.forEach(b::table);
        b.functions(functions(connection));
        b.defaultSchema(defaultSchema);
        List<String> path = searchPath(connection, defaultSchema);
        b.searchPath(path);
        b.bareNamesOutsideAllowList(!allowList.bareNamesAllowed(path));
        indexValues(connection, ownSchemasFirst(tables, path), b);
        return b.build();
    }

    /**
     * The tables of the schemas bare names resolve in first, the rest in their order: the value index's column budget is
     * spent in this order, and a datasource read without an allow-list (one Trino datasource per schema of a shared
     * catalog) would otherwise give it to whichever schemas sort first — tables its questions never name.
     */
    static List<TableSchema> ownSchemasFirst(List<TableSchema> tables, List<String> path) {
        if (path.isEmpty()) return tables;
        List<TableSchema> own = new ArrayList<>();
        List<TableSchema> others = new ArrayList<>();
        for (TableSchema t : tables) (path.stream().anyMatch(s -> s.equalsIgnoreCase(t.schema())) ? own : others).add(t);
        own.addAll(others);
        return own;
    }

    private List<TableSchema> informationSchema(Connection c) throws SQLException {
        List<String> catalogs = options.catalogs().isEmpty() ? java.util.Collections.singletonList(null) : options.catalogs();
        Map<String, TableSchema.Builder> tables = new LinkedHashMap<>();
        for (String catalog : catalogs) {
            for (InformationSchemaColumns.Column col : InformationSchemaColumns.read(c, catalog == null ? null : dialect.quote(catalog), null)) {
                String schema = col.schema();
                String table = col.table();
                if (SYSTEM_SCHEMAS.contains(schema.toLowerCase(Locale.ROOT)) || !allowList.tableAllowed(null, schema, table)) continue;
                // Postgres has one database per connection: its name is not part of a table reference.
                String cat = dialect == Dialect.TRINO || dialect == Dialect.PRESTO ? col.catalog() : null;
                tables.computeIfAbsent(cat + "." + schema + "." + table, k -> new TableSchema.Builder(cat, schema, table))
                        .column(col.column(), col.type());
            }
        }
        return tables.values().stream().map(TableSchema.Builder::build).toList();
    }

    /**
     * Hive and Spark: {@code SHOW TABLES IN db} and {@code DESCRIBE db.t} per allowed database. With no allow-list
     * only the connection's own database (the one in the JDBC URL) is read: a warehouse can hold hundreds of
     * databases and every table costs one DESCRIBE round trip.
     */
    private List<TableSchema> showTables(Connection c, String currentDatabase) throws SQLException {
        List<String> databases = allowList.schemas().isEmpty() ? List.of(currentDatabase) : List.copyOf(allowList.schemas());
        List<TableSchema> out = new ArrayList<>();
        for (String db : databases) {
            List<String> names = new ArrayList<>();
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SHOW TABLES IN " + dialect.quote(db))) {
                // Hive returns (tab_name); Spark returns (namespace, tableName, isTemporary), temporary views included.
                boolean spark = rs.getMetaData().getColumnCount() >= 3;
                while (rs.next()) {
                    if (spark && rs.getBoolean(3)) continue;
                    names.add(rs.getString(spark ? 2 : 1));
                }
            }
            for (String name : names) {
                if (!allowList.tableAllowed(null, db, name)) continue;
                TableSchema.Builder t = new TableSchema.Builder(null, db, name);
                try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("DESCRIBE " + dialect.quote(db) + "." + dialect.quote(name))) {
                    while (rs.next()) {
                        String col = rs.getString(1);
                        // DESCRIBE appends partition information after a blank or '#' line.
                        if (col == null || col.isBlank() || col.startsWith("#")) break;
                        t.column(col.strip(), rs.getString(2) == null ? "" : rs.getString(2).strip());
                    }
                }
                out.add(t.build());
            }
        }
        return out;
    }

    private List<String> functions(Connection c) throws SQLException {
        String sql = switch (dialect) {
            case POSTGRES -> "SELECT DISTINCT proname FROM pg_proc";
            case DUCKDB -> "SELECT DISTINCT function_name FROM duckdb_functions()";
            case CLICKHOUSE -> "SELECT name FROM system.functions";
            default -> "SHOW FUNCTIONS";
        };
        List<String> names = new ArrayList<>();
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) {
                String n = rs.getString(1);
                if (n == null) continue;
                // Spark lists catalog functions qualified (spark_catalog.default.f): keep the last part.
                names.add(n.substring(n.lastIndexOf('.') + 1).strip());
            }
        }
        return names;
    }

    /** {@code current_database()}, which both engines have; {@code default} if it cannot be read. */
    private static String currentDatabase(Connection c) {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT current_database()")) {
            if (rs.next() && rs.getString(1) != null) return rs.getString(1);
        } catch (SQLException e) {
            // an engine without current_database(): its default database
        }
        return "default";
    }

    /**
     * The schemas a bare name resolves in, in order: PostgreSQL's search path (those of its schemas that exist, {@code
     * current_schemas(false)}), else the session's schema alone; empty when unknown.
     */
    private List<String> searchPath(Connection c, String defaultSchema) {
        List<String> path = dialect == Dialect.POSTGRES ? SessionSchemas.postgresSearchPath(c) : List.of();
        return !path.isEmpty() ? path : defaultSchema == null ? List.of() : List.of(defaultSchema);
    }

    private String defaultSchema(Connection c) {
        // the session's database: where it resolves bare names, and what SHOW TABLES reads without an allow-list
        if (dialect == Dialect.HIVE || dialect == Dialect.SPARKSQL) return currentDatabase(c);
        try {
            String s = c.getSchema();
            return s != null ? s : switch (dialect) {
                case POSTGRES -> "public";
                case DUCKDB -> "main";
                default -> "default";
            };
        } catch (SQLException | AbstractMethodError e) {
            return null;
        }
    }

    /**
     * Indexes the values of low-cardinality text columns, a table's columns in one round trip ({@link DistinctValues};
     * on Hive from the rows of tables up to {@value #HIVE_VALUE_INDEX_MAX_ROWS} rows, without a job per table);
     * a column whose values cannot be read is left unindexed (values are what exact comparisons are checked against,
     * not what makes the catalog).
     */
    private void indexValues(Connection c, List<TableSchema> tables, InMemorySchemaCatalog.Builder b) {
        int max = options.valueIndexMaxDistinct();
        // the columns as stored: "Title" of a table created quoted on PostgreSQL is not title there
        for (Map.Entry<TableSchema, List<String>> picked : options.valueIndexColumns(tables, JdbcSchemaCatalogLoader::isText).entrySet()) {
            TableSchema t = picked.getKey();
            List<String> text = picked.getValue();
            Map<String, List<String>> values = dialect == Dialect.HIVE
                    ? DistinctValues.readSmallTable(c, reference(t), text, max + 1, HIVE_VALUE_INDEX_MAX_ROWS, dialect::quote, 0)
                    : DistinctValues.read(c, reference(t), text, max + 1, dialect::quote, 0);
            for (String column : text) {
                List<String> v = values.get(column);
                if (v != null && v.size() <= max) b.values(t, column, v);
            }
        }
    }

    private static boolean isText(String type) {
        String t = type.toLowerCase(Locale.ROOT);
        // PostgreSQL's enums and case-insensitive text (InformationSchemaColumns)
        if (t.startsWith("enum ") || t.equals("citext")) return true;
        int paren = t.indexOf('(');
        return TEXT_TYPES.contains((paren < 0 ? t : t.substring(0, paren)).strip());
    }

    /** The table named as stored, each part quoted: a quoted name keeps its case on PostgreSQL. */
    private String reference(TableSchema t) {
        StringBuilder sb = new StringBuilder();
        if (t.catalog() != null) sb.append(dialect.quote(t.catalog())).append('.');
        if (t.schema() != null) sb.append(dialect.quote(t.spelling().schema())).append('.');
        return sb.append(dialect.quote(t.spelling().name())).toString();
    }
}
