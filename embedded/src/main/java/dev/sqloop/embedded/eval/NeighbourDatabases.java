package dev.sqloop.embedded.eval;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.datasource.ReadOnlyJdbc;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
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
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;

/**
 * The neighbour databases of test-suite accuracy (TS, Zhong et al. 2020): copies of a datasource in which every
 * non-key column's values are shuffled across its rows (seeded). For DuckDB, copies of the file; for PostgreSQL,
 * databases of their own on the same server ({@code <db>_sqloop_ts<i>}), made by an administrative login
 * ({@link Admin}: the datasource's own login is read-only) and read back by the datasource's login, read-only, as
 * the executor reads. The schema, the key
 * columns (so joins still join) and each column's values are kept; which values sit together changes. A query right
 * by luck on the original (a hard-coded id that happens to hold the maximum) gives another answer than the gold on a
 * neighbour; a right query gives the gold's answer on every one. Key columns are recognised by name ({@code id} or
 * ending in {@code id}), as defog's schemas name them.
 */
final class NeighbourDatabases {
    private NeighbourDatabases() {}

    /** A PostgreSQL login that may create databases (CREATEDB), for the neighbours; the datasource's login reads them. */
    record Admin(String user, String password) {
        @Override
        public String toString() {
            return "Admin[user=" + user + "]";
        }
    }

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
     * PostgreSQL neighbours: for each copy, a fresh database {@code <db>_sqloop_ts<i>} on the datasource's server with
     * every table the datasource's login may read (same schemas, names, columns and types; views re-created on top),
     * filled by streaming a shuffling {@code COPY (SELECT …) TO STDOUT} from a read-only session on the original into
     * {@code COPY … FROM STDIN} on the copy, then opened to the datasource's login for SELECT only. The original is
     * only ever read. Primary keys are kept (their columns are not shuffled) and declared: PostgreSQL lets a GROUP BY on
 * a primary key select the table's other columns, and defog's gold does. No other constraint or index: no query needs one.
     */
    static List<DatasourceConfig> postgres(DatasourceConfig ds, int copies, Admin admin, long seed) throws SQLException, IOException {
        if (ds.dialect() != Dialect.POSTGRES || copies <= 0 || admin == null) return List.of();
        Matcher url = PG_URL.matcher(ds.jdbcUrl());
        if (!url.matches()) throw new SQLException("cannot find the database name in " + ds.safeUrl());
        String database = url.group(2);
        List<Table> tables = new ArrayList<>();
        List<String[]> views = new ArrayList<>();
        try (Connection source = ReadOnlyJdbc.open(ds)) {
            readCatalog(source, tables, views);
            List<DatasourceConfig> out = new ArrayList<>();
            for (int i = 1; i <= copies; i++) {
                String name = database + "_sqloop_ts" + i;
                try (Connection a = adminConnection(ds, ds.jdbcUrl(), admin); Statement st = a.createStatement()) {
                    st.execute("DROP DATABASE IF EXISTS " + q(name));
                    st.execute("CREATE DATABASE " + q(name));
                }
                String copyUrl = url.group(1) + name + (url.group(3) == null ? "" : url.group(3));
                try (Connection target = adminConnection(ds, copyUrl, admin)) {
                    fill(source, target, tables, views, seed + i, ds.user(), name);
                }
                out.add(new DatasourceConfig(ds.name(), ds.dialect(), copyUrl, ds.user(), ds.password(), ds.allowedCatalogs(),
                        ds.allowedSchemas(), ds.allowedTables(), ds.rowLimit(), ds.queryTimeout(), ds.connectTimeout(),
                        ds.validationMode(), 1, ds.properties(), ds.safeguards()));
            }
            return out;
        }
    }

    private static final Pattern PG_URL = Pattern.compile("(jdbc:postgresql://[^/]*/)([^?/]+)(\\?.*)?");

    /** @param primaryKey the primary key's columns (kept, never shuffled, and declared again: a GROUP BY may rely on it) */
    private record Table(String schema, String name, List<String> columns, List<String> types, List<String> primaryKey) {
        boolean key(String column) {
            return NeighbourDatabases.key(column) || primaryKey.contains(column);
        }
    }

    private static Connection adminConnection(DatasourceConfig ds, String url, Admin admin) throws SQLException {
        Properties props = new Properties();
        props.putAll(ds.properties());
        props.put("user", admin.user());
        if (admin.password() != null) props.put("password", admin.password());
        return DriverManager.getConnection(url, props);
    }

    /** Every table and view the datasource's login may read, outside the system schemas. */
    private static void readCatalog(Connection source, List<Table> tables, List<String[]> views) throws SQLException {
        try (Statement st = source.createStatement(); ResultSet rs = st.executeQuery("""
                SELECT n.nspname, c.relname, c.relkind, c.oid,
                       CASE WHEN c.relkind = 'v' THEN pg_get_viewdef(c.oid) END
                FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE c.relkind IN ('r', 'p', 'v') AND NOT c.relispartition
                  AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'
                  AND has_table_privilege(c.oid, 'SELECT')
                ORDER BY n.nspname, c.relname""")) {
            List<Object[]> found = new ArrayList<>();
            while (rs.next()) found.add(new Object[] {rs.getString(1), rs.getString(2), rs.getString(3), rs.getLong(4), rs.getString(5)});
            for (Object[] f : found) {
                if ("v".equals(f[2])) {
                    views.add(new String[] {(String) f[0], (String) f[1], (String) f[4]});
                    continue;
                }
                List<String> columns = new ArrayList<>();
                List<String> types = new ArrayList<>();
                try (PreparedStatement ps = source.prepareStatement("SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute "
                        + "WHERE attrelid = ? AND attnum > 0 AND NOT attisdropped ORDER BY attnum")) {
                    ps.setLong(1, (Long) f[3]);
                    try (ResultSet c = ps.executeQuery()) {
                        while (c.next()) {
                            columns.add(c.getString(1));
                            types.add(c.getString(2));
                        }
                    }
                }
                List<String> primaryKey = new ArrayList<>();
                try (PreparedStatement ps = source.prepareStatement("SELECT a.attname FROM pg_index i JOIN pg_attribute a "
                        + "ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey) WHERE i.indrelid = ? AND i.indisprimary ORDER BY a.attnum")) {
                    ps.setLong(1, (Long) f[3]);
                    try (ResultSet c = ps.executeQuery()) {
                        while (c.next()) primaryKey.add(c.getString(1));
                    }
                }
                tables.add(new Table((String) f[0], (String) f[1], columns, types, primaryKey));
            }
        }
    }

    private static void fill(Connection source, Connection target, List<Table> tables, List<String[]> views, long seed,
                             String reader, String database) throws SQLException, IOException {
        Set<String> schemas = new TreeSet<>();
        tables.forEach(t -> schemas.add(t.schema()));
        views.forEach(v -> schemas.add(v[0]));
        CopyManager in = target.unwrap(PGConnection.class).getCopyAPI();
        CopyManager out = source.unwrap(PGConnection.class).getCopyAPI();
        try (Statement st = target.createStatement()) {
            st.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC");
            for (String s : schemas) st.execute("CREATE SCHEMA IF NOT EXISTS " + q(s));
            for (Table t : tables) {
                StringBuilder ddl = new StringBuilder("CREATE TABLE " + q(t.schema()) + "." + q(t.name()) + " (");
                for (int i = 0; i < t.columns().size(); i++) {
                    ddl.append(i == 0 ? "" : ", ").append(q(t.columns().get(i))).append(' ').append(t.types().get(i));
                }
                st.execute(ddl.append(')').toString());
            }
        }
        try (Statement st = source.createStatement()) {
            st.execute("SELECT setseed(" + (Math.floorMod(seed, 1000) / 1000.0) + ")");
        }
        for (Table t : tables) {
            String from = q(t.schema()) + "." + q(t.name());
            StringBuilder select = new StringBuilder("SELECT ");
            StringBuilder joins = new StringBuilder(" FROM (SELECT *, row_number() OVER () AS sqloop_rn FROM " + from + ") k");
            int n = 0;
            for (int i = 0; i < t.columns().size(); i++) {
                String col = t.columns().get(i);
                if (i > 0) select.append(", ");
                if (t.key(col)) {
                    select.append("k.").append(q(col));
                    continue;
                }
                String alias = "s" + n++;
                select.append(alias).append(".v");
                joins.append(" JOIN (SELECT v, row_number() OVER (ORDER BY r) AS sqloop_rn FROM (SELECT ").append(q(col))
                        .append(" AS v, random() AS r FROM ").append(from).append(") x) ").append(alias).append(" USING (sqloop_rn)");
            }
            if (t.columns().isEmpty()) continue;
            Path buffer = Files.createTempFile("sqloop-ts-", ".copy");
            try {
                try (OutputStream o = Files.newOutputStream(buffer)) {
                    out.copyOut("COPY (" + select + joins + ") TO STDOUT (FORMAT binary)", o);
                }
                try (InputStream i = Files.newInputStream(buffer)) {
                    in.copyIn("COPY " + from + " FROM STDIN (FORMAT binary)", i);
                }
            } finally {
                Files.deleteIfExists(buffer);
            }
            if (!t.primaryKey().isEmpty()) {
                try (Statement st = target.createStatement()) {
                    st.execute("ALTER TABLE " + from + " ADD PRIMARY KEY (" + String.join(", ", t.primaryKey().stream().map(NeighbourDatabases::q).toList()) + ")");
                }
            }
        }
        // views on views: create what can be created until nothing more can
        List<String[]> pending = new ArrayList<>(views);
        boolean progress = true;
        while (!pending.isEmpty() && progress) {
            progress = false;
            for (var it = pending.iterator(); it.hasNext(); ) {
                String[] v = it.next();
                try (Statement st = target.createStatement()) {
                    st.execute("CREATE VIEW " + q(v[0]) + "." + q(v[1]) + " AS " + v[2]);
                    it.remove();
                    progress = true;
                } catch (SQLException e) {
                    // depends on a view not yet created: next round
                }
            }
        }
        if (!pending.isEmpty()) throw new SQLException("cannot re-create view " + pending.getFirst()[0] + "." + pending.getFirst()[1] + " in " + database);
        if (reader == null) return;
        try (Statement st = target.createStatement()) {
            st.execute("GRANT CONNECT ON DATABASE " + q(database) + " TO " + q(reader));
            for (String s : schemas) {
                st.execute("GRANT USAGE ON SCHEMA " + q(s) + " TO " + q(reader));
                st.execute("GRANT SELECT ON ALL TABLES IN SCHEMA " + q(s) + " TO " + q(reader));
            }
        }
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
