package dev.sqloop.common.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ManagementServerTest {

    @Test
    void shouldServeMetricsHealthAndReadiness() throws Exception {
        PrometheusMeterRegistry registry = Metrics.newRegistry();
        registry.counter(Metrics.QUESTIONS, "outcome", "first_attempt_success", "datasource", "demo", "dialect", "duckdb").increment();
        AtomicBoolean ready = new AtomicBoolean(false);
        try (ManagementServer server = ManagementServer.start("127.0.0.1", 0, registry, () -> true, ready::get)) {
            HttpClient http = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + server.port();
            HttpResponse<String> metrics = http.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, metrics.statusCode());
            assertTrue(metrics.body().contains("sqloop_questions_total{datasource=\"demo\",dialect=\"duckdb\",outcome=\"first_attempt_success\"} 1.0"),
                    metrics.body().lines().filter(l -> l.startsWith("sqloop")).toList().toString());
            assertTrue(metrics.body().contains("jvm_memory_used_bytes"), "JVM binders attached");
            assertEquals(200, http.send(HttpRequest.newBuilder(URI.create(base + "/healthy")).build(), HttpResponse.BodyHandlers.ofString()).statusCode());
            assertEquals(503, http.send(HttpRequest.newBuilder(URI.create(base + "/ready")).build(), HttpResponse.BodyHandlers.ofString()).statusCode());
            ready.set(true);
            assertEquals(200, http.send(HttpRequest.newBuilder(URI.create(base + "/ready")).build(), HttpResponse.BodyHandlers.ofString()).statusCode());
        }
    }

    /**
     * A stage's records are virtual threads, and one doing CPU work keeps its carrier until it blocks: with every carrier
     * taken by such work, the probes and the scrape still answer within a liveness probe's timeout (Helm's is 3 s).
     */
    @Test
    void shouldAnswerWhileCpuBoundVirtualThreadsHoldEveryCarrier() throws Exception {
        PrometheusMeterRegistry registry = Metrics.newRegistry();
        try (ManagementServer server = ManagementServer.start("127.0.0.1", 0, registry, () -> true, () -> true)) {
            HttpClient http = HttpClient.newBuilder().executor(Executors.newFixedThreadPool(1)).build();
            String base = "http://127.0.0.1:" + server.port();
            assertEquals(200, http.send(HttpRequest.newBuilder(URI.create(base + "/healthy")).build(), HttpResponse.BodyHandlers.ofString()).statusCode());
            int carriers = Runtime.getRuntime().availableProcessors();
            long busyUntil = System.nanoTime() + 6_000_000_000L;
            AtomicLong spins = new AtomicLong();
            List<Thread> busy = new ArrayList<>();
            for (int i = 0; i < carriers * 4; i++) {
                busy.add(Thread.ofVirtual().start(() -> {
                    while (System.nanoTime() < busyUntil) spins.incrementAndGet(); // never blocks: holds its carrier
                }));
            }
            try {
                Thread.sleep(300); // every carrier is spinning by now
                for (String path : List.of("/healthy", "/ready", "/metrics")) {
                    long t0 = System.nanoTime();
                    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(10)).build(),
                            HttpResponse.BodyHandlers.ofString());
                    long ms = (System.nanoTime() - t0) / 1_000_000;
                    assertEquals(200, r.statusCode(), path);
                    assertTrue(ms < 3_000, path + " took " + ms + " ms while virtual threads held every carrier");
                }
                assertTrue(System.nanoTime() < busyUntil, "the carriers were still held when the last answer came");
            } finally {
                for (Thread t : busy) t.join();
            }
            assertTrue(spins.get() > 0);
        }
    }
}
