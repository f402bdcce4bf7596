package dev.sqloop.testkit.engines;

import dev.sqloop.testkit.Dirs;
import dev.sqloop.testkit.Ports;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Chroma server (Chroma's own Rust server, 1.0.0, from the npm package {@code chromadb}'s native bindings) on a
 * free loopback port, its data in a temp directory: {@code chroma run --path DIR --host 127.0.0.1 --port P}, ready when
 * {@code /api/v2/heartbeat} answers. The package is installed with npm once per machine into a cache folder
 * ({@value #HOME_PROPERTY}, default {@code ~/.cache/sqloop/chroma-<version>}); npm itself from Debian's packages
 * when missing, as {@link PostgresServer} installs PostgreSQL. No Docker.
 */
public final class ChromaServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ChromaServer.class);
    /**
     * Pinned: later {@code chromadb} releases bundle {@code chromadb-js-bindings-*} 1.x, built against glibc 2.38–2.39,
     * which fail to load on Debian 12 (glibc 2.36); 3.0.0 takes bindings 0.1.x (glibc 2.34), whose server is Chroma 1.0.0.
     */
    public static final String PACKAGE_VERSION = "3.0.0";
    /** The bindings 3.0.0 resolves ({@code ^0.1.1}), pinned too so a later 0.1.x cannot change the server under us. */
    static final String BINDINGS_VERSION = "0.1.3";
    /** The server version those bindings run ({@code /api/v2/version}). */
    public static final String SERVER_VERSION = "1.0.0";
    public static final String HOME_PROPERTY = "sqloop.chroma.home";
    private static ChromaServer shared;

    private final Path home;
    private final Path data;
    private final int port;
    private EngineProcess process;

    private ChromaServer(Path home, Path data, int port) {
        this.home = home;
        this.data = data;
        this.port = port;
    }

    /** One server per JVM, started on first use and stopped by a shutdown hook. */
    public static synchronized ChromaServer shared() {
        if (shared == null) {
            shared = start();
            ChromaServer s = shared;
            Runtime.getRuntime().addShutdownHook(new Thread(s::close, "chroma-stop"));
        }
        return shared;
    }

    /** A server of its own on a new data directory; the caller closes it. */
    public static ChromaServer start() {
        try {
            ChromaServer s = new ChromaServer(installed(), Files.createTempDirectory("sqloop-chroma-data-"), Ports.free());
            s.launch();
            return s;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private synchronized void launch() throws IOException {
        long t0 = System.nanoTime();
        process = EngineProcess.inTempDir("Chroma", "sqloop-chroma-");
        process.start(List.of(home.resolve("node_modules/.bin/chroma").toString(), "run", "--path", data.toString(),
                "--host", "127.0.0.1", "--port", Integer.toString(port)));
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        HttpRequest heartbeat = HttpRequest.newBuilder(URI.create(url() + "/api/v2/heartbeat")).timeout(Duration.ofSeconds(10)).build();
        process.awaitReady(Duration.ofSeconds(120), 200, () -> {
            HttpResponse<String> r = http.send(heartbeat, HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) throw new IOException("heartbeat answered " + r.statusCode() + ": " + r.body());
        });
        LOG.info("Chroma {} ready on port {} in {} ms ({})", SERVER_VERSION, port, (System.nanoTime() - t0) / 1_000_000, data);
    }

    /** {@code http://127.0.0.1:PORT}, the base of its API ({@code /api/v2/...}). */
    public String url() {
        return "http://127.0.0.1:" + port;
    }

    public int port() {
        return port;
    }

    /** Whether the server process is running. */
    public synchronized boolean running() {
        return process != null && process.alive();
    }

    /** Stops the server (SIGTERM, then SIGKILL after 20 s); its data directory stays for {@link #restart()}. */
    public synchronized void stop() {
        if (process == null) return;
        process.close(); // deletes only the process's own folder (its log), not the data
        process = null;
    }

    /** Starts a stopped server again on the same data and port: what a restart of a deployment's Chroma keeps. */
    public synchronized void restart() {
        if (process != null) return;
        try {
            launch();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        stop();
        Dirs.deleteQuietly(data);
    }

    /**
     * The folder holding {@code node_modules/.bin/chroma}, installed on first use: npm into a sibling temp folder under
     * a file lock (another JVM may install at the same moment), moved into place only when complete, so a half install
     * is never taken for one.
     */
    static synchronized Path installed() throws IOException {
        String configured = System.getProperty(HOME_PROPERTY);
        Path home = configured != null && !configured.isBlank() ? Path.of(configured)
                : Path.of(System.getProperty("user.home"), ".cache", "sqloop", "chroma-" + PACKAGE_VERSION);
        if (complete(home)) return home;
        Files.createDirectories(home.getParent());
        try (FileChannel ch = FileChannel.open(home.resolveSibling(home.getFileName() + ".lock"), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE); FileLock ignored = ch.lock()) {
            if (complete(home)) return home;
            Path npm = npm();
            Path work = Files.createTempDirectory(home.getParent(), home.getFileName() + ".installing-");
            try {
                // a package.json of its own: npm installs here, not into whatever project encloses the folder
                Files.writeString(work.resolve("package.json"), """
                        {"name": "sqloop-chroma-server", "private": true, "description": "Chroma's server for sqloop's tests (testkit ChromaServer)",
                         "dependencies": {"chromadb": "%s", "chromadb-js-bindings-linux-x64-gnu": "%s"}}
                        """.formatted(PACKAGE_VERSION, BINDINGS_VERSION));
                LOG.info("installing chromadb@{} with npm into {}", PACKAGE_VERSION, home);
                exec(work, Duration.ofMinutes(10), npm.toString(), "install", "--no-audit", "--no-fund", "--omit=dev");
                if (!Files.isExecutable(work.resolve("node_modules/.bin/chroma"))) throw new IOException("npm installed no node_modules/.bin/chroma in " + work);
                if (Files.exists(home)) Dirs.deleteQuietly(home); // an earlier half install without its marker
                Files.move(work, home, StandardCopyOption.ATOMIC_MOVE);
                Files.writeString(home.resolve(".complete"), PACKAGE_VERSION);
            } finally {
                Dirs.deleteQuietly(work);
            }
        }
        return home;
    }

    private static boolean complete(Path home) {
        return Files.isRegularFile(home.resolve(".complete")) && Files.isExecutable(home.resolve("node_modules/.bin/chroma"));
    }

    private static Path npm() throws IOException {
        return dev.sqloop.testkit.ToolCache.npm();
    }

    private static void exec(Path dir, Duration limit, String... command) throws IOException {
        Path log = Files.createTempFile("sqloop-npm-", ".log");
        try {
            Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new IOException("timed out after " + limit + ": " + String.join(" ", command) + "\n" + Files.readString(log));
            }
            if (p.exitValue() != 0) throw new IOException("failed (exit " + p.exitValue() + "): " + String.join(" ", command) + "\n" + Files.readString(log));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted: " + String.join(" ", command), e);
        } finally {
            Files.deleteIfExists(log);
        }
    }
}
