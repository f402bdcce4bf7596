package dev.sqloop.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.config.KafkaSettings;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.BatchManifest;
import dev.sqloop.common.message.Execution;
import dev.sqloop.common.message.Issue;
import dev.sqloop.common.message.Message;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.metrics.Metrics;
import dev.sqloop.common.runtime.KafkaClients;
import dev.sqloop.testkit.EmbeddedKafka;
import dev.sqloop.testkit.TestDirs;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * The console with a 100,000-question batch: the gateway's views are filled the way the pipeline fills them (a manifest
 * on {@code batches}, 100,000 final results on {@code results}, folded by the gateway's own Kafka Streams topology), then
 * the batch page, filtered and deep pages of its table and the review queue are fetched over HTTP. What each answer
 * holds is asserted (the API's counts, one page of rows, a cursor on); how long each took is printed, not asserted.
 */
class ConsoleScaleIT {
    private static final int QUESTIONS = 100_000;
    private static final String KEY = "key-a";
    private static final HttpClient HTTP = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();

    /** The synthetic result of question {@code i}: mostly first-try successes, some repaired, some failed, a few on another datasource. */
    static QuestionResult result(String batchId, int i, Instant at) {
        String id = String.format("q%06d", i);
        String datasource = i % 1000 == 7 ? "sales" : "demo";
        List<Issue> hints = i % 50 == 3 ? List.of(Issue.hint("validate", ErrorCategory.TYPE_MISMATCH, "compares a date with text", "o_orderdate"))
                : List.of();
        Execution rows = new Execution(List.of("n"), List.of("BIGINT"), i % 40 == 9 ? 0 : 1 + i % 7, List.of(List.of(i)), 3);
        return switch (i % 20) {
            case 0, 1 -> new QuestionResult(0, id, "tenant-a", batchId, datasource, "Question " + i + "?", QuestionResult.FAILED, "max_attempts",
                    ErrorCategory.COLUMN_NOT_FOUND, "column o_total not found", null, "SELECT o_total FROM orders", 3,
                    List.of(Issue.of("validate", ErrorCategory.COLUMN_NOT_FOUND, "column o_total not found")), null, null, null, at, at,
                    null, 3, 0, null, null, null, null);
            case 2 -> new QuestionResult(0, id, "tenant-a", batchId, datasource, "Question " + i + "?", QuestionResult.FAILED, "unchanged_sql",
                    ErrorCategory.TABLE_NOT_FOUND, "table shipments not found", null, "SELECT count(*) FROM shipments", 2,
                    List.of(Issue.of("validate", ErrorCategory.TABLE_NOT_FOUND, "table shipments not found")), null, null, null, at, at,
                    null, 3, 0, null, null, null, null);
            case 3, 4, 5, 6, 7 -> new QuestionResult(0, id, "tenant-a", batchId, datasource, "Question " + i + "?", QuestionResult.SUCCEEDED,
                    "corrected_success", null, null, "SELECT count(*) FROM orders WHERE o_id > " + i, null, 2, hints, rows, null, null,
                    at, at, null, 3, 0, null, null, null, null);
            default -> new QuestionResult(0, id, "tenant-a", batchId, datasource, "Question " + i + "?", QuestionResult.SUCCEEDED,
                    "first_attempt_success", null, null, "SELECT count(*) FROM orders WHERE o_id > " + i, null, 1, hints, rows, null, null,
                    at, at, null, 3, 0, null, null, null, null);
        };
    }

    @Test
    void shouldAnswerTheBatchPageAndItsTableForA100000QuestionBatchWithoutLoadingItWhole() throws Exception {
        try (EmbeddedKafka broker = EmbeddedKafka.start()) {
            int port = dev.sqloop.testkit.Ports.free();
            Map<String, String> env = Map.of(
                    "SQLOOP_BOOTSTRAP_SERVERS", broker.bootstrapServers(),
                    "SQLOOP_GATEWAY_PORT", Integer.toString(port),
                    "SQLOOP_GATEWAY_API_KEYS", KEY + ":tenant-a",
                    "SQLOOP_DATASOURCE_DEMO_DIALECT", "duckdb", "SQLOOP_DATASOURCE_SALES_DIALECT", "trino",
                    "SQLOOP_GATEWAY_STATE_DIR", TestDirs.create("gw-scale-").toString());
            try (Gateway gateway = Gateway.start(GatewayConfig.fromEnv(new EnvConfig(env)), Metrics.newRegistry(), Duration.ofSeconds(90))) {
                String base = "http://127.0.0.1:" + gateway.port();
                String batchId = "scale-" + System.nanoTime();
                Instant at = Instant.now();
                long t0 = System.nanoTime();
                try (Producer<byte[], byte[]> p = KafkaClients.producer(new KafkaSettings(broker.bootstrapServers(), Map.of()), "scale")) {
                    send(p, Topics.BATCHES.name(), new BatchManifest(0, batchId, "tenant-a", QUESTIONS, at));
                    for (int i = 0; i < QUESTIONS; i++) send(p, Topics.RESULTS.name(), result(batchId, i, at));
                    p.flush();
                }
                double produced = seconds(t0);
                JsonNode status = null;
                long deadline = System.nanoTime() + Duration.ofMinutes(20).toNanos();
                while (System.nanoTime() < deadline) {
                    HttpResponse<String> r = api(base + "/v1/batches/" + batchId);
                    if (r.statusCode() == 200) {
                        status = JsonCodec.mapper().readTree(r.body());
                        if (status.get("done").asBoolean()) break;
                    }
                    Thread.sleep(1000);
                }
                assertTrue(status != null && status.get("done").asBoolean(), "the view folded every result: " + status);
                assertEquals(QUESTIONS, status.get("finished").asLong());
                System.out.printf("console scale: %,d results produced in %.1f s, folded into the gateway's views in %.1f s%n", QUESTIONS,
                        produced, seconds(t0));

                String cookie = "sqloop_console=" + Base64.getUrlEncoder().withoutPadding().encodeToString(KEY.getBytes(StandardCharsets.UTF_8));
                String page = base + "/console/batches/" + batchId;

                // the batch page: the API's counts, and the first 50 questions of the table
                String html = timed("batch page", page, cookie);
                assertEquals(status.get("finished").asLong(), count(html, "finished"));
                assertEquals(status.get("byStatus").path("failed").asLong(), count(html, "failed"));
                assertEquals(status.get("byReason").path("corrected_success").asLong(), count(html, "corrected_success"));
                assertEquals(50, rows(html).size());
                assertEquals(QUESTIONS / 20 * 5, decision(html, "corrected_success"), "repairs by decision, from the running aggregate");
                assertEquals(QUESTIONS / 20, decision(html, "unchanged_sql"));

                // a filter matching one question in ten: one page of them
                html = timed("failed with column_not_found (10 %)", page + "?outcome=failed&category=column_not_found", cookie);
                assertEquals(50, rows(html).size());
                // a deep page: the cursor reads on from the middle of the batch, not from its start
                html = timed("a page from the middle (cursor q050000)", page + "?cursor=q050000", cookie);
                assertEquals("q050001", rows(html).getFirst());
                // a filter matching one in a thousand: the scan bound ends the page early, with a cursor to read on from
                html = timed("datasource sales (0.1 %), scan-bounded", page + "?datasource=sales", cookie);
                assertEquals(ConsoleTable.MAX_SCAN / 1000, rows(html).size(), "the sales questions among the first 20,000 read");
                assertTrue(html.contains("read 20000 results without filling the page"), "the page says where it stopped");
                // the review queue: failures, repairs, hints, empty answers of the batch
                html = timed("review queue", base + "/console/queue?batch=" + batchId, cookie);
                assertEquals(50, rows(html).size());
                html = timed("review queue, no rows only", base + "/console/queue?why=no_rows", cookie);
                assertEquals(50, rows(html).size());
                timed("GET /v1/batches/{id} (API, for comparison)", base + "/v1/batches/" + batchId, null);
            }
        }
    }

    private static void send(Producer<byte[], byte[]> p, String topic, Message m) {
        p.send(new ProducerRecord<>(topic, m.key().getBytes(StandardCharsets.UTF_8), JsonCodec.encode(m)));
    }

    private static HttpResponse<String> api(String url) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url)).header("X-API-Key", KEY).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Fetches {@code url} three times to warm up, then five times timed; prints the median and the slowest, returns the page. */
    private static String timed(String what, String url, String cookie) throws Exception {
        String body = null;
        List<Double> ms = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(url)).GET();
            if (cookie != null) r.header("Cookie", cookie);
            else r.header("X-API-Key", KEY);
            long t = System.nanoTime();
            HttpResponse<String> answer = HTTP.send(r.build(), HttpResponse.BodyHandlers.ofString());
            double took = (System.nanoTime() - t) / 1e6;
            assertEquals(200, answer.statusCode(), what + ": " + answer.body());
            body = answer.body();
            if (i >= 3) ms.add(took);
        }
        ms.sort(Double::compare);
        System.out.printf("console scale: %-45s median %6.1f ms, slowest %6.1f ms (%,d bytes)%n", what, ms.get(ms.size() / 2),
                ms.getLast(), body.length());
        return body;
    }

    private static double seconds(long since) {
        return (System.nanoTime() - since) / 1e9;
    }

    private static long count(String html, String name) {
        Matcher m = Pattern.compile("data-count=\"" + name + "\">([0-9]+)<").matcher(html);
        assertTrue(m.find(), name);
        return Long.parseLong(m.group(1));
    }

    private static long decision(String html, String name) {
        Matcher m = Pattern.compile("data-decision=\"" + name + "\">.*?<td class=\"n\">([0-9]+)</td>", Pattern.DOTALL).matcher(html);
        assertTrue(m.find(), name);
        return Long.parseLong(m.group(1));
    }

    private static List<String> rows(String html) {
        List<String> out = new ArrayList<>();
        Matcher m = Pattern.compile("<tr data-question=\"([^\"]+)\"").matcher(html);
        while (m.find()) out.add(m.group(1));
        return out;
    }
}
