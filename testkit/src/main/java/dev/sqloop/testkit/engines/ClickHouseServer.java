package dev.sqloop.testkit.engines;

import dev.sqloop.testkit.Apt;
import dev.sqloop.testkit.Ports;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Debian's {@code clickhouse-server} (18.16 on Debian 12) as a child process on free loopback ports, its configuration,
 * data and log in a temp directory: no system service, no fixed port. Installed with apt when {@code clickhouse-server}
 * is missing, as {@link PostgresServer} installs PostgreSQL; ready when {@code GET /ping} answers {@code Ok.}. One user,
 * {@code default} without a password and without a readonly profile: whatever read-only a test sees came with the
 * client's own settings. {@link #execute} and {@link #query} speak HTTP directly (tab-separated text), for setup and
 * for looking at the server without a JDBC driver.
 */
public final class ClickHouseServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ClickHouseServer.class);
    static final Path BINARY = Path.of("/usr/sbin/clickhouse-server");
    public static final String USER = "default";
    private static ClickHouseServer shared;

    private final EngineProcess process;
    private final int httpPort;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private ClickHouseServer(EngineProcess process, int httpPort) {
        this.process = process;
        this.httpPort = httpPort;
    }

    /** One server per JVM, started on first use and stopped by a shutdown hook. */
    public static synchronized ClickHouseServer shared() {
        if (shared == null) {
            shared = start();
            ClickHouseServer s = shared;
            Runtime.getRuntime().addShutdownHook(new Thread(s::close, "clickhouse-stop"));
        }
        return shared;
    }

    /** A server of its own; the caller closes it (which deletes its data). */
    public static ClickHouseServer start() {
        try {
            Path binary = installed();
            long t0 = System.nanoTime();
            EngineProcess process = EngineProcess.inTempDir("clickhouse-server", "sqloop-clickhouse-");
            int http = Ports.free();
            int tcp = Ports.free();
            while (tcp == http) tcp = Ports.free();
            writeConfig(process.dir(), http, tcp);
            process.start(List.of(binary.toString(), "--config-file=" + process.dir().resolve("config.xml")));
            ClickHouseServer s = new ClickHouseServer(process, http);
            HttpRequest ping = HttpRequest.newBuilder(URI.create(s.url() + "/ping")).timeout(Duration.ofSeconds(5)).build();
            process.awaitReady(Duration.ofSeconds(90), 200, () -> {
                HttpResponse<String> r = s.http.send(ping, HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() != 200 || !r.body().startsWith("Ok.")) throw new IOException("/ping answered " + r.statusCode() + ": " + r.body());
            });
            LOG.info("clickhouse-server {} ready on HTTP port {} in {} ms ({})", s.query("SELECT version()").strip(), http,
                    (System.nanoTime() - t0) / 1_000_000, process.dir());
            return s;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The server's own files in {@code dir}: every path under it, HTTP and native ports on 127.0.0.1 only, no
     * interserver port (18.16 opens one only when configured), warnings only in the log.
     */
    private static void writeConfig(Path dir, int httpPort, int tcpPort) throws IOException {
        for (String sub : List.of("data", "tmp", "user_files", "format_schemas")) Files.createDirectories(dir.resolve(sub));
        Files.writeString(dir.resolve("config.xml"), """
                <?xml version="1.0"?>
                <yandex>
                    <logger><level>warning</level><console>1</console></logger>
                    <listen_host>127.0.0.1</listen_host>
                    <http_port>%d</http_port>
                    <tcp_port>%d</tcp_port>
                    <path>%s/data/</path>
                    <tmp_path>%s/tmp/</tmp_path>
                    <user_files_path>%s/user_files/</user_files_path>
                    <format_schema_path>%s/format_schemas/</format_schema_path>
                    <users_config>%s/users.xml</users_config>
                    <default_profile>default</default_profile>
                    <default_database>default</default_database>
                    <timezone>UTC</timezone>
                    <mark_cache_size>268435456</mark_cache_size>
                    <max_concurrent_queries>20</max_concurrent_queries>
                </yandex>
                """.formatted(httpPort, tcpPort, dir, dir, dir, dir, dir));
        Files.writeString(dir.resolve("users.xml"), """
                <?xml version="1.0"?>
                <yandex>
                    <profiles><default><max_memory_usage>2000000000</max_memory_usage></default></profiles>
                    <users>
                        <default>
                            <password></password>
                            <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
                            <profile>default</profile>
                            <quota>default</quota>
                        </default>
                    </users>
                    <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors>
                        <result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
                </yandex>
                """);
    }

    /** {@code http://127.0.0.1:PORT}: the HTTP interface jdbc-v2 speaks. */
    public String url() {
        return "http://127.0.0.1:" + httpPort;
    }

    /** {@code jdbc:clickhouse://127.0.0.1:PORT/DATABASE} for jdbc-v2. */
    public String jdbcUrl(String database) {
        return "jdbc:clickhouse://127.0.0.1:" + httpPort + "/" + database;
    }

    public int httpPort() {
        return httpPort;
    }

    public boolean running() {
        return process.alive();
    }

    /** Runs one statement as {@link #USER} over HTTP (DDL, INSERT … VALUES); fails with the server's message. */
    public void execute(String sql) {
        query(sql);
    }

    /** The server's tab-separated answer to {@code sql} (its default format over HTTP), as text. */
    public String query(String sql) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url() + "/?user=" + URLEncoder.encode(USER, StandardCharsets.UTF_8)))
                .timeout(Duration.ofSeconds(60)).POST(HttpRequest.BodyPublishers.ofString(sql)).build();
        try {
            HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) throw new IllegalStateException("clickhouse-server answered " + r.statusCode() + " to " + sql + ": " + r.body());
            return r.body();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    @Override
    public void close() {
        process.close();
    }

    /** The server binary; Debian's package is installed first when it is missing (root, apt: ~10 MB). */
    static synchronized Path installed() throws IOException {
        if (Files.isExecutable(BINARY)) return BINARY;
        LOG.info("installing clickhouse-server from Debian packages");
        try {
            Apt.install("clickhouse-server", Duration.ofMinutes(10));
        } catch (IOException e) {
            // the tests that need it fail with this, never skip: install it by hand (apt-get install clickhouse-server)
            throw new IOException("no " + BINARY + " and apt could not install Debian's clickhouse-server: " + e.getMessage(), e);
        }
        if (!Files.isExecutable(BINARY)) throw new IOException("clickhouse-server installed but no " + BINARY);
        return BINARY;
    }
}
