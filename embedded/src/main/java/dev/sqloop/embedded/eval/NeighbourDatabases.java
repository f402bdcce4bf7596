package dev.sqloop.embedded.eval;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.DatasourceConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The neighbour databases of test-suite accuracy (TS, Zhong et al. 2020), for DuckDB datasources: copies of the
 * datasource's file in which every non-key column's values are shuffled across its rows (seeded). The schema, the key
 * columns (so joins still join) and each column's values are kept; which values sit together changes. A query right
 * by luck on the original (a hard-coded id that happens to hold the maximum) gives another answer than the gold on a
 * neighbour; a right query gives the gold's answer on every one. Key columns are recognised by name ({@code id} or
 * ending in {@code id}), as defog's schemas name them.
 */
final class NeighbourDatabases {
    private NeighbourDatabases() {}

    static List<DatasourceConfig> duckDb(DatasourceConfig ds, int copies, Path dir, long seed) throws IOException, SQLException {
        if (ds.dialect() != Dialect.DUCKDB || copies <= 0) return List.of();
        String file = ds.jdbcUrl().substring("jdbc:duckdb:".length()).replaceAll("\\?.*$", "");
        if (file.isBlank() || file.equals(":memory:")) return List.of();
        Files.createDirectories(dir);
        List<DatasourceConfig> out = new ArrayList<>();
        for (int i = 1; i <= copies; i++) {
            Path copy = dir.resolve(ds.name() + "-ts" + i + ".duckdb");
            Files.deleteIfExists(copy);
            try (Connection c = DriverManager.getConnection("jdbc:duckdb:" + copy.toAbsolutePath())) {
                build(c, Path.of(file), seed + i);
            }
            out.add(DatasourceConfig.of(ds.name(), Dialect.DUCKDB, "jdbc:duckdb:" + copy.toAbsolutePath(), null, null)
                    .withLimits(ds.rowLimit(), ds.queryTimeout()));
        }
        return out;
    }

    /**
     * Fills the empty database of {@code c} with every table of {@code source} (attached read-only as {@code src}),
     * same schemas, names, columns and types, non-key columns shuffled. Built with CREATE TABLE AS, so without the
     * source's constraints: DuckDB will not update a table other tables' foreign keys reference, and no query needs them.
     */
    static void build(Connection c, Path source, long seed) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("ATTACH '" + source.toAbsolutePath().toString().replace("'", "''") + "' AS src (READ_ONLY)");
            st.execute("SELECT setseed(" + (Math.floorMod(seed, 1000) / 1000.0) + ")");
        }
        List<String[]> tables = new ArrayList<>();
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT table_schema, table_name FROM information_schema.tables "
                + "WHERE table_catalog = 'src' AND table_type = 'BASE TABLE' AND table_schema NOT IN ('information_schema', 'pg_catalog')")) {
            while (rs.next()) tables.add(new String[] {rs.getString(1), rs.getString(2)});
        }
        for (String[] t : tables) {
            List<String> columns = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT column_name FROM information_schema.columns "
                    + "WHERE table_catalog = 'src' AND table_schema = ? AND table_name = ? ORDER BY ordinal_position")) {
                ps.setString(1, t[0]);
                ps.setString(2, t[1]);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) columns.add(rs.getString(1));
                }
            }
            String sourceTable = "src." + q(t[0]) + "." + q(t[1]);
            StringBuilder select = new StringBuilder("SELECT ");
            StringBuilder from = new StringBuilder(" FROM (SELECT *, row_number() OVER () AS sqloop_rn FROM " + sourceTable + ") k");
            int n = 0;
            for (int i = 0; i < columns.size(); i++) {
                String col = columns.get(i);
                if (i > 0) select.append(", ");
                if (key(col)) {
                    select.append("k.").append(q(col));
                    continue;
                }
                String alias = "s" + n++;
                select.append(alias).append(".v AS ").append(q(col));
                // DuckDB refuses a volatile window ORDER BY: draw the random keys in a subquery first
                from.append(" JOIN (SELECT v, row_number() OVER (ORDER BY r) AS sqloop_rn FROM (SELECT ").append(q(col))
                        .append(" AS v, random() AS r FROM ").append(sourceTable).append(")) ").append(alias).append(" USING (sqloop_rn)");
            }
            try (Statement st = c.createStatement()) {
                st.execute("CREATE SCHEMA IF NOT EXISTS " + q(t[0]));
                st.execute("CREATE TABLE " + q(t[0]) + "." + q(t[1]) + " AS " + select + from);
            }
        }
        try (Statement st = c.createStatement()) {
            st.execute("DETACH src");
        }
    }

    static boolean key(String column) {
        String c = column.toLowerCase(Locale.ROOT);
        return c.equals("id") || c.endsWith("id");
    }

    private static String q(String identifier) {
        return "\"" + identifier.replace("\"", "\"\"") + "\"";
    }
}
