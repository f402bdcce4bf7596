package dev.sqloop.common.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicBoolean;
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
}
