package dev.sqloop.testkit.engines;

import dev.sqloop.testkit.Ports;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Spark Thrift Server 3.5.4 (HiveServer2 protocol) in its own JDK 17 JVM: {@code local[2]}, UI off, an
 * in-memory Derby metastore and a fresh warehouse folder, bound to 127.0.0.1 on a free port (recipe in
 * ../shared/facts/INFRA.md). Its ~200 MB of Hive 2.3 / Hadoop / Scala 2.12 jars stay out of this JVM: their
 * classpath is the file named by the system property {@value #CLASSPATH_PROPERTY}, written by the
 * {@code engines/spark-thriftserver} module. Spark has no read-only mode; the server accepts any statement.
 */
public final class SparkThriftServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SparkThriftServer.class);
    public static final String CLASSPATH_PROPERTY = "sqloop.spark.classpath";
    /** The JDK 17 to run Spark on (Spark 3.5 does not run on 21+ without more flags, and not on 25). */
    public static final String JAVA_PROPERTY = "sqloop.spark.java";
    public static final String USER = "sqloop";
    private static final String MAIN = "org.apache.spark.sql.hive.thriftserver.HiveThriftServer2";
    /** Spark's own launcher opens these for Java 17 (JavaModuleOptions in spark-launcher). */
    private static final List<String> ADD_OPENS = List.of("java.base/java.lang", "java.base/java.lang.invoke",
            "java.base/java.lang.reflect", "java.base/java.io", "java.base/java.net", "java.base/java.nio",
            "java.base/java.util", "java.base/java.util.concurrent", "java.base/java.util.concurrent.atomic",
            "java.base/jdk.internal.ref", "java.base/sun.nio.ch", "java.base/sun.nio.cs", "java.base/sun.security.action",
            "java.base/sun.util.calendar", "java.security.jgss/sun.security.krb5");
    private static SparkThriftServer shared;

    private final EngineProcess engine;
    private final int port;

    private SparkThriftServer(EngineProcess engine, int port) {
        this.engine = engine;
        this.port = port;
    }

    /**
     * The test run's server ({@link EngineRun}: one for every test JVM of {@code ./sqloop test}), else one per JVM,
     * started on first use (10–30 s) and stopped by a shutdown hook.
     */
    public static synchronized SparkThriftServer shared() {
        if (shared == null) {
            shared = EngineRun.current().map(run -> run.shared("spark", () -> start(Duration.ofSeconds(180)),
                    s -> new EngineRun.Record(s.engine.pid(), s.engine.dir(), java.util.Map.of("port", Integer.toString(s.port))),
                    r -> new SparkThriftServer(EngineProcess.attached("Spark Thrift Server", r.dir(), r.pid()), r.port("port")),
                    SparkThriftServer::answersAQuery)).orElseGet(() -> {
                        SparkThriftServer s = start(Duration.ofSeconds(180));
                        Runtime.getRuntime().addShutdownHook(new Thread(s::close, "spark-thriftserver-stop"));
                        return s;
                    });
        }
        return shared;
    }

    public static SparkThriftServer start(Duration readyWithin) {
        EngineProcess engine = null;
        try {
            String classpath = Files.readString(classpathFile()).strip();
            int port = Ports.free();
            engine = EngineProcess.inTempDir("Spark Thrift Server", "sqloop-spark-");
            Path dir = engine.dir();
            Files.createDirectories(dir.resolve("data"));
            // Spark 3.5 supports 8, 11 and 17
            Path javaBin = EngineProcess.java(v -> v == 17, System.getProperty(JAVA_PROPERTY), "Spark 3.5 needs a JDK 17 (apt-get install openjdk-17-jdk-headless, or -D"
                    + JAVA_PROPERTY + "=/path/to/bin/java)");
            List<String> cmd = new ArrayList<>(List.of(javaBin.toString(),
                    // measured: ready in 7–25 s and 400–600 MB resident with these (INFRA.md)
                    "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:+ExitOnOutOfMemoryError"));
            ADD_OPENS.forEach(o -> cmd.add("--add-opens=" + o + "=ALL-UNNAMED"));
            cmd.addAll(List.of("-Djdk.reflect.useDirectMethodHandle=false", "-Dio.netty.tryReflectionSetAccessible=true",
                    "-Dspark.master=local[2]", "-Dspark.app.name=sqloop-test", "-Dspark.ui.enabled=false",
                    "-Dspark.sql.warehouse.dir=" + dir.resolve("warehouse").toUri(),
                    // two cores shared with other builds: the default 200 shuffle partitions make every GROUP BY slow
                    "-Dspark.sql.shuffle.partitions=2",
                    "-Dspark.driver.host=127.0.0.1", "-Dspark.driver.bindAddress=127.0.0.1",
                    "-Dderby.system.home=" + dir, "-Djava.io.tmpdir=" + Files.createDirectories(dir.resolve("tmp")),
                    "-cp", classpath, MAIN,
                    "--hiveconf", "hive.server2.thrift.port=" + port,
                    "--hiveconf", "hive.server2.thrift.bind.host=127.0.0.1",
                    "--hiveconf", "javax.jdo.option.ConnectionURL=jdbc:derby:memory:metastore_db;create=true"));
            engine.start(cmd);
            SparkThriftServer server = new SparkThriftServer(engine, port);
            long t0 = System.nanoTime();
            // ready means a real session answers SELECT 1: the port opens a moment before the session manager is up
            engine.awaitReady(readyWithin, 500, server::answersAQuery);
            LOG.info("Spark Thrift Server ready on port {} in {} ms ({})", port, (System.nanoTime() - t0) / 1_000_000, dir);
            return server;
        } catch (IOException e) {
            if (engine != null) engine.close();
            throw new UncheckedIOException(e);
        }
    }

    static Path classpathFile() {
        String f = System.getProperty(CLASSPATH_PROPERTY);
        if (f == null || f.isBlank()) {
            throw new IllegalStateException("-D" + CLASSPATH_PROPERTY + " must name the classpath file written by engines/spark-thriftserver"
                    + " (mvn -pl <module> -am verify builds it)");
        }
        Path p = Path.of(f);
        if (!Files.isRegularFile(p)) throw new IllegalStateException(p + " does not exist: build engines/spark-thriftserver first");
        return p;
    }

    private void answersAQuery() throws SQLException {
        try (Connection c = connect("default"); Statement st = c.createStatement()) {
            st.execute("SELECT 1");
        }
    }

    public int port() {
        return port;
    }

    /** The server's process id: tests freeze it (SIGSTOP) or watch its CPU. */
    public long pid() {
        return engine.pid();
    }

    /** CPU time the server process has used so far. */
    public Duration cpuTime() {
        return engine.cpuTime();
    }

    /** SIGSTOP: the server keeps its port and accepts TCP connections but answers nothing (a hung warehouse). */
    public void freeze() {
        engine.freeze();
    }

    /** SIGCONT after {@link #freeze()}. */
    public void thaw() {
        engine.thaw();
    }

    /** A folder the server can read: the defog loader writes its text files under it. */
    public Path dataDir() {
        return engine.dir().resolve("data");
    }

    /** {@code jdbc:hive2://127.0.0.1:port/db} for hive-jdbc. */
    public String jdbcUrl(String database) {
        return "jdbc:hive2://127.0.0.1:" + port + "/" + database;
    }

    /** A plain (unpooled) connection as {@value #USER}, for loading data and for engine-side checks in tests. */
    public Connection connect(String database) throws SQLException {
        return DriverManager.getConnection(jdbcUrl(database), USER, "");
    }

    public boolean alive() {
        return engine.alive();
    }

    @Override
    public void close() {
        engine.close();
    }
}
