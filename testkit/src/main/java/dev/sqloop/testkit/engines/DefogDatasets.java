package dev.sqloop.testkit.engines;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The six defog dev databases ({@code datasets/defog} in the repository): loaded verbatim into PostgreSQL, through
 * {@link PostgresToDuckDb} into DuckDB files, through {@link PostgresToTrino} into Trino's memory catalog, and
 * through {@link PostgresToHive} into a HiveServer2-protocol engine (Spark Thrift Server, Hive) as text tables
 * written from the DuckDB copy.
 */
public final class DefogDatasets {
    public static final String DIR_PROPERTY = "sqloop.defog.dir";
    public static final List<String> DATABASES = List.of("academic", "advising", "atis", "restaurants", "broker", "car_dealership");
    static final int TRINO_LOAD_THREADS = 4;
    private static final Logger LOG = LoggerFactory.getLogger(DefogDatasets.class);
    private static final Set<Integer> TRINO_LOADED = ConcurrentHashMap.newKeySet();
    /** Written last by a Trino load: a server that has it holds the six databases whole. */
    static final String TRINO_MARKER_SCHEMA = "sqloop_testkit";
    static final String TRINO_MARKER_TABLE = "defog_loaded";
    private static final Map<String, Map<String, String>> TRINO_COLUMN_TYPES = new ConcurrentHashMap<>();

    private DefogDatasets() {}

    /**
     * The vendored dev set, {@code datasets/defog} at the repository root (licenses beside it), found by walking
     * up from the working directory (a module's directory under Maven), or taken from {@value #DIR_PROPERTY}.
     */
    public static Path defogDir() {
        String override = System.getProperty(DIR_PROPERTY);
        if (override != null && !override.isBlank()) return Path.of(override);
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            Path candidate = p.resolve("datasets/defog");
            if (Files.isRegularFile(candidate.resolve("questions.csv"))) return candidate;
        }
        throw new IllegalStateException("no datasets/defog above " + Path.of("").toAbsolutePath()
                + " (it is part of the repository); set -D" + DIR_PROPERTY + "=/path/to/defog");
    }

    public static Path script(String database) {
        if (!DATABASES.contains(database)) throw new IllegalArgumentException("unknown defog database " + database);
        return defogDir().resolve("databases").resolve(database).resolve(database + ".sql");
    }

    public static Path questionsCsv() {
        return defogDir().resolve("questions.csv");
    }

    /**
     * Creates {@code database} on the server (if missing), runs its script verbatim as the superuser, and
     * grants the read-only role SELECT on its tables. Loading twice is a no-op.
     */
    public static void loadIntoPostgres(PostgresServer pg, String database) {
        try {
            pg.createDatabase(database);
            try (Connection c = pg.superuser(database); Statement st = c.createStatement()) {
                var rs = st.executeQuery("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'");
                rs.next();
                if (rs.getInt(1) == 0) st.execute(Files.readString(script(database)));
            }
            pg.grantReadOnly(database);
        } catch (SQLException e) {
            throw new IllegalStateException("loading " + database + " into PostgreSQL failed", e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Loads the six databases into Trino's memory catalog as {@value TrinoServer#LOADER_USER}, one schema each
     * ({@code memory.<database>}), translated by {@link PostgresToTrino}. Tables are created one after the other,
     * then filled by {@value #TRINO_LOAD_THREADS} concurrent INSERTs: each INSERT costs Trino ~0.1–0.2 s of
     * planning and scheduling whatever its size, so the load is bound by round trips, not by data. Once per server:
     * a marker table written last tells a later JVM of the test run ({@link EngineRun}) that it is done.
     */
    public static synchronized void loadIntoTrino(TrinoServer trino) {
        if (!TRINO_LOADED.add(trino.port())) return;
        long t0 = System.nanoTime();
        List<String> inserts = new ArrayList<>();
        try (Connection c = trino.loader(); Statement st = c.createStatement()) {
            // the server may be the test run's, loaded by an earlier JVM (EngineRun): its marker says so
            if (count(st, "SELECT count(*) FROM memory.information_schema.tables WHERE table_schema = '" + TRINO_MARKER_SCHEMA
                    + "' AND table_name = '" + TRINO_MARKER_TABLE + "'") > 0) {
                LOG.info("defog databases already in Trino's memory catalog (loaded by an earlier JVM of the test run)");
                return;
            }
            dropPartialTrinoLoad(st);
            for (String db : DATABASES) {
                PostgresToTrino.Translation t = PostgresToTrino.translate(Files.readString(script(db)), "memory", db);
                for (String s : t.statements()) {
                    if (s.startsWith("INSERT")) inserts.add(s);
                    else execute(st, db, s);
                }
            }
        } catch (SQLException e) {
            TRINO_LOADED.remove(trino.port());
            throw new IllegalStateException("creating the defog tables in Trino failed", e);
        } catch (IOException e) {
            TRINO_LOADED.remove(trino.port());
            throw new UncheckedIOException(e);
        }
        ExecutorService pool = Executors.newFixedThreadPool(TRINO_LOAD_THREADS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < TRINO_LOAD_THREADS; i++) {
                int slot = i;
                done.add(pool.submit(() -> {
                    try (Connection c = trino.loader(); Statement st = c.createStatement()) {
                        for (int j = slot; j < inserts.size(); j += TRINO_LOAD_THREADS) execute(st, "defog", inserts.get(j));
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) f.get();
        } catch (ExecutionException e) {
            TRINO_LOADED.remove(trino.port());
            throw new IllegalStateException("filling the defog tables in Trino failed", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while loading Trino", e);
        } finally {
            pool.shutdownNow();
        }
        try (Connection c = trino.loader(); Statement st = c.createStatement()) {
            st.execute("CREATE SCHEMA IF NOT EXISTS memory." + TRINO_MARKER_SCHEMA);
            st.execute("CREATE TABLE memory." + TRINO_MARKER_SCHEMA + "." + TRINO_MARKER_TABLE + " AS SELECT 1 AS loaded");
        } catch (SQLException e) {
            TRINO_LOADED.remove(trino.port());
            throw new IllegalStateException("marking the defog load in Trino failed", e);
        }
        LOG.info("defog databases loaded into Trino's memory catalog in {} ms ({} INSERTs)", (System.nanoTime() - t0) / 1_000_000,
                inserts.size());
    }

    /** Tables of a load that did not finish (a JVM that died half way): dropped, with their schemas, before loading again. */
    private static void dropPartialTrinoLoad(Statement st) throws SQLException {
        String in = DATABASES.stream().map(d -> "'" + d + "'").collect(java.util.stream.Collectors.joining(", "));
        List<String> tables = new ArrayList<>();
        try (ResultSet rs = st.executeQuery("SELECT table_schema, table_name FROM memory.information_schema.tables WHERE table_schema IN ("
                + in + ")")) {
            while (rs.next()) tables.add("memory.\"" + rs.getString(1) + "\".\"" + rs.getString(2) + "\"");
        }
        if (tables.isEmpty()) return;
        LOG.warn("dropping {} defog tables of a Trino load that did not finish", tables.size());
        for (String t : tables) st.execute("DROP TABLE " + t);
        for (String db : DATABASES) st.execute("DROP SCHEMA IF EXISTS memory.\"" + db + "\"");
    }

    private static long count(Statement st, String sql) throws SQLException {
        try (ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** A PostgreSQL query on {@code database} in Trino's dialect ({@link PostgresToTrinoQuery}, knowing the column types). */
    public static String trinoQuery(String database, String postgresSql) {
        Map<String, String> types = TRINO_COLUMN_TYPES.computeIfAbsent(database, db -> {
            try {
                return PostgresToTrino.columnTypes(Files.readString(script(db)));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        return PostgresToTrinoQuery.translate(postgresSql, types);
    }

    private static void execute(Statement st, String db, String sql) throws SQLException {
        try {
            st.execute(sql);
        } catch (SQLException e) {
            throw new SQLException("Trino refused a translated statement of " + db + ": " + e.getMessage() + "\n"
                    + sql.substring(0, Math.min(400, sql.length())), e);
        }
    }

    /**
     * The statements that load {@code database} into ClickHouse (chDB or a server that reads local files), as the
     * ClickHouse database of the same name: the tables of {@link PostgresToClickHouse}, each filled from a Parquet file
     * written under {@code workDir} from a DuckDB copy of the script (DuckDB evaluates the script's expressions, as for
     * Hive); time columns are written as 'HH:MM:SS' text. testkit runs no ClickHouse itself (the chdb module depends on
     * it): the caller runs the statements, in order.
     */
    public static List<String> clickHouseLoad(String database, Path workDir) {
        try {
            Path dir = Files.createDirectories(workDir.toAbsolutePath().resolve(database));
            Path duck = loadIntoDuckDb(database, dir.resolve(database + ".duckdb"));
            String script = Files.readString(script(database));
            List<String> out = new ArrayList<>(PostgresToClickHouse.createStatements(script, database));
            try (Connection c = DriverManager.getConnection("jdbc:duckdb:" + duck, new Properties()); Statement st = c.createStatement()) {
                for (PostgresToClickHouse.Table t : PostgresToClickHouse.tables(script)) {
                    Path parquet = dir.resolve(t.name() + ".parquet");
                    List<String> select = new ArrayList<>();
                    for (Map.Entry<String, String> col : t.columns().entrySet()) {
                        String q = PostgresToTrino.quote(col.getKey());
                        boolean time = col.getValue().contains("String") && isTime(c, t.name(), col.getKey());
                        // named as the ClickHouse table is (lower case): ClickHouse fills a table from a file by column name,
                        // case-sensitively, where DuckDB kept the script's spelling (sbCustJoinDate)
                        select.add((time ? "CAST(" + q + " AS VARCHAR)" : q) + " AS " + q);
                    }
                    st.execute("COPY (SELECT " + String.join(", ", select) + " FROM " + PostgresToTrino.quote(t.name()) + ") TO '"
                            + parquet.toString().replace("'", "''") + "' (FORMAT PARQUET)");
                    out.add("INSERT INTO " + PostgresToClickHouse.quote(database) + "." + PostgresToClickHouse.quote(t.name())
                            + " SELECT * FROM file('" + parquet.toString().replace("\\", "\\\\").replace("'", "\\'") + "', Parquet)");
                }
            }
            return out;
        } catch (SQLException e) {
            throw new IllegalStateException("writing " + database + " for ClickHouse failed", e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean isTime(Connection c, String table, String column) throws SQLException {
        try (var ps = c.prepareStatement("SELECT data_type FROM information_schema.columns WHERE table_name = ? AND column_name = ?")) {
            ps.setString(1, table);
            ps.setString(2, column);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getString(1).toUpperCase(Locale.ROOT).startsWith("TIME") && !rs.getString(1).toUpperCase(Locale.ROOT).startsWith("TIMESTAMP");
            }
        }
    }

    /** A PostgreSQL query on a defog database in ClickHouse's dialect ({@link PostgresToClickHouse#query}). */
    public static String clickHouseQuery(String postgresSql) {
        return PostgresToClickHouse.query(postgresSql);
    }

    /** Writes {@code database} into a new DuckDB file at {@code file} (translated); returns the file. */
    public static Path loadIntoDuckDb(String database, Path file) {
        try {
            PostgresToDuckDb.Translation t = PostgresToDuckDb.translate(Files.readString(script(database)));
            Files.createDirectories(file.toAbsolutePath().getParent());
            try (Connection c = DriverManager.getConnection("jdbc:duckdb:" + file.toAbsolutePath(), new Properties());
                 Statement st = c.createStatement()) {
                for (String s : PostgresToDuckDb.PRELUDE) st.execute(s);
                for (String s : t.statements()) {
                    try {
                        st.execute(s);
                    } catch (SQLException e) {
                        throw new IllegalStateException("DuckDB refused a translated statement of " + database + ": "
                                + e.getMessage() + "\n" + s.substring(0, Math.min(400, s.length())), e);
                    }
                }
                st.execute("CHECKPOINT");
            }
            return file;
        } catch (SQLException e) {
            throw new IllegalStateException("loading " + database + " into DuckDB failed", e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Loads {@code database} into a HiveServer2-protocol engine through {@code admin} (a connection that may
     * create databases): one engine database of the same name, one external text table per PostgreSQL table
     * ({@link PostgresToHive}), whose file is written under {@code dataDir} — a folder the server can read — from
     * a DuckDB copy of the script (DuckDB evaluates the script's expressions such as {@code CURRENT_DATE - INTERVAL
     * '5 days'}). Returns the rows written per table (lower-cased name). Loading twice is a no-op that returns the
     * first load's figures.
     */
    public static Map<String, Long> loadIntoHiveServer2(Connection admin, String database, Path dataDir) {
        Path dbDir = dataDir.resolve(database);
        Path rowsFile = dbDir.resolve("rows.properties");
        try {
            if (Files.exists(rowsFile) && databaseExists(admin, database)) return readRows(rowsFile);
            Files.createDirectories(dbDir);
            Path duck = loadIntoDuckDb(database, dbDir.resolve(database + ".duckdb"));
            List<PostgresToHive.Table> tables = PostgresToHive.tables(Files.readString(script(database)));
            Map<String, Long> rows = new LinkedHashMap<>();
            try (Statement hs = admin.createStatement();
                 Connection dc = DriverManager.getConnection("jdbc:duckdb:" + duck.toAbsolutePath(), new Properties());
                 Statement ds = dc.createStatement()) {
                hs.execute("DROP DATABASE IF EXISTS " + PostgresToHive.quote(database) + " CASCADE");
                hs.execute(PostgresToHive.createDatabase(database));
                for (PostgresToHive.Table t : tables) {
                    Path folder = Files.createDirectories(dbDir.resolve("tables").resolve(t.name().toLowerCase(Locale.ROOT)));
                    rows.put(t.name().toLowerCase(Locale.ROOT), writeTextFile(ds, t, folder.resolve("part-00000")));
                    hs.execute(PostgresToHive.createTable(database, t, folder.toUri().toString()));
                }
            }
            Properties p = new Properties();
            rows.forEach((k, v) -> p.setProperty(k, Long.toString(v)));
            try (Writer w = Files.newBufferedWriter(rowsFile)) {
                p.store(w, database + ": rows written per table");
            }
            return rows;
        } catch (SQLException e) {
            throw new IllegalStateException("loading " + database + " into the HiveServer2 engine failed: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every value as DuckDB's own text cast, which both engines' text readers parse (dates, timestamps, decimals). */
    private static long writeTextFile(Statement duck, PostgresToHive.Table t, Path file) throws SQLException, IOException {
        List<String> casts = new ArrayList<>();
        for (PostgresToHive.Column c : t.columns()) casts.add("CAST(\"" + c.name() + "\" AS VARCHAR)");
        long n = 0;
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
             ResultSet rs = duck.executeQuery("SELECT " + String.join(", ", casts) + " FROM \"" + t.name() + "\"")) {
            int width = t.columns().size();
            List<String> values = new ArrayList<>(width);
            while (rs.next()) {
                values.clear();
                for (int i = 1; i <= width; i++) values.add(rs.getString(i));
                w.write(PostgresToHive.textLine(values));
                n++;
            }
        }
        return n;
    }

    private static boolean databaseExists(Connection admin, String database) throws SQLException {
        try (Statement st = admin.createStatement(); ResultSet rs = st.executeQuery("SHOW DATABASES")) {
            while (rs.next()) if (database.equalsIgnoreCase(rs.getString(1))) return true;
        }
        return false;
    }

    private static Map<String, Long> readRows(Path file) throws IOException {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file)) {
            p.load(r);
        }
        Map<String, Long> rows = new TreeMap<>();
        p.stringPropertyNames().forEach(k -> rows.put(k, Long.parseLong(p.getProperty(k))));
        return rows;
    }
}
