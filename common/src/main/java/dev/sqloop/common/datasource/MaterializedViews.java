package dev.sqloop.common.datasource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * PostgreSQL's materialized views, which {@code information_schema} leaves out (they are not standard SQL): an
 * analytics database often answers its questions from them, so the schema-context linker and the validator's catalog,
 * both read from {@code information_schema.columns}, add them from {@code pg_catalog}: else the prompt never shows them
 * and the validator refuses a query that reads one as {@code table_not_found}.
 */
public final class MaterializedViews {
    private MaterializedViews() {}

    /** One column of a materialized view. */
    public record Column(String schema, String view, String column, String type) {}

    /**
     * The columns of the materialized views the session may read, in {@code schema} (every schema when null), by schema,
     * view and column position; none when the connection is not PostgreSQL's.
     */
    public static List<Column> columns(Connection c, String schema) throws SQLException {
        if (!SessionSchemas.postgres(c)) return List.of();
        String sql = "SELECT n.nspname, cl.relname, a.attname, format_type(a.atttypid, a.atttypmod)"
                + " FROM pg_catalog.pg_class cl JOIN pg_catalog.pg_namespace n ON n.oid = cl.relnamespace"
                + " JOIN pg_catalog.pg_attribute a ON a.attrelid = cl.oid"
                + " WHERE cl.relkind = 'm' AND a.attnum > 0 AND NOT a.attisdropped"
                // as information_schema does: only what the role may read
                + " AND has_any_column_privilege(cl.oid, 'SELECT')"
                + (schema == null ? " AND n.nspname NOT IN ('pg_catalog', 'information_schema')" : " AND n.nspname = ?")
                + " ORDER BY n.nspname, cl.relname, a.attnum";
        List<Column> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            if (schema != null) ps.setString(1, schema);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) out.add(new Column(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4)));
            }
        }
        return out;
    }
}
