package dev.sqloop.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.Topics;
import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.metrics.Metrics;
import dev.sqloop.common.runtime.KafkaClients;
import dev.sqloop.testkit.EmbeddedKafka;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The gateway on a real broker: submission, validation, polling from Kafka Streams state, tenants, instances. */
class GatewayIT {
    private static final String KEY_A = "key-a";
    private static final String KEY_B = "key-b";
    private static EmbeddedKafka broker;
    private static Gateway gateway;
    private static Path stateDir;
    private static final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    static void start() throws Exception {
        broker = EmbeddedKafka.start();
        stateDir = Files.createTempDirectory("gw-a-");
        gateway = startGateway(stateDir);
    }

    @AfterAll
    static void stop() {
        if (gateway != null) gateway.close();
        if (broker != null) broker.close();
    }

    private static Gateway startGateway(Path state) throws Exception {
        int port = dev.sqloop.testkit.Ports.free();
        Map<String, String> env = new HashMap<>(Map.of(
                "SQLOOP_BOOTSTRAP_SERVERS", broker.bootstrapServers(),
                "SQLOOP_GATEWAY_PORT", Integer.toString(port),
                "SQLOOP_GATEWAY_API_KEYS", KEY_A + ":tenant-a," + KEY_B + ":tenant-b",
                "SQLOOP_DATASOURCE_DEMO_DIALECT", "duckdb", "SQLOOP_DATASOURCE_SALES_DIALECT", "trino",
                "SQLOOP_GATEWAY_MAX_BATCH", "2000",
                "SQLOOP_GATEWAY_STATE_DIR", state.toString()));
        return Gateway.start(GatewayConfig.fromEnv(new EnvConfig(env)), Metrics.newRegistry(), Duration.ofSeconds(90));
    }

    private static HttpResponse<String> post(Gateway g, String path, String key, String contentType, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + g.port() + path))
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (key != null) b.header("X-API-Key", key);
        if (contentType != null) b.header("Content-Type", contentType);
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> get(Gateway g, String path, String key) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + g.port() + path));
        if (key != null) b.header("Authorization", "Bearer " + key);
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode json(HttpResponse<String> r) throws Exception {
        return JsonCodec.mapper().readTree(r.body());
    }

    /** Polls until the question's status is one of {@code statuses}. */
    private static JsonNode awaitStatus(Gateway g, String id, String key, Set<String> statuses) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        JsonNode last = null;
        while (System.nanoTime() < deadline) {
            HttpResponse<String> r = get(g, "/v1/questions/" + id, key);
            if (r.statusCode() == 200) {
                last = json(r);
                if (statuses.contains(last.get("status").asText())) return last;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("question " + id + " never reached " + statuses + ", last: " + last);
    }

    private static void finish(List<QuestionTask> tasks) {
        try (Producer<byte[], byte[]> p = KafkaClients.producer(new dev.sqloop.common.config.KafkaSettings(broker.bootstrapServers(), Map.of()), "test-results")) {
            for (QuestionTask t : tasks) {
                QuestionResult r = QuestionResult.succeeded(t.withSql("SELECT " + t.questionId().length(), null), Instant.now());
                p.send(new ProducerRecord<>(Topics.RESULTS.name(), r.key().getBytes(StandardCharsets.UTF_8), JsonCodec.encode(r)));
            }
            p.flush();
        }
    }

    private static List<QuestionTask> readSubmitted(int atLeast, java.util.function.Predicate<QuestionTask> filter) throws Exception {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "reader-" + System.nanoTime());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        List<QuestionTask> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            c.subscribe(List.of(Topics.RETRIEVE_EXAMPLES.name()));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (out.size() < atLeast && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    QuestionTask t = JsonCodec.decode(r.value(), QuestionTask.class);
                    if (filter.test(t)) out.add(t);
                }
            }
        }
        return out;
    }

    private static long endOffsets(String topic) throws Exception {
        try (Admin admin = KafkaClients.admin(new dev.sqloop.common.config.KafkaSettings(broker.bootstrapServers(), Map.of()))) {
            int partitions = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().size();
            Map<TopicPartition, OffsetSpec> req = new HashMap<>();
            for (int i = 0; i < partitions; i++) req.put(new TopicPartition(topic, i), OffsetSpec.latest());
            return admin.listOffsets(req).all().get().values().stream().mapToLong(o -> o.offset()).sum();
        }
    }

    @Test
    void shouldEnqueueAQuestionAndServeItsStatusThenItsResult() throws Exception {
        HttpResponse<String> r = post(gateway, "/v1/questions", KEY_A, "application/json",
                "{\"question\":\"How many orders were shipped?\",\"datasource\":\"demo\",\"maxAttempts\":2,\"metadata\":{\"team\":\"ops\"}}");
        assertEquals(202, r.statusCode(), r.body());
        String id = json(r).get("id").asText();
        assertEquals("/v1/questions/" + id, json(r).get("statusUrl").asText());

        QuestionTask task = readSubmitted(1, t -> t.questionId().equals(id)).get(0);
        assertEquals("tenant-a", task.tenant());
        assertEquals(2, task.maxAttempts());
        assertEquals("ops", task.metadata().get("team"));
        assertTrue(task.deadline() != null, "every question carries a deadline");
        assertEquals(dev.sqloop.common.Dialect.DUCKDB, task.dialect(), "the dialect is resolved at submission and travels with the task");

        assertEquals("queued", awaitStatus(gateway, id, KEY_A, Set.of("queued")).get("status").asText());
        finish(List.of(task));
        JsonNode done = awaitStatus(gateway, id, KEY_A, Set.of("succeeded"));
        assertEquals("first_attempt_success", done.get("reason").asText());
        assertTrue(done.get("sql").asText().startsWith("SELECT"));
    }

    @Test
    void shouldReturnTheExistingQuestionWhenAClientIdIsReused() throws Exception {
        String body = "{\"question\":\"Top 5 customers\",\"datasource\":\"demo\",\"clientId\":\"job-7-row-1\"}";
        HttpResponse<String> first = post(gateway, "/v1/questions", KEY_A, "application/json", body);
        assertEquals(202, first.statusCode());
        String id = json(first).get("id").asText();
        awaitStatus(gateway, id, KEY_A, Set.of("queued"));
        HttpResponse<String> again = post(gateway, "/v1/questions", KEY_A, "application/json", body);
        assertEquals(200, again.statusCode(), again.body());
        assertEquals(id, json(again).get("id").asText());
        assertEquals(1, readSubmitted(1, t -> t.questionId().equals(id)).size());
    }

    @Test
    void shouldRefuseBadInputWithAReasonAndEnqueueNothing() throws Exception {
        long questionsBefore = endOffsets(Topics.RETRIEVE_EXAMPLES.name());
        long batchesBefore = endOffsets(Topics.BATCHES.name());
        String big = "x".repeat(2001);
        record Case(String path, String type, String body, int status, String error, String fieldOrLine) {}
        List<Case> cases = List.of(
                new Case("/v1/questions", "application/json", "{\"question\":\"\",\"datasource\":\"demo\"}", 400, "invalid_request", "question"),
                new Case("/v1/questions", "application/json", "{\"question\":\"   \",\"datasource\":\"demo\"}", 400, "invalid_request", "question"),
                new Case("/v1/questions", "application/json", "{\"question\":\"" + big + "\",\"datasource\":\"demo\"}", 400, "invalid_request", "question"),
                new Case("/v1/questions", "application/json", "{\"question\":42,\"datasource\":\"demo\"}", 400, "invalid_request", "question"),
                new Case("/v1/questions", "application/json", "{\"datasource\":\"demo\"}", 400, "invalid_request", "question"),
                new Case("/v1/questions", "application/json", "{\"question\":\"q\",\"datasource\":\"nope\"}", 400, "invalid_request", "datasource"),
                new Case("/v1/questions", "application/json", "{\"question\":\"q\"}", 400, "invalid_request", "datasource"),
                new Case("/v1/questions", "application/json", "{\"question\":\"q\",\"datasource\":\"demo\",\"maxAttempts\":0}", 400, "invalid_request", "maxAttempts"),
                new Case("/v1/questions", "application/json", "{\"question\":\"q\",\"datasource\":\"demo\",\"maxAttempts\":11}", 400, "invalid_request", "maxAttempts"),
                new Case("/v1/questions", "application/json", "{\"question\":\"q\",\"datasource\":\"demo\",\"maxAttempts\":\"3\"}", 400, "invalid_request", "maxAttempts"),
                new Case("/v1/questions", "application/json", "{\"question\":\"q\",\"datasource\":\"demo\",\"colour\":\"red\"}", 400, "invalid_request", "colour"),
                new Case("/v1/questions", "application/json", "{\"question\":\"q\",\"datasource\":\"demo\",\"metadata\":[1]}", 400, "invalid_request", "metadata"),
                new Case("/v1/questions", "application/json", "{\"question\":\"q\",\"datasource\":", 400, "invalid_request", null),
                new Case("/v1/questions", "application/json", "", 400, "invalid_request", null),
                new Case("/v1/questions", "application/json", "[1,2]", 400, "invalid_request", null),
                new Case("/v1/questions", "text/plain", "How many orders?", 415, "unsupported_media_type", null),
                new Case("/v1/questions", null, "{\"question\":\"q\",\"datasource\":\"demo\"}", 415, "unsupported_media_type", null),
                new Case("/v1/batches", "application/x-ndjson",
                        "{\"question\":\"a\",\"datasource\":\"demo\"}\n{\"question\":\"b\",\"datasource\":\"demo\"}\nnot json\n", 400, "invalid_request", "line:3"),
                new Case("/v1/batches", "application/x-ndjson",
                        "{\"question\":\"a\",\"datasource\":\"demo\"}\n\n{\"question\":\"b\",\"datasource\":\"zzz\"}\n", 400, "invalid_request", "line:3"),
                new Case("/v1/batches", "application/json", "[{\"question\":\"a\",\"datasource\":\"demo\"},{\"question\":\"\",\"datasource\":\"demo\"}]", 400, "invalid_request", "line:2"),
                new Case("/v1/batches", "application/json", "{\"question\":\"a\",\"datasource\":\"demo\"}", 400, "invalid_request", null),
                new Case("/v1/batches", "application/json", "[]", 400, "invalid_request", null),
                new Case("/v1/batches", "application/x-ndjson", "{\"question\":\"a\",\"datasource\":\"demo\"}\n".repeat(2001), 413, "too_large", null),
                new Case("/v1/batches", "text/csv", "question,datasource\na,demo\n", 415, "unsupported_media_type", null));
        for (Case c : cases) {
            HttpResponse<String> r = post(gateway, c.path(), KEY_A, c.type(), c.body());
            String what = c.path() + " " + c.body().substring(0, Math.min(60, c.body().length())) + " → " + r.body();
            assertEquals(c.status(), r.statusCode(), what);
            JsonNode body = json(r);
            assertEquals(c.error(), body.get("error").asText(), what);
            assertTrue(!body.get("message").asText().isBlank(), "a reason is given: " + what);
            if (c.fieldOrLine() != null && c.fieldOrLine().startsWith("line:")) {
                assertEquals(Integer.parseInt(c.fieldOrLine().substring(5)), body.get("line").asInt(), what);
            } else if (c.fieldOrLine() != null) {
                assertEquals(c.fieldOrLine(), body.get("field").asText(), what);
            }
        }
        HttpResponse<String> feedback = post(gateway, "/v1/questions/nope/feedback", KEY_A, "application/json", "{\"action\":\"praise\"}");
        assertEquals(400, feedback.statusCode(), feedback.body());
        assertEquals(404, get(gateway, "/v1/nothing-here", KEY_A).statusCode());
        assertEquals(questionsBefore, endOffsets(Topics.RETRIEVE_EXAMPLES.name()), "no refused request enqueued a question");
        assertEquals(batchesBefore, endOffsets(Topics.BATCHES.name()), "no refused batch left a manifest");
    }

    @Test
    void shouldIsolateTenantsAndRequireAKey() throws Exception {
        HttpResponse<String> r = post(gateway, "/v1/questions", KEY_A, "application/json", "{\"question\":\"secret revenue\",\"datasource\":\"demo\"}");
        String id = json(r).get("id").asText();
        awaitStatus(gateway, id, KEY_A, Set.of("queued"));
        assertEquals(404, get(gateway, "/v1/questions/" + id, KEY_B).statusCode(), "another tenant cannot see it");
        assertEquals(404, get(gateway, "/v1/questions/" + id + "/trace", KEY_B).statusCode());
        HttpResponse<String> noKey = get(gateway, "/v1/questions/" + id, null);
        assertEquals(401, noKey.statusCode());
        assertEquals("unauthorized", json(noKey).get("error").asText());
        assertEquals(401, get(gateway, "/v1/questions/" + id, "wrong").statusCode());
        assertEquals(401, post(gateway, "/v1/questions", null, "application/json", "{\"question\":\"q\",\"datasource\":\"demo\"}").statusCode());
        assertEquals(200, get(gateway, "/healthy", null).statusCode(), "probes need no key");
        assertTrue(get(gateway, "/openapi.json", null).body().contains("\"openapi\""));
    }

    @Test
    void shouldTrackAThousandQuestionBatchAcrossInstancesAndRestarts() throws Exception {
        StringBuilder jsonl = new StringBuilder();
        for (int i = 0; i < 1000; i++) jsonl.append("{\"question\":\"question number ").append(i).append("\",\"datasource\":\"sales\"}\n");
        HttpResponse<String> r = post(gateway, "/v1/batches", KEY_B, "application/x-ndjson", jsonl.toString());
        assertEquals(202, r.statusCode(), r.body());
        String batchId = json(r).get("batchId").asText();
        assertEquals(1000, json(r).get("count").asInt());

        List<QuestionTask> tasks = readSubmitted(1000, t -> batchId.equals(t.batchId()));
        assertEquals(1000, tasks.stream().map(QuestionTask::questionId).distinct().count());
        JsonNode pending = json(get(gateway, "/v1/batches/" + batchId, KEY_B));
        assertEquals(1000, pending.get("total").asInt());
        assertEquals(404, get(gateway, "/v1/batches/" + batchId, KEY_A).statusCode(), "another tenant's batch is not found");

        finish(tasks);
        JsonNode done = awaitBatchDone(gateway, batchId);
        assertEquals(1000, done.get("byStatus").get("succeeded").asInt());

        Path secondState = Files.createTempDirectory("gw-b-");
        try (Gateway second = startGateway(secondState)) {
            awaitBatchDone(second, batchId);
            for (QuestionTask t : tasks.subList(0, 50)) {
                assertEquals("succeeded", awaitStatus(second, t.questionId(), KEY_B, Set.of("succeeded")).get("status").asText());
            }
            assertEquals(1000, resultLines(second, batchId).size(), "every result streams from either instance");
            assertEquals(1000, resultLines(gateway, batchId).size());
        }

        gateway.close();
        gateway = startGateway(stateDir);
        assertEquals(1000, awaitBatchDone(gateway, batchId).get("finished").asInt(), "state survives a restart");
        assertEquals("succeeded", awaitStatus(gateway, tasks.get(999).questionId(), KEY_B, Set.of("succeeded")).get("status").asText());
    }

    private static JsonNode awaitBatchDone(Gateway g, String batchId) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        JsonNode last = null;
        while (System.nanoTime() < deadline) {
            HttpResponse<String> r = get(g, "/v1/batches/" + batchId, KEY_B);
            if (r.statusCode() == 200) {
                last = json(r);
                if (last.get("done").asBoolean()) return last;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("batch never done: " + last);
    }

    private static List<String> resultLines(Gateway g, String batchId) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        List<String> lines = List.of();
        while (System.nanoTime() < deadline) {
            HttpResponse<String> r = get(g, "/v1/batches/" + batchId + "/results", KEY_B);
            if (r.statusCode() == 200) {
                lines = r.body().lines().filter(l -> !l.isBlank()).collect(Collectors.toList());
                if (lines.size() >= 1000) return lines;
            }
            Thread.sleep(200);
        }
        return lines;
    }
}
