package dev.sqloop.testkit.engines;

import dev.sqloop.testkit.Ports;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A single-node Trino 476 (coordinator and worker) in its own JVM, from the server-core tarball and the tpch
 * and memory plugin zips of Maven Central (see ../shared/facts/INFRA.md), with server-side access control that
 * lets only {@value #LOADER_USER} write (to the memory catalog) and every other user read: Trino does not enforce
 * JDBC's {@code setReadOnly}, so this is what stops writes. It also accepts PrestoDB clients (legacy
 * {@code X-Presto-*} protocol headers). Needs JDK 24+
 * (476 is Java 24 bytecode). The unpacked installation is found through the system property
 * {@value #HOME_PROPERTY} (a folder holding {@code trino-server-core-*} and {@code plugins/}).
 */
public final class TrinoServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TrinoServer.class);
    public static final String HOME_PROPERTY = "sqloop.trino.home";
    /** The one user that may write, and only to the memory catalog: it loads test data. Every other user reads only. */
    public static final String LOADER_USER = "sqloop-loader";
    /**
     * File-based access control: the loader owns the memory catalog, everyone else has {@code read-only} on every
     * catalog — the same refusal for writes as {@code access-control.name=read-only} (PERMISSION_DENIED, code 4),
     * which could not let any data in. Schema and table rules are left out, which allows all within those limits.
     */
    static final String RULES = """
            {
              "catalogs": [
                {"user": "%s", "catalog": "memory", "allow": "all"},
                {"catalog": ".*", "allow": "read-only"}
              ]
            }
            """.formatted(LOADER_USER);
    private static TrinoServer shared;

    private final EngineProcess engine;
    private final int port;

    private TrinoServer(EngineProcess engine, int port) {
        this.engine = engine;
        this.port = port;
    }

    /**
     * The test run's server ({@link EngineRun}: one for every test JVM of {@code ./sqloop test}), else one per JVM,
     * started on first use (20–90 s) and stopped by a shutdown hook.
     */
    public static synchronized TrinoServer shared() {
        if (shared == null) {
            shared = EngineRun.current().map(run -> run.shared("trino", () -> start(home(), Duration.ofSeconds(180)),
                    s -> new EngineRun.Record(s.engine.pid(), s.engine.dir(), java.util.Map.of("port", Integer.toString(s.port))),
                    r -> new TrinoServer(EngineProcess.attached("Trino", r.dir(), r.pid()), r.port("port")),
                    TrinoServer::runsAQuery)).orElseGet(() -> {
                        TrinoServer s = start(home(), Duration.ofSeconds(180));
                        Runtime.getRuntime().addShutdownHook(new Thread(s::close, "trino-stop"));
                        return s;
                    });
        }
        return shared;
    }

    static Path home() {
        String h = System.getProperty(HOME_PROPERTY);
        if (h == null || h.isBlank()) throw new IllegalStateException("-D" + HOME_PROPERTY + " must name the unpacked Trino installation");
        return Path.of(h);
    }

    public static TrinoServer start(Path home, Duration readyWithin) {
        EngineProcess engine = null;
        try {
            Path core;
            try (Stream<Path> s = Files.list(home)) {
                core = s.filter(p -> p.getFileName().toString().startsWith("trino-server-core-")).findFirst()
                        .orElseThrow(() -> new IOException("no trino-server-core-* in " + home));
            }
            int port = Ports.free();
            engine = EngineProcess.inTempDir("Trino", "sqloop-trino-");
            Path dir = engine.dir();
            Path etc = Files.createDirectories(dir.resolve("etc/catalog"));
            Files.writeString(dir.resolve("etc/config.properties"), String.join("\n",
                    "coordinator=true",
                    "node-scheduler.include-coordinator=true",
                    "http-server.http.port=" + port,
                    "discovery.uri=http://127.0.0.1:" + port,
                    "plugin.dir=" + home.resolve("plugins").toAbsolutePath(),
                    "catalog.config-dir=" + etc.toAbsolutePath(),
                    "access-control.config-files=" + dir.resolve("etc/access-control.properties").toAbsolutePath(),
                    "query.max-memory=512MB",
                    "query.max-memory-per-node=512MB",
                    // Trino still answers clients that speak the legacy X-Presto-* headers (PrestoDB's presto-jdbc)
                    "protocol.v1.alternate-header-name=Presto",
                    ""));
            Files.writeString(dir.resolve("etc/access-control.properties"), "access-control.name=file\nsecurity.config-file="
                    + dir.resolve("etc/rules.json").toAbsolutePath() + "\n");
            Files.writeString(dir.resolve("etc/rules.json"), RULES);
            Files.writeString(dir.resolve("etc/log.properties"), "io.trino=WARN\nio.airlift=WARN\n");
            Files.writeString(etc.resolve("tpch.properties"), "connector.name=tpch\n");
            Files.writeString(etc.resolve("memory.properties"), "connector.name=memory\n");
            // Trino 476 is Java 24 bytecode. The client JIT and the serial collector, as the Spark and Hive test servers
            // run: for a test run's small queries C2's compiling and G1's concurrent threads cost more than they save
            // (measured, the same start, load, catalog reads and 2 x 120 gold queries: Trino's CPU 224 -> 141 s, wall
            // 130 -> 108 s on two cores; idle afterwards 0.32 -> 0.16 of a core)
            Path javaBin = EngineProcess.java(v -> v >= 24, null, "Trino needs a JDK >= 24");
            engine.start(List.of(javaBin.toString(), "-Xmx1G", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:+ExitOnOutOfMemoryError",
                    "--add-modules=jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
                    "-Djdk.attach.allowAttachSelf=true",
                    "-Dnode.environment=sqloop", "-Dnode.id=" + UUID.randomUUID(), "-Dnode.internal-address=127.0.0.1",
                    "-Dnode.data-dir=" + dir.resolve("data"), "-Dconfig=" + dir.resolve("etc/config.properties"),
                    "-Dlog.levels-file=" + dir.resolve("etc/log.properties"),
                    "-cp", core.resolve("lib").toAbsolutePath() + "/*", "io.trino.server.TrinoServer"));
            TrinoServer server = new TrinoServer(engine, port);
            long t0 = System.nanoTime();
            try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build()) {
                engine.awaitReady(readyWithin, 500, () -> server.infoSaysStarted(http));
            }
            // /v1/info says "starting: false" before the node is registered for scheduling: wait until a query that
            // scans a table runs (SELECT 1 runs on the coordinator alone, and a test's first scan then failed with
            // "No nodes available to run query")
            engine.awaitReady(readyWithin, 500, server::runsAQuery);
            LOG.info("Trino ready on port {} in {} ms ({})", port, (System.nanoTime() - t0) / 1_000_000, dir);
            return server;
        } catch (IOException e) {
            if (engine != null) engine.close();
            throw new UncheckedIOException(e);
        }
    }

    private void infoSaysStarted(HttpClient http) throws IOException, InterruptedException {
        HttpRequest info = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/info")).timeout(Duration.ofSeconds(5)).build();
        HttpResponse<String> r = http.send(info, HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200 || !r.body().replace(" ", "").contains("\"starting\":false")) {
            throw new IOException("/v1/info: " + r.statusCode() + " " + r.body());
        }
    }

    private void runsAQuery() throws SQLException {
        try (Connection c = loader(); java.sql.Statement st = c.createStatement()) {
            st.execute("SELECT count(*) FROM tpch.tiny.region");
        }
    }

    public int port() {
        return port;
    }

    public String jdbcUrl(String catalog, String schema) {
        return jdbcUrl(catalog) + "/" + schema;
    }

    /** A URL that names a catalog and no schema: the session resolves no bare table name. */
    public String jdbcUrl(String catalog) {
        return "jdbc:trino://127.0.0.1:" + port + "/" + catalog;
    }

    /** A connection as {@value #LOADER_USER}, the only user that may write (to the memory catalog). */
    public Connection loader() throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", LOADER_USER);
        p.setProperty("source", "sqloop-testkit-loader");
        return DriverManager.getConnection(jdbcUrl("memory", "default"), p);
    }

    public boolean alive() {
        return engine.alive();
    }

    @Override
    public void close() {
        engine.close();
    }
}
