package dev.sqloop.chdb;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ClickHouse engine of this process, from chDB's {@code libchdb.so}: loaded once (566 MB), booted on one database
 * directory, and opening {@link ChdbSession sessions} on it. chDB keeps one storage path per process (connecting with
 * another needs every connection closed, which shuts the engine down), so a second directory is refused here with the
 * reason rather than failing inside the engine.
 */
public final class Chdb {
    /** Where the library is: this system property, else the environment variable {@value #LIBRARY_ENV}. */
    public static final String LIBRARY_PROPERTY = "sqloop.chdb.library";
    public static final String LIBRARY_ENV = "SQLOOP_CHDB_LIBRARY";
    private static final Logger LOG = LoggerFactory.getLogger(Chdb.class);
    private static Chdb instance;

    private final ChdbNative lib;
    private final Path path;
    /** Never closed: closing the last connection would shut the engine down, and it does not boot twice in a process. */
    private final Pointer keeper;
    private final long loadMillis;
    private final long bootMillis;

    private Chdb(ChdbNative lib, Path path, Pointer keeper, long loadMillis, long bootMillis) {
        this.lib = lib;
        this.path = path;
        this.keeper = keeper;
        this.loadMillis = loadMillis;
        this.bootMillis = bootMillis;
    }

    /**
     * The engine on {@code databaseDir} (created if missing), loaded and booted on first use.
     *
     * @throws IllegalStateException when the library cannot be found or loaded, the engine does not boot, or it was
     *                               booted on another directory in this process
     */
    public static synchronized Chdb open(Path databaseDir) {
        Path dir = databaseDir.toAbsolutePath().normalize();
        if (instance != null) {
            if (!instance.path.equals(dir)) {
                throw new IllegalStateException("chDB holds one database directory per process: this one runs on " + instance.path
                        + ", not " + dir + " (give ClickHouse datasources of one process the same directory, one database each)");
            }
            return instance;
        }
        Path library = library();
        long t0 = System.nanoTime();
        ChdbNative lib;
        try {
            lib = Native.load(library.toString(), ChdbNative.class);
        } catch (UnsatisfiedLinkError e) {
            throw new IllegalStateException("chDB library " + library + " does not load: " + e.getMessage(), e);
        }
        long t1 = System.nanoTime();
        lib.chdb_set_signal_handlers_enabled(0); // the JVM's handlers stay the process's (HostSignals)
        try {
            Files.createDirectories(dir);
        } catch (java.io.IOException e) {
            throw new IllegalStateException("chDB database directory " + dir + " cannot be created: " + e.getMessage(), e);
        }
        Pointer keeper = connect(lib, dir, Map.of());
        if (keeper == null) throw new IllegalStateException("chDB did not start on " + dir + " (its log says why)");
        long t2 = System.nanoTime();
        instance = new Chdb(lib, dir, keeper, (t1 - t0) / 1_000_000, (t2 - t1) / 1_000_000);
        LOG.info("chDB {} on {}: library loaded in {} ms, engine booted in {} ms", lib.chdb_version(), dir,
                instance.loadMillis, instance.bootMillis);
        return instance;
    }

    /** The library's path, from {@value #LIBRARY_PROPERTY} or {@value #LIBRARY_ENV}. */
    static Path library() {
        String p = System.getProperty(LIBRARY_PROPERTY);
        if (p == null || p.isBlank()) p = System.getenv(LIBRARY_ENV);
        if (p == null || p.isBlank()) {
            throw new IllegalStateException("no chDB library: set " + LIBRARY_ENV + " to the path of libchdb.so (npm package"
                    + " @chdb/lib-linux-x64-gnu, file package/libchdb.so)");
        }
        Path library = Path.of(p);
        if (!Files.isRegularFile(library)) throw new IllegalStateException("chDB library " + library + " does not exist");
        return library;
    }

    /**
     * A new session whose ClickHouse settings are {@code settings}, fixed for its life: with {@code readonly=1} the
     * engine refuses any later change, in a {@code SET} or a query's {@code SETTINGS}.
     *
     * @throws IllegalStateException when the engine refuses the settings (an unknown name, an invalid value)
     */
    public ChdbSession session(Map<String, String> settings) {
        return session(settings, null);
    }

    /**
     * As {@link #session(Map)}, resolving bare table names in {@code database} ({@code USE}, repeated whenever the
     * session's connection is replaced); null keeps {@code default}.
     */
    public ChdbSession session(Map<String, String> settings, String database) {
        Map<String, String> fixed = new LinkedHashMap<>(settings);
        Pointer conn = connect(lib, path, fixed);
        if (conn == null) throw new IllegalStateException("chDB refused a session with settings " + fixed);
        ChdbSession s = new ChdbSession(this, conn, fixed, database);
        try {
            s.use();
        } catch (ChdbException e) {
            s.close();
            throw new IllegalStateException("chDB session cannot use database " + database + ": " + e.getMessage(), e);
        }
        return s;
    }

    Pointer reconnect(Map<String, String> settings) {
        return connect(lib, path, settings);
    }

    ChdbNative lib() {
        return lib;
    }

    /** The database directory the engine runs on. */
    public Path path() {
        return path;
    }

    /** ClickHouse's version, e.g. {@code 26.7.2.1}. */
    public String version() {
        return lib.chdb_version();
    }

    /** How long loading {@code libchdb.so} took in this process. */
    public long loadMillis() {
        return loadMillis;
    }

    /** How long the engine took to start on its directory, after the load. */
    public long bootMillis() {
        return bootMillis;
    }

    private static Pointer connect(ChdbNative lib, Path dir, Map<String, String> settings) {
        List<String> argv = new ArrayList<>();
        argv.add("clickhouse");
        argv.add("--path=" + dir);
        // settings on the command line belong to this connection alone (chdb.h): other sessions keep theirs
        settings.forEach((k, v) -> argv.add("--" + k + "=" + v));
        HostSignals jvm = HostSignals.save();
        Pointer conn = lib.chdb_connect(argv.size(), argv.toArray(String[]::new));
        List<Integer> taken = jvm.restore();
        if (!taken.isEmpty()) LOG.warn("chDB took the JVM's handlers of signals {} on connecting; put back", taken);
        return conn;
    }

    /** True once {@link #open} succeeded in this process. */
    public static synchronized boolean loaded() {
        return instance != null;
    }

    @SuppressWarnings("unused")
    private Pointer keeper() {
        return keeper;
    }
}
