package dev.sqloop.common.datasource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

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
        try {
            String product = c.getMetaData().getDatabaseProductName();
            return product != null && product.toLowerCase(Locale.ROOT).contains("postgresql");
        } catch (SQLException | RuntimeException e) {
            return false;
        }
    }
}
