package dev.sqloop.common.datasource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Every column of a schema's tables and views as {@code information_schema.columns} lists them (PostgreSQL, DuckDB,
 * Trino), with PostgreSQL's corrections from {@link PostgresRelations}: its materialized views added, its vague types
 * named. The one reader of it for the schema-context linker and the validator's catalog, so the prompt and the validator
 * see the same tables with the same types.
 */
public final class InformationSchemaColumns {
    private InformationSchemaColumns() {}

    /**
     * One column.
     *
     * @param catalog the catalog {@code information_schema} names (null for a PostgreSQL materialized view: PostgreSQL has
     *     one per connection)
     */
    public record Column(String catalog, String schema, String table, String column, String type) {}

    /**
     * The columns by catalog, schema, table and position, a PostgreSQL database's materialized views after its tables.
     *
     * @param quotedCatalog the catalog whose {@code information_schema} to read, already quoted; null: the connection's
     * @param schema        the schema to read; null: every schema (system schemas included, for the caller to drop)
     */
    public static List<Column> read(Connection c, String quotedCatalog, String schema) throws SQLException {
        String sql = "SELECT table_catalog, table_schema, table_name, column_name, data_type FROM "
                + (quotedCatalog == null ? "" : quotedCatalog + ".") + "information_schema.columns"
                + (schema == null ? "" : " WHERE table_schema = ?") + " ORDER BY table_catalog, table_schema, table_name, ordinal_position";
        Map<PostgresRelations.ColumnName, String> pgTypes = PostgresRelations.columnTypes(c, schema);
        List<Column> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            if (schema != null) ps.setString(1, schema);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String s = rs.getString(2);
                    String t = rs.getString(3);
                    String col = rs.getString(4);
                    out.add(new Column(rs.getString(1), s, t, col, pgTypes.getOrDefault(new PostgresRelations.ColumnName(s, t, col), rs.getString(5))));
                }
            }
        }
        for (PostgresRelations.Column m : PostgresRelations.materializedViewColumns(c, schema)) {
            out.add(new Column(null, m.schema(), m.view(), m.column(), m.type()));
        }
        return out;
    }
}
