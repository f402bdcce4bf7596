package dev.sqloop.common.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;

/** The per-process management endpoint: {@code /metrics} (Prometheus text), {@code /healthy}, {@code /ready}. */
public final class ManagementServer implements AutoCloseable {
    private final HttpServer server;
    private final ExecutorService handlers;

    private ManagementServer(HttpServer server, ExecutorService handlers) {
        this.server = server;
        this.handlers = handlers;
    }

    /** Starts on {@code host:port}; port 0 picks a free one (see {@link #port()}). */
    public static ManagementServer start(String host, int port, PrometheusMeterRegistry registry,
                                         BooleanSupplier healthy, BooleanSupplier ready) throws IOException {
        // TCP_NODELAY (read once, when the JVM's first JDK server starts): otherwise a response's body waits for the
        // scraper's delayed ACK of its headers, up to 40 ms (the simulated LLM in the same JVM measured it)
        if (System.getProperty("sun.net.httpserver.nodelay") == null) System.setProperty("sun.net.httpserver.nodelay", "true");
        HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 0);
        server.createContext("/metrics", ex -> respond(ex, 200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape()));
        server.createContext("/healthy", ex -> probe(ex, healthy));
        server.createContext("/ready", ex -> probe(ex, ready));
        // Platform threads, not virtual ones: a stage's records run on virtual threads, and one busy with CPU work (an
        // embedding, a parse, a JNI call into DuckDB) keeps its carrier until it blocks, so a probe or a scrape handed
        // to a virtual thread waited behind them — 4-16 s per round of /metrics scrapes in the CPU-bound bench, past a
        // liveness probe's 3 s timeout. The kernel's scheduler gives these two threads their turn within milliseconds.
        ExecutorService handlers = Executors.newFixedThreadPool(2, Thread.ofPlatform().daemon().name("sqloop-management-", 0).factory());
        server.setExecutor(handlers);
        server.start();
        return new ManagementServer(server, handlers);
    }

    public int port() {
        return server.getAddress().getPort();
    }

    private static void probe(HttpExchange ex, BooleanSupplier check) throws IOException {
        boolean ok = check.getAsBoolean();
        respond(ex, ok ? 200 : 503, "application/json", ok ? "{\"status\":\"UP\"}" : "{\"status\":\"DOWN\"}");
    }

    private static void respond(HttpExchange ex, int status, String contentType, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", contentType);
        ex.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        handlers.shutdownNow();
    }
}
