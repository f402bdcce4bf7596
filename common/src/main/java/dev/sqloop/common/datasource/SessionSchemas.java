package dev.sqloop.common.datasource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Where a session resolves a table name written without its schema: the schema-context linker names tables by it, the
 * validator resolves bare names by it, and the executor checks it against the schema allow-list (a bare name carries no
 * schema to check: {@link AllowList#bareNamesAllowed}).
 */
public final class SessionSchemas {
    private SessionSchemas() {}

    /**
     * The schemas a bare table name is looked up in, first match wins: PostgreSQL's search path (those of its schemas
     * that exist, {@code current_schemas(false)}), else the connection's own schema (its URL's; Hive and Spark: the
     * current database); empty when the connection names none (a Trino URL with only a catalog).
     */
    public static List<String> searchPath(Connection c) {
        if (postgres(c)) {
            List<String> path = postgresSearchPath(c);
            if (!path.isEmpty()) return path;
        }
        try {
            String s = c.getSchema();
            return s == null || s.isBlank() ? List.of() : List.of(s);
        } catch (SQLException | RuntimeException | AbstractMethodError e) {
            return List.of();
        }
    }

    /**
     * The relations a bare name reaches in a schema the engine searches without the path naming it, by schema:
     * PostgreSQL's {@code pg_catalog}, searched before the path unless the path places it ({@code pg_stats},
     * {@code pg_roles}, ...); DuckDB's {@code system.main} and {@code system.pg_catalog} ({@code duckdb_tables},
     * {@code pg_class}, ...); empty elsewhere. Read once per session by the executor, whose schema allow-list must then
     * refuse those names too. Throws when the engine does not answer: a name it cannot judge is not let through.
     */
    public static Map<String, Set<String>> implicitRelations(Connection c) throws SQLException {
        String sql;
        if (postgres(c)) {
            sql = "SELECT n.nspname, c.relname FROM pg_catalog.pg_class c"
                    + " JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'pg_catalog'";
        } else if (product(c).contains("duckdb")) {
            // information_schema is not searched: a bare tables or columns is the user's own
            sql = "SELECT database_name || '.' || schema_name, view_name FROM duckdb_views()"
                    + " WHERE database_name = 'system' AND schema_name <> 'information_schema'"
                    + " UNION ALL SELECT database_name || '.' || schema_name, table_name FROM duckdb_tables()"
                    + " WHERE database_name = 'system' AND schema_name <> 'information_schema'";
        } else {
            return Map.of();
        }
        Map<String, Set<String>> out = new java.util.TreeMap<>();
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) out.computeIfAbsent(rs.getString(1), k -> new HashSet<>()).add(rs.getString(2));
        }
        out.replaceAll((schema, names) -> Set.copyOf(names));
        return Map.copyOf(out);
    }

    /** PostgreSQL's search path as the session resolves it, in order; empty when it cannot be read. */
    public static List<String> postgresSearchPath(Connection c) {
        List<String> path = new ArrayList<>();
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT s FROM unnest(current_schemas(false)) WITH ORDINALITY AS p(s, i) ORDER BY i")) {
            while (rs.next()) path.add(rs.getString(1));
        } catch (SQLException e) {
            return List.of();
        }
        return path;
    }

    static boolean postgres(Connection c) {
        return product(c).contains("postgresql");
    }

    /** The driver's product name in lower case, empty when unknown. */
    private static String product(Connection c) {
        try {
            String product = c.getMetaData().getDatabaseProductName();
            return product == null ? "" : product.toLowerCase(Locale.ROOT);
        } catch (SQLException | RuntimeException e) {
            return "";
        }
    }
}
