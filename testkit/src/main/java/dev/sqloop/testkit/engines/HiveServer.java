package dev.sqloop.testkit.engines;

import dev.sqloop.testkit.Ports;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Apache Hive 4.0.1 HiveServer2 in its own JVM on JDK 17 (Hive 4 does not run on 21+): embedded Derby
 * metastore and a local-filesystem warehouse in a temp directory, MapReduce in local mode inside the server
 * process, Thrift and web UI bound to 127.0.0.1 on free ports, no ZooKeeper, no authentication. The jars come
 * from the {@code engines/hive-server} module, whose build writes their classpath to a file named by the system
 * property {@value #CLASSPATH_PROPERTY}. Like any Hive, it has no read-only mode: read-only is the executor's job.
 */
public final class HiveServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(HiveServer.class);
    public static final String CLASSPATH_PROPERTY = "sqloop.hive.classpath";
    /** Optional: the {@code java} of a JDK 17 to run the server with (else this JVM if it is a 17, else one in /usr/lib/jvm). */
    public static final String JAVA_PROPERTY = "sqloop.hive.java";
    private static final List<String> OPENS = List.of("java.base/java.lang", "java.base/java.lang.invoke",
            "java.base/java.lang.reflect", "java.base/java.io", "java.base/java.net", "java.base/java.nio",
            "java.base/java.util", "java.base/java.util.concurrent", "java.base/java.util.concurrent.atomic",
            "java.base/java.util.regex", "java.base/java.time", "java.base/jdk.internal.ref", "java.base/sun.nio.ch",
            "java.base/sun.nio.cs", "java.base/sun.security.action", "java.base/sun.util.calendar", "java.sql/java.sql");
    private static HiveServer shared;

    private final EngineProcess engine;
    private final int port;
    private final int webPort;
    private volatile Duration startedIn = Duration.ZERO;

    private HiveServer(EngineProcess engine, int port, int webPort) {
        this.engine = engine;
        this.port = port;
        this.webPort = webPort;
    }

    /**
     * The test run's server ({@link EngineRun}: one for every test JVM of {@code ./sqloop test}), else one per JVM,
     * started on first use (about 20 s) and stopped by a shutdown hook.
     */
    public static synchronized HiveServer shared() {
        if (shared == null) {
            shared = EngineRun.current().map(run -> run.shared("hive", () -> start(classpathFile(), Duration.ofSeconds(180)),
                    s -> new EngineRun.Record(s.engine.pid(), s.engine.dir(),
                            Map.of("port", Integer.toString(s.port), "webPort", Integer.toString(s.webPort))),
                    r -> new HiveServer(EngineProcess.attached("Hive", r.dir(), r.pid()), r.port("port"), r.port("webPort")),
                    HiveServer::answersAQuery)).orElseGet(() -> {
                        HiveServer s = start(classpathFile(), Duration.ofSeconds(180));
                        Runtime.getRuntime().addShutdownHook(new Thread(s::close, "hive-stop"));
                        return s;
                    });
        }
        return shared;
    }

    static Path classpathFile() {
        String f = System.getProperty(CLASSPATH_PROPERTY);
        if (f == null || f.isBlank()) {
            throw new IllegalStateException("-D" + CLASSPATH_PROPERTY + " must name engines/hive-server/target/classpath.txt"
                    + " (written by building that module)");
        }
        return Path.of(f);
    }

    /** Starts a server and returns once it has answered {@code SELECT 1}, or fails with the tail of its log. */
    public static HiveServer start(Path classpathFile, Duration readyWithin) {
        long t0 = System.nanoTime();
        EngineProcess engine = null;
        try {
            if (!Files.isRegularFile(classpathFile)) {
                throw new IOException(classpathFile + " does not exist: build the engines/hive-server module first");
            }
            String jars = Files.readString(classpathFile).strip();
            engine = EngineProcess.inTempDir("Hive", "sqloop-hive-");
            Path dir = engine.dir();
            Path conf = Files.createDirectories(dir.resolve("conf"));
            Files.createDirectories(dir.resolve("tmp"));
            int port = Ports.free();
            int webPort = Ports.free();
            Files.writeString(conf.resolve("hive-site.xml"), siteXml(settings(dir, port, webPort)));
            Files.writeString(conf.resolve("hive-log4j2.properties"), LOG4J);
            Path javaBin = EngineProcess.java(v -> v == 17, System.getProperty(JAVA_PROPERTY), "Hive 4.0.1 needs a JDK 17 (it fails on 21+):"
                    + " install openjdk-17-jdk-headless or set -D" + JAVA_PROPERTY + "=/path/to/jdk17/bin/java");
            List<String> cmd = new ArrayList<>(List.of(javaBin.toString(), "-Xmx1g", "-XX:+UseSerialGC",
                    // C1 only: the server starts and plans small queries faster than with C2 compiling in the background
                    "-XX:TieredStopAtLevel=1", "-XX:+ExitOnOutOfMemoryError",
                    "-Djava.io.tmpdir=" + dir.resolve("tmp"), "-Dhive.log4j.file=" + conf.resolve("hive-log4j2.properties"),
                    "-Dlog4j.configurationFile=" + conf.resolve("hive-log4j2.properties")));
            // Hive 4 reflects into JDK internals (StringInternUtils, Kryo); without these it fails on JDK 17
            OPENS.forEach(o -> cmd.add("--add-opens=" + o + "=ALL-UNNAMED"));
            cmd.addAll(List.of("-cp", conf + java.io.File.pathSeparator + jars, "org.apache.hive.service.server.HiveServer2"));
            engine.start(cmd);
            HiveServer server = new HiveServer(engine, port, webPort);
            // ready means a session opens and a query runs: the first session alone takes seconds (metastore, functions)
            engine.awaitReady(readyWithin, 250, server::answersAQuery);
            server.startedIn = Duration.ofNanos(System.nanoTime() - t0);
            LOG.info("Hive ready on port {} in {} ms, RSS {} MB ({})", port, server.startedIn.toMillis(), server.rssMegabytes(), dir);
            return server;
        } catch (IOException e) {
            if (engine != null) engine.close();
            throw new UncheckedIOException(e);
        }
    }

    /** The server's settings: everything local, private to {@code dir} and quiet. */
    static Map<String, String> settings(Path dir, int port, int webPort) {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("hive.server2.thrift.bind.host", "127.0.0.1");
        s.put("hive.server2.thrift.port", Integer.toString(port));
        s.put("hive.server2.webui.host", "127.0.0.1");
        s.put("hive.server2.webui.port", Integer.toString(webPort));
        s.put("hive.server2.transport.mode", "binary");
        s.put("hive.server2.authentication", "NONE");
        s.put("hive.server2.enable.doAs", "false");
        s.put("hive.server2.support.dynamic.service.discovery", "false");
        s.put("hive.server2.active.passive.ha.enable", "false");
        // a failed start exits at once (the default retries for 30 attempts, a minute apart)
        s.put("hive.server2.max.start.attempts", "1");
        // embedded metastore on Derby; no schema scripts ship in the jars, so DataNucleus creates the tables
        s.put("hive.metastore.uris", "");
        s.put("javax.jdo.option.ConnectionURL", "jdbc:derby:;databaseName=" + dir.resolve("metastore_db") + ";create=true");
        s.put("hive.metastore.schema.verification", "false");
        s.put("datanucleus.schema.autoCreateAll", "true");
        s.put("hive.metastore.event.db.notification.api.auth", "false");
        s.put("hive.metastore.warehouse.dir", dir.resolve("warehouse").toUri().toString());
        s.put("hive.metastore.warehouse.external.dir", dir.resolve("external").toUri().toString());
        s.put("fs.defaultFS", "file:///");
        // MapReduce in the server process: count(*), joins and GROUP BY run as local jobs, no YARN, no hadoop binary
        s.put("hive.execution.engine", "mr");
        s.put("mapreduce.framework.name", "local");
        s.put("hive.exec.submit.local.task.via.child", "false");
        s.put("hive.exec.submitviachild", "false");
        // Hive sleeps this long between checks of a running job, the first before any check (HadoopJobExecHelper),
        // so at the default 1 s every MapReduce stage of a query took at least a second of wall time on a local job
        // that finishes in tens of milliseconds
        s.put("hive.exec.counters.pull.interval", "25");
        s.put("mapreduce.cluster.local.dir", dir.resolve("mapred/local").toString());
        s.put("mapreduce.jobtracker.staging.root.dir", dir.resolve("mapred/staging").toString());
        s.put("hive.exec.scratchdir", dir.resolve("scratch").toString());
        s.put("hive.exec.local.scratchdir", dir.resolve("local-scratch").toString());
        s.put("hive.downloaded.resources.dir", dir.resolve("resources").toString());
        s.put("hive.querylog.location", dir.resolve("querylog").toString());
        s.put("hive.server2.logging.operation.log.location", dir.resolve("operation-logs").toString());
        s.put("hive.query.results.cache.directory", dir.resolve("results-cache").toString());
        // background services a test server does not need, each costing start time or threads
        s.put("hive.query.results.cache.enabled", "false");
        s.put("hive.scheduled.queries.executor.enabled", "false");
        s.put("hive.server2.materializedviews.registry.impl", "DUMMY");
        s.put("hive.stats.autogather", "false");
        s.put("hive.stats.column.autogather", "false");
        return s;
    }

    private static String siteXml(Map<String, String> settings) {
        StringBuilder xml = new StringBuilder("<?xml version=\"1.0\"?>\n<configuration>\n");
        settings.forEach((k, v) -> xml.append("  <property><name>").append(k).append("</name><value>")
                .append(v.replace("&", "&amp;").replace("<", "&lt;")).append("</value></property>\n"));
        return xml.append("</configuration>\n").toString();
    }

    /** Warnings only, to the process's stderr (the server log), plus the start and stop lines. */
    private static final String LOG4J = String.join("\n",
            "status = WARN",
            "appender.console.type = Console",
            "appender.console.name = console",
            "appender.console.target = SYSTEM_ERR",
            "appender.console.layout.type = PatternLayout",
            "appender.console.layout.pattern = %d{HH:mm:ss.SSS} %-5p [%t] %c{2}: %m%n",
            "rootLogger.level = WARN",
            "rootLogger.appenderRef.console.ref = console",
            "logger.hs2.name = org.apache.hive.service.server.HiveServer2",
            "logger.hs2.level = INFO",
            // the metastore probes its tables before DataNucleus has created them: expected, and 200 lines each
            "logger.directsql.name = org.apache.hadoop.hive.metastore.MetaStoreDirectSql",
            "logger.directsql.level = ERROR",
            "logger.directsqlutils.name = org.apache.hadoop.hive.metastore.MetastoreDirectSqlUtils",
            "logger.directsqlutils.level = ERROR",
            "logger.datanucleus.name = DataNucleus",
            "logger.datanucleus.level = ERROR",
            "logger.functions.name = org.apache.hadoop.hive.ql.exec.FunctionRegistry",
            "logger.functions.level = ERROR",
            "");

    private void answersAQuery() throws IOException, SQLException {
        if (!listening()) throw new IOException("not listening yet");
        try (Connection c = DriverManager.getConnection(jdbcUrl("default"), "sqloop", "");
             Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT 1")) {
            if (!rs.next() || rs.getInt(1) != 1) throw new SQLException("SELECT 1 did not answer 1");
        }
    }

    private boolean listening() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    public int port() {
        return port;
    }

    /** The web UI (home page lists open and recent queries): http://127.0.0.1:{@code webPort}/. */
    public int webPort() {
        return webPort;
    }

    public long pid() {
        return engine.pid();
    }

    /** How long {@link #start} took, until the first query had answered. */
    public Duration startedIn() {
        return startedIn;
    }

    public String jdbcUrl(String database) {
        return "jdbc:hive2://127.0.0.1:" + port + "/" + database;
    }

    /** The server's log file (warnings and errors; Hive's full stack traces are there, not in JDBC messages). */
    public Path logFile() {
        return engine.logFile();
    }

    /** A private directory of this server, for data files that external tables point at. */
    public Path dataDir() throws IOException {
        return Files.createDirectories(engine.dir().resolve("data"));
    }

    public boolean alive() {
        return engine.alive();
    }

    /** Resident memory of the server process in MB, from /proc (0 where there is none). */
    public long rssMegabytes() {
        return engine.rssMegabytes();
    }

    /** SIGSTOP: the server keeps its port and accepts TCP connections but answers nothing (a hung warehouse). */
    public void freeze() {
        engine.freeze();
    }

    /** SIGCONT after {@link #freeze()}. */
    public void thaw() {
        engine.thaw();
    }

    @Override
    public void close() {
        engine.close();
    }
}
