package dev.sqloop.testkit.engines;

import dev.sqloop.testkit.Dirs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import dev.sqloop.testkit.Ports;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A private PostgreSQL cluster from Debian's packages, in a temp directory on a free loopback port: initdb +
 * pg_ctl, run as the {@code postgres} system user when this JVM is root (PostgreSQL refuses to run as root).
 * Installs the {@code postgresql} package first when no {@code initdb} is found. It has a superuser
 * ({@link #SUPERUSER}, trust authentication on loopback) and a read-only login ({@link #READER}) with
 * {@code default_transaction_read_only=on} and only SELECT grants, for the executor.
 */
public final class PostgresServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PostgresServer.class);
    public static final String SUPERUSER = "postgres";
    public static final String READER = "sqloop_reader";
    public static final String READER_PASSWORD = "reader";
    private static PostgresServer shared;

    private final Path dir;
    private final Path bin;
    private final int port;
    private volatile boolean running;

    private PostgresServer(Path dir, Path bin, int port) {
        this.dir = dir;
        this.bin = bin;
        this.port = port;
    }

    /** One cluster per JVM, started on first use and stopped by a shutdown hook. */
    public static synchronized PostgresServer shared() {
        if (shared == null) {
            shared = start();
            PostgresServer s = shared;
            Runtime.getRuntime().addShutdownHook(new Thread(s::close, "postgres-stop"));
        }
        return shared;
    }

    /** A cluster of its own (e.g. for a test that stops it); the caller closes it. */
    public static PostgresServer start() {
        try {
            Path bin = binDir();
            Path dir = Files.createTempDirectory("sqloop-pg-");
            boolean root = isRoot();
            if (root) chownRecursively(dir, SUPERUSER);
            PostgresServer s = new PostgresServer(dir, bin, Ports.free());
            long t0 = System.nanoTime();
            s.run(Duration.ofSeconds(120), bin.resolve("initdb").toString(), "-D", dir.resolve("data").toString(),
                    "-U", SUPERUSER, "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync");
            s.startServer();
            s.createReader();
            LOG.info("PostgreSQL {} ready on port {} in {} ms ({})", bin.getParent().getFileName(), s.port,
                    (System.nanoTime() - t0) / 1_000_000, dir);
            return s;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void startServer() throws IOException {
        String options = "-p " + port + " -c listen_addresses=127.0.0.1 -c unix_socket_directories=" + dir
                + " -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=60"
                + " -c shared_buffers=32MB -c log_min_messages=warning";
        run(Duration.ofSeconds(90), bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(),
                "-l", dir.resolve("postgres.log").toString(), "-o", options, "-w", "-t", "80", "start");
        running = true;
    }

    public int port() {
        return port;
    }

    public boolean running() {
        return running;
    }

    public String jdbcUrl(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
    }

    public Connection superuser(String database) throws SQLException {
        return DriverManager.getConnection(jdbcUrl(database), SUPERUSER, "");
    }

    /** A connection as {@link #READER}, the read-only role, to a URL of this server (with its parameters). */
    public static Connection reader(String jdbcUrl) throws SQLException {
        return DriverManager.getConnection(jdbcUrl, READER, READER_PASSWORD);
    }

    /**
     * A database for one test class: created if missing, {@code statements} run in it as the superuser (the class drops
     * and creates its objects, so a rerun on the shared server starts clean), then read-only access for {@link #READER}.
     *
     * @return its JDBC URL
     */
    public String readOnlyDatabase(String name, String... statements) throws SQLException {
        createDatabase(name);
        try (Connection c = superuser(name); Statement st = c.createStatement()) {
            for (String sql : statements) st.execute(sql);
        }
        grantReadOnly(name);
        return jdbcUrl(name);
    }

    /** Creates the database if missing. */
    public void createDatabase(String name) throws SQLException {
        try (Connection c = superuser("postgres"); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + name.replace("'", "''") + "'")) {
            if (!rs.next()) st.execute("CREATE DATABASE \"" + name + "\"");
        }
    }

    /** Lets {@link #READER} connect to {@code database} and read (only read) every table in its public schema. */
    public void grantReadOnly(String database) throws SQLException {
        try (Connection c = superuser(database); Statement st = c.createStatement()) {
            st.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC");
            st.execute("GRANT CONNECT ON DATABASE \"" + database + "\" TO " + READER);
            st.execute("GRANT USAGE ON SCHEMA public TO " + READER);
            st.execute("GRANT SELECT ON ALL TABLES IN SCHEMA public TO " + READER);
        }
    }

    private void createReader() {
        try (Connection c = superuser("postgres"); Statement st = c.createStatement()) {
            st.execute("CREATE ROLE " + READER + " LOGIN PASSWORD '" + READER_PASSWORD + "' NOSUPERUSER NOCREATEDB NOCREATEROLE");
            st.execute("ALTER ROLE " + READER + " SET default_transaction_read_only = on");
            // as a deployment should: the executor's sessions bound what one query may spill (a superuser setting)
            st.execute("GRANT SET ON PARAMETER temp_file_limit TO " + READER);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create the read-only role", e);
        }
    }

    /** Fast shutdown: open sessions are ended, the port closes. */
    public synchronized void stop() {
        if (!running) return;
        try {
            run(Duration.ofSeconds(60), bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(),
                    "-m", "fast", "-w", "stop");
        } catch (IOException e) {
            LOG.warn("pg_ctl stop failed: {}", e.getMessage());
        }
        running = false;
    }

    /** Starts a stopped cluster again on the same port. */
    public synchronized void restart() {
        if (running) return;
        try {
            startServer();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        stop();
        Dirs.deleteQuietly(dir);
    }

    private void run(Duration limit, String... command) throws IOException {
        List<String> cmd = new ArrayList<>();
        if (isRoot()) cmd.addAll(List.of("runuser", "-u", SUPERUSER, "--"));
        cmd.addAll(List.of(command));
        Path log = Files.createTempFile("sqloop-pg-cmd-", ".log");
        try {
            Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new IOException("timed out after " + limit + ": " + cmd);
            }
            if (p.exitValue() != 0) {
                String pgLog = Files.exists(dir.resolve("postgres.log")) ? Files.readString(dir.resolve("postgres.log")) : "";
                throw new IOException("failed (exit " + p.exitValue() + "): " + cmd + "\n" + Files.readString(log) + "\n" + pgLog);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted: " + cmd, e);
        } finally {
            Files.deleteIfExists(log);
        }
    }

    /** The newest installed PostgreSQL's bin directory; installs Debian's package when there is none. */
    static synchronized Path binDir() throws IOException {
        Path found = newestBin();
        if (found != null) return found;
        LOG.info("installing PostgreSQL from Debian packages");
        dev.sqloop.testkit.Apt.install("postgresql", Duration.ofMinutes(10));
        found = newestBin();
        if (found == null) throw new IOException("postgresql installed but no initdb found");
        return found;
    }

    private static Path newestBin() throws IOException {
        Path base = Path.of("/usr/lib/postgresql");
        if (!Files.isDirectory(base)) return null;
        try (Stream<Path> versions = Files.list(base)) {
            return versions.filter(v -> Files.isExecutable(v.resolve("bin/initdb")))
                    .max(Comparator.comparingInt(v -> {
                        try {
                            return Integer.parseInt(v.getFileName().toString().replaceAll("\\D.*", ""));
                        } catch (NumberFormatException e) {
                            return 0;
                        }
                    }))
                    .map(v -> v.resolve("bin")).orElse(null);
        }
    }

    private static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    private static void chownRecursively(Path dir, String user) throws IOException {
        UserPrincipal owner = dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(user);
        Files.setOwner(dir, owner);
    }
}
