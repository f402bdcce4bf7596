package dev.sqloop.common.datasource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What PostgreSQL's {@code information_schema} gets wrong for a schema's reader, corrected from {@code pg_catalog}
 * ({@link InformationSchemaColumns} applies the first and the last of these). It
 * leaves out materialized views (not standard SQL), where an analytics database keeps its answers: the schema-context
 * linker and the validator's catalog add them, else the prompt never shows one and the validator refuses a query that
 * reads it as {@code table_not_found}. And it lists each partition of a partitioned table beside the table: a prompt
 * showing {@code events_2024_01} next to {@code events} invites a query that reads one month for the whole, so the
 * linker leaves partitions out (the validator keeps them: a query naming one is still valid). And it types a column of a
 * user-defined type {@code USER-DEFINED}: an enum, the usual type of a status or category column and the one whose
 * values a filter must spell exactly, would be neither shown as such nor sampled.
 */
public final class PostgresRelations {
    private PostgresRelations() {}

    // Each reading is a correction on top of information_schema: on an engine that speaks PostgreSQL's protocol without
    // its whole catalog (PostgreSQL before 10 has no relispartition; Redshift, CockroachDB), it reads nothing instead of
    // failing the schema's load.

    /** One column of a materialized view. */
    record Column(String schema, String view, String column, String type) {}

    /** A table by its schema and name, as stored. */
    public record Name(String schema, String table) {}

    /**
     * The columns of the materialized views the session may read, in {@code schema} (every schema when null), by schema,
     * view and column position; none when the connection is not PostgreSQL's.
     */
    static List<Column> materializedViewColumns(Connection c, String schema) {
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
        } catch (SQLException notThisCatalog) {
            return List.of();
        }
        return out;
    }

    /** A column by its table's schema and name and its own name, as stored. */
    record ColumnName(String schema, String table, String column) {}

    /**
     * The type to name for each column {@code information_schema.columns} types vaguely: {@code enum <type>} for an enum
     * (sampled and indexed as text), the type's name for another user-defined one ({@code citext}, {@code geometry}),
     * both {@code USER-DEFINED} there, and the element type for an array ({@code text[]}, {@code integer[]}, not {@code
     * ARRAY}: whether a filter is {@code = ANY(tags)} or {@code LIKE} depends on it); in {@code schema}, every schema when
     * null; none when the connection is not PostgreSQL's.
     */
    static java.util.Map<ColumnName, String> columnTypes(Connection c, String schema) {
        if (!SessionSchemas.postgres(c)) return java.util.Map.of();
        String sql = "SELECT col.table_schema, col.table_name, col.column_name, col.udt_name, t.typtype, col.data_type,"
                + " format_type(t.oid, NULL)"
                + " FROM information_schema.columns col JOIN pg_catalog.pg_namespace tn ON tn.nspname = col.udt_schema"
                + " JOIN pg_catalog.pg_type t ON t.typnamespace = tn.oid AND t.typname = col.udt_name"
                + " WHERE col.data_type IN ('USER-DEFINED', 'ARRAY')" + (schema == null ? "" : " AND col.table_schema = ?");
        java.util.Map<ColumnName, String> out = new java.util.HashMap<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            if (schema != null) ps.setString(1, schema);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String type = "ARRAY".equals(rs.getString(6)) ? rs.getString(7)
                            : ("e".equals(rs.getString(5)) ? "enum " : "") + rs.getString(4);
                    out.put(new ColumnName(rs.getString(1), rs.getString(2), rs.getString(3)), type);
                }
            }
        } catch (SQLException notThisCatalog) {
            return java.util.Map.of();
        }
        return out;
    }

    /** The partitions of partitioned tables (PostgreSQL 10 and later); none when the connection is not PostgreSQL's. */
    public static Set<Name> partitions(Connection c) {
        if (!SessionSchemas.postgres(c)) return Set.of();
        Set<Name> out = new HashSet<>();
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT n.nspname, cl.relname"
                + " FROM pg_catalog.pg_class cl JOIN pg_catalog.pg_namespace n ON n.oid = cl.relnamespace WHERE cl.relispartition")) {
            while (rs.next()) out.add(new Name(rs.getString(1), rs.getString(2)));
        } catch (SQLException notThisCatalog) {
            return Set.of();
        }
        return out;
    }
}
