package dev.sqloop.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.config.KafkaSettings;
import dev.sqloop.common.message.ExampleIds;
import dev.sqloop.common.message.ExampleRecord;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.metrics.Metrics;
import dev.sqloop.common.runtime.KafkaClients;
import dev.sqloop.testkit.EmbeddedKafka;
import dev.sqloop.testkit.OpenApiLinter;
import dev.sqloop.testkit.TestDirs;
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
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The served OpenAPI document against the real gateway on a real broker: a real linter (Redocly CLI, recommended rules)
 * finds no problem in it, and every documented operation is called, for its successes and for each documented refusal,
 * each answer checked against the schema the document gives for its status and media type (networknt, JSON Schema
 * 2020-12). An answer whose status or media type the document does not list fails, and so does a documented status no
 * call produced, but for the few that one healthy instance cannot produce ({@link #UNPROVOKED}).
 */
class OpenApiContractIT {
    private static final String KEY_A = "key-a";
    private static final String KEY_CURATOR = "key-c";
    private static final int MAX_BODY_BYTES = 64 * 1024;
    private static final String DOC_URI = "https://gateway.sqloop.test/openapi.json";
    /** Documented statuses one healthy instance on a live broker does not answer, and why they stay documented. */
    private static final Map<Integer, String> UNPROVOKED = Map.of(
            503, "the queue refusing a write, the results view rebalancing or restoring, or the view failed (probes); "
                    + "GatewayIT's restart and two-instance tests go through rebalances");

    private static EmbeddedKafka broker;
    private static Gateway gateway;
    private static JsonNode document;
    private static SchemaRegistry schemas;
    private static final HttpClient http = HttpClient.newHttpClient();
    /** "METHOD /path/template" → every status answered and checked. */
    private static final Map<String, Set<Integer>> exercised = new ConcurrentHashMap<>();
    /** A batch of tenant-a's, submitted by the batch scenario, whose captures the examples scenario rolls back. */
    private static String ownBatch;

    @BeforeAll
    static void start() throws Exception {
        broker = EmbeddedKafka.start();
        Map<String, String> env = new HashMap<>(Map.of(
                "SQLOOP_BOOTSTRAP_SERVERS", broker.bootstrapServers(),
                "SQLOOP_GATEWAY_PORT", Integer.toString(dev.sqloop.testkit.Ports.free()),
                "SQLOOP_GATEWAY_API_KEYS", KEY_A + ":tenant-a," + KEY_CURATOR + ":curator",
                "SQLOOP_GATEWAY_CURATORS", "curator",
                "SQLOOP_DATASOURCE_DEMO_DIALECT", "duckdb", "SQLOOP_DATASOURCE_SALES_DIALECT", "trino",
                "SQLOOP_GATEWAY_MAX_BATCH", "5",
                "SQLOOP_GATEWAY_MAX_BODY_BYTES", Integer.toString(MAX_BODY_BYTES),
                "SQLOOP_GATEWAY_STATE_DIR", TestDirs.create("gw-contract-").toString()));
        gateway = Gateway.start(GatewayConfig.fromEnv(new EnvConfig(env)), Metrics.newRegistry(), Duration.ofSeconds(90));
        HttpResponse<String> served = http.send(HttpRequest.newBuilder(base("/openapi.json")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, served.statusCode(), served.body());
        document = JsonCodec.mapper().readTree(served.body());
        // the document is the one resource the answers' schemas live in: a pointer into it names each schema, and its
        // #/components/schemas references resolve against it
        schemas = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12,
                b -> b.schemas(Map.of(DOC_URI, served.body())));
    }

    @AfterAll
    static void stop() {
        if (gateway != null) gateway.close();
        if (broker != null) broker.close();
    }

    @Test
    void shouldPassTheOpenApiLinterWithoutAProblem() throws Exception {
        Path file = Files.createTempFile("sqloop-openapi-", ".json");
        try {
            Files.writeString(file, JsonCodec.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(document));
            Path rules = Path.of(OpenApiContractIT.class.getResource("/redocly.yaml").toURI());
            OpenApiLinter.Report report = OpenApiLinter.lint(file, rules);
            System.out.printf("redocly %s on the served document: %d errors, %d warnings, %d operations%n", report.version(),
                    report.errors(), report.warnings(), operations().size());
            assertEquals(List.of(), report.problems(), "redocly lint " + report.version());
            assertEquals(0, report.errors() + report.warnings());
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /** The checks have teeth: the linter finds a broken copy of the document, the schemas refuse answers that break them. */
    @Test
    void shouldCatchABrokenDocumentAndAnAnswerThatBreaksItsSchema() throws Exception {
        com.fasterxml.jackson.databind.node.ObjectNode broken = document.deepCopy();
        ((com.fasterxml.jackson.databind.node.ObjectNode) broken.at("/components/schemas")).remove("Refusal");
        ((com.fasterxml.jackson.databind.node.ObjectNode) broken.at("/paths/~1v1~1batches~1{id}")).remove("delete");
        ((com.fasterxml.jackson.databind.node.ObjectNode) broken.at("/paths/~1v1~1examples")).set("delete",
                JsonCodec.mapper().readTree("{\"summary\":\"Cancel a batch\",\"responses\":{\"202\":{\"description\":\"Cancelling\"}}}"));
        Path file = Files.createTempFile("sqloop-openapi-broken-", ".json");
        try {
            Files.writeString(file, JsonCodec.mapper().writeValueAsString(broken));
            OpenApiLinter.Report report = OpenApiLinter.lint(file, Path.of(OpenApiContractIT.class.getResource("/redocly.yaml").toURI()));
            Set<String> rules = new TreeSet<>(report.problems().stream().map(OpenApiLinter.Problem::rule).toList());
            assertTrue(rules.contains("no-unresolved-refs"), "a missing schema: " + report.problems());
            assertTrue(rules.contains("operation-operationId"), "an operation without an id: " + report.problems());
        } finally {
            Files.deleteIfExists(file);
        }

        Schema accepted = schemaAt("/paths/~1v1~1questions/post/responses/202/content/application~1json/schema");
        assertEquals(List.of(), errors(accepted, JsonCodec.mapper().readTree("{\"id\":\"q\",\"status\":\"queued\",\"statusUrl\":\"/v1/questions/q\"}")));
        for (String bad : List.of("{\"id\":\"q\"}", "{\"id\":\"q\",\"status\":\"lost\",\"statusUrl\":\"/\"}",
                "{\"id\":\"q\",\"status\":\"queued\",\"statusUrl\":\"/\",\"tenant\":\"a\"}", "[]")) {
            assertTrue(!errors(accepted, JsonCodec.mapper().readTree(bad)).isEmpty(), "refused: " + bad);
        }
        Schema line = schemaAt("/paths/~1v1~1batches~1%7Bid%7D~1results/get/responses/200/content/application~1x-ndjson/"
                + OpenApiDocument.LINE_SCHEMA);
        assertTrue(!errors(line, JsonCodec.mapper().readTree("{\"questionId\":\"q\",\"submittedAt\":\"yesterday\"}")).isEmpty(),
                "a result line without its status and reason, with a date that is none");
        Schema example = schemaAt("/paths/~1v1~1examples~1%7Bid%7D/get/responses/200/content/application~1json/schema");
        assertTrue(errors(example, JsonCodec.mapper().readTree("{\"id\":\"not-a-uuid\",\"datasource\":\"d\",\"question\":\"q\","
                + "\"sql\":\"s\",\"shared\":false,\"tags\":[],\"deletable\":true}")).stream().anyMatch(e -> e.toString().contains("uuid")),
                "formats are asserted");
    }

    @Test
    void shouldDescribeTheServerSecurityAndEveryRouteItServes() {
        assertEquals(OpenApiDocument.OPENAPI_VERSION, document.get("openapi").asText());
        assertEquals("http://127.0.0.1:" + gateway.port(), document.at("/servers/0/url").asText(), "the address the request reached");
        assertEquals("[{\"ApiKey\":[]},{\"Bearer\":[]}]", document.get("security").toString());
        assertEquals(new TreeSet<>(gateway.server().routes().stream().map(OpenApiDocument.Route::toString).toList()),
                new TreeSet<>(operations()), "every route the running server serves, and nothing else");
    }

    @Test
    void shouldAnswerEveryDocumentedOperationAsItsSchemaSays() throws Exception {
        service();
        questions();
        batches();
        examples();
        everyOperationRefusesAMethodOverrideAndAMissingKey();

        List<String> missing = new ArrayList<>();
        for (String op : operations()) {
            JsonNode responses = operation(op).get("responses");
            responses.fieldNames().forEachRemaining(status -> {
                if (status.equals("default") || UNPROVOKED.containsKey(Integer.parseInt(status))) return;
                if (!exercised.getOrDefault(op, Set.of()).contains(Integer.parseInt(status))) missing.add(op + " " + status);
            });
        }
        System.out.printf("contract: %d operations, %d (operation, status) pairs answered and checked against their schemas%n",
                operations().size(), exercised.values().stream().mapToInt(Set::size).sum());
        assertEquals(List.of(), missing, "documented statuses no call produced");
    }

    // ------------------------------------------------------------------------------------------------- scenarios

    private void service() throws Exception {
        for (String path : List.of("/healthy", "/ready", "/metrics", "/openapi.json")) expect(200, "GET", path, path, null, null, null);
        JsonNode ds = json(expect(200, "GET", "/v1/datasources", "/v1/datasources", KEY_A, null, null));
        assertEquals("[{\"name\":\"demo\",\"dialect\":\"duckdb\"},{\"name\":\"sales\",\"dialect\":\"trino\"}]", ds.get("datasources").toString());
    }

    private void questions() throws Exception {
        String q = "/v1/questions";
        String clientId = "contract-" + System.nanoTime();
        String succeeded = json(expect(202, "POST", q, q, KEY_A, "application/json",
                "{\"question\":\"How many orders shipped?\",\"datasource\":\"demo\",\"clientId\":\"" + clientId + "\",\"metadata\":{\"team\":\"ops\"}}")).get("id").asText();
        expect(200, "POST", q, q, KEY_A, "application/json", "{\"question\":\"How many orders shipped?\",\"datasource\":\"demo\",\"clientId\":\"" + clientId + "\"}");
        expect(400, "POST", q, q, KEY_A, "application/json", "{\"question\":\"\",\"datasource\":\"demo\"}");
        expect(415, "POST", q, q, KEY_A, "text/plain", "How many orders?");
        expect(413, "POST", q, q, KEY_A, "application/json", "{\"question\":\"" + "x".repeat(MAX_BODY_BYTES) + "\",\"datasource\":\"demo\"}");

        String one = "/v1/questions/{id}";
        expect(200, "GET", one, "/v1/questions/" + succeeded, KEY_A, null, null);
        expect(404, "GET", one, "/v1/questions/no-such-question", KEY_A, null, null);
        expect(200, "GET", one + "/trace", "/v1/questions/" + succeeded + "/trace", KEY_A, null, null);
        expect(404, "GET", one + "/trace", "/v1/questions/no-such-question/trace", KEY_A, null, null);

        String cancelled = json(expect(202, "POST", q, q, KEY_A, "application/json", "{\"question\":\"Cancel me\",\"datasource\":\"demo\"}")).get("id").asText();
        expect(202, "DELETE", one, "/v1/questions/" + cancelled, KEY_A, null, null);
        expect(404, "DELETE", one, "/v1/questions/no-such-question", KEY_A, null, null);

        String failed = json(expect(202, "POST", q, q, KEY_A, "application/json", "{\"question\":\"Revenue by region?\",\"datasource\":\"sales\"}")).get("id").asText();
        List<QuestionTask> tasks = submitted(2, t -> t.questionId().equals(succeeded) || t.questionId().equals(failed));
        finish(tasks, t -> t.questionId().equals(succeeded) ? null : "llm_unavailable");
        awaitStatus(succeeded, "succeeded");
        awaitStatus(failed, "failed");
        // answers of a final question: succeeded with its SQL, failed with its reason
        expect(200, "GET", one, "/v1/questions/" + succeeded, KEY_A, null, null);
        expect(200, "GET", one, "/v1/questions/" + failed, KEY_A, null, null);
        expect(409, "DELETE", one, "/v1/questions/" + succeeded, KEY_A, null, null);

        String retry = one + "/retry";
        expect(202, "POST", retry, "/v1/questions/" + failed + "/retry", KEY_A, null, null);
        expect(409, "POST", retry, "/v1/questions/" + succeeded + "/retry", KEY_A, null, null);
        expect(404, "POST", retry, "/v1/questions/no-such-question/retry", KEY_A, null, null);

        String feedback = one + "/feedback";
        expect(202, "POST", feedback, "/v1/questions/" + succeeded + "/feedback", KEY_A, "application/json", "{\"action\":\"save\"}");
        expect(400, "POST", feedback, "/v1/questions/" + succeeded + "/feedback", KEY_A, "application/json", "{\"action\":\"praise\"}");
        expect(404, "POST", feedback, "/v1/questions/no-such-question/feedback", KEY_A, "application/json", "{\"action\":\"unsave\"}");
        expect(415, "POST", feedback, "/v1/questions/" + succeeded + "/feedback", KEY_A, "text/plain", "save");
        expect(413, "POST", feedback, "/v1/questions/" + succeeded + "/feedback", KEY_A, "application/json",
                "{\"action\":\"save\",\"sql\":\"SELECT '" + "x".repeat(MAX_BODY_BYTES) + "'\"}");
        // a question of a datasource this gateway no longer has (its result written as the pipeline writes one)
        String retired = "retired-" + System.nanoTime();
        finish(List.of(QuestionTask.create(retired, "tenant-a", "retired", "Old question?", 3, Instant.now())), t -> null);
        awaitStatus(retired, "succeeded");
        expect(409, "POST", feedback, "/v1/questions/" + retired + "/feedback", KEY_A, "application/json", "{\"action\":\"save\"}");
    }

    private void batches() throws Exception {
        String b = "/v1/batches";
        String question = "{\"question\":\"Orders on day %d?\",\"datasource\":\"demo\"}";
        String retried = json(expect(202, "POST", b, b, KEY_A, "application/json",
                "[" + String.format(question, 1) + "," + String.format(question, 2) + "]")).get("batchId").asText();
        String cancelled = json(expect(202, "POST", b, b, KEY_A, "application/x-ndjson",
                String.format(question, 3) + "\n" + String.format(question, 4) + "\n")).get("batchId").asText();
        String finished = json(expect(202, "POST", b, b, KEY_A, "application/json", "[" + String.format(question, 5) + "]")).get("batchId").asText();
        ownBatch = finished;
        expect(400, "POST", b, b, KEY_A, "application/x-ndjson", String.format(question, 6) + "\nnot json\n");
        expect(413, "POST", b, b, KEY_A, "application/json", "[" + String.join(",", java.util.Collections.nCopies(6, String.format(question, 7))) + "]");
        expect(415, "POST", b, b, KEY_A, "text/csv", "question,datasource\nq,demo\n");
        // the list: the caller's batches, once the view has read them back
        long listed = 0;
        for (long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos(); listed < 3 && System.nanoTime() < deadline; Thread.sleep(200)) {
            JsonNode list = json(expect(200, "GET", b, b, KEY_A, null, null));
            listed = java.util.stream.StreamSupport.stream(list.get("batches").spliterator(), false).map(x -> x.get("batchId").asText())
                    .filter(id -> id.equals(retried) || id.equals(cancelled) || id.equals(finished)).count();
        }
        assertEquals(3, listed, "GET /v1/batches lists the three batches just accepted");

        String one = "/v1/batches/{id}";
        expect(200, "GET", one, b + "/" + retried, KEY_A, null, null);
        expect(404, "GET", one, b + "/no-such-batch", KEY_A, null, null);
        expect(200, "GET", one + "/results", b + "/" + retried + "/results", KEY_A, null, null);
        expect(404, "GET", one + "/results", b + "/no-such-batch/results", KEY_A, null, null);

        List<QuestionTask> tasks = submitted(3, t -> retried.equals(t.batchId()) || finished.equals(t.batchId()));
        finish(tasks, t -> t.question().contains("day 2") ? "warehouse_unavailable" : null);
        awaitBatch(retried, r -> r.get("done").asBoolean());
        awaitBatch(finished, r -> r.get("done").asBoolean());
        String results = expect(200, "GET", one + "/results", b + "/" + retried + "/results", KEY_A, null, null).body();
        assertEquals(2, results.lines().filter(l -> !l.isBlank()).count(), "one line per finished question: " + results);

        String retry = one + "/retry";
        expect(200, "POST", retry, b + "/" + retried + "/retry", KEY_A, "application/json", "{\"reasons\":[\"max_attempts\"]}");
        expect(202, "POST", retry, b + "/" + retried + "/retry", KEY_A, null, null);
        expect(400, "POST", retry, b + "/" + retried + "/retry", KEY_A, "application/json", "{\"reasons\":[\"cancelled\"]}");
        expect(404, "POST", retry, b + "/no-such-batch/retry", KEY_A, null, null);
        expect(413, "POST", retry, b + "/" + retried + "/retry", KEY_A, "application/json",
                "{\"reasons\":[\"" + "x".repeat(MAX_BODY_BYTES) + "\"]}");

        expect(202, "DELETE", one, b + "/" + cancelled, KEY_A, null, null);
        expect(409, "DELETE", one, b + "/" + finished, KEY_A, null, null);
        expect(404, "DELETE", one, b + "/no-such-batch", KEY_A, null, null);
    }

    private void examples() throws Exception {
        String e = "/v1/examples";
        expect(200, "GET", e, e, KEY_A, null, null);
        expect(200, "GET", e, e + "?batch=" + ownBatch, KEY_A, null, null);
        String rollback = "/v1/batches/{id}/examples";
        expect(202, "DELETE", rollback, "/v1/batches/" + ownBatch + "/examples", KEY_A, null, null);
        expect(404, "DELETE", rollback, "/v1/batches/" + ownBatch + "/examples", KEY_CURATOR, null, null);
        expect(200, "GET", e, e + "?datasource=demo&limit=1", KEY_CURATOR, null, null);
        expect(400, "GET", e, e + "?limit=0", KEY_A, null, null);

        String own = "{\"question\":\"Top customers by revenue %d?\",\"datasource\":\"demo\",\"sql\":\"SELECT 1\",\"tags\":[\"t\"]}";
        json(expect(202, "POST", e, e, KEY_A, "application/json", String.format(own, System.nanoTime()))).get("id").asText();
        expect(403, "POST", e, e, KEY_A, "application/json",
                "{\"question\":\"Shared?\",\"datasource\":\"demo\",\"sql\":\"SELECT 1\",\"shared\":true}");
        expect(400, "POST", e, e, KEY_A, "application/json", "{\"question\":\"Drop?\",\"datasource\":\"demo\",\"sql\":\"DROP TABLE orders\"}");
        expect(415, "POST", e, e, KEY_A, "text/plain", "SELECT 1");
        expect(413, "POST", e, e, KEY_A, "application/json",
                "{\"question\":\"Big?\",\"datasource\":\"demo\",\"sql\":\"SELECT '" + "x".repeat(MAX_BODY_BYTES) + "'\"}");

        // examples as the fewshot service publishes them: the caller's own, and a seed every tenant sees
        String ownQuestion = "Orders per month " + System.nanoTime() + "?";
        String ownId = publishExample(ownQuestion, "tenant-a");
        String seedId = publishExample("Seed question " + System.nanoTime() + "?", null);
        expect(200, "POST", e, e, KEY_A, "application/json",
                "{\"question\":\"" + ownQuestion + "\",\"datasource\":\"demo\",\"sql\":\"SELECT 1\"}");

        String one = e + "/{id}";
        expect(200, "GET", one, e + "/" + ownId, KEY_A, null, null);
        expect(200, "GET", one, e + "/" + seedId, KEY_A, null, null);
        expect(404, "GET", one, e + "/" + java.util.UUID.randomUUID(), KEY_A, null, null);
        expect(403, "DELETE", one, e + "/" + seedId, KEY_A, null, null);
        expect(202, "DELETE", one, e + "/" + ownId, KEY_A, null, null);
        expect(404, "DELETE", one, e + "/" + java.util.UUID.randomUUID(), KEY_A, null, null);
    }

    /** Every operation is refused, as documented, when a method override is asked for, and (where a key is needed) without one. */
    private void everyOperationRefusesAMethodOverrideAndAMissingKey() throws Exception {
        for (String op : operations()) {
            String method = op.substring(0, op.indexOf(' '));
            String template = op.substring(op.indexOf(' ') + 1);
            String path = template.replaceAll("\\{[^}]+}", "some-id");
            JsonNode refusal = json(send(method, template, path, KEY_A, null, null, Map.of("X-HTTP-Method-Override", "GET"), 400));
            assertEquals("X-HTTP-Method-Override", refusal.get("field").asText(), op);
            if (operation(op).get("responses").has("401")) {
                assertEquals("unauthorized", json(send(method, template, path, null, null, null, Map.of(), 401)).get("error").asText(), op);
            }
        }
    }

    // ------------------------------------------------------------------------------------------------- the contract

    /** Every documented operation as "METHOD /template". */
    private static List<String> operations() {
        List<String> out = new ArrayList<>();
        document.get("paths").fields().forEachRemaining(p ->
                p.getValue().fieldNames().forEachRemaining(m -> out.add(m.toUpperCase(Locale.ROOT) + " " + p.getKey())));
        return out;
    }

    private static JsonNode operation(String op) {
        String method = op.substring(0, op.indexOf(' ')).toLowerCase(Locale.ROOT);
        return document.get("paths").path(op.substring(op.indexOf(' ') + 1)).path(method);
    }

    /** Calls, checks the answer against the document, and expects {@code status} (a documented 503 is retried). */
    private static HttpResponse<String> expect(int status, String method, String template, String path, String key, String type,
                                               String body) throws Exception {
        return send(method, template, path, key, type, body, Map.of(), status);
    }

    private static HttpResponse<String> send(String method, String template, String path, String key, String type, String body,
                                             Map<String, String> headers, int status) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            HttpRequest.Builder b = HttpRequest.newBuilder(base(path))
                    .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
            if (key != null) b.header("X-API-Key", key);
            if (type != null) b.header("Content-Type", type);
            headers.forEach(b::header);
            HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            check(method + " " + template, r);
            if (r.statusCode() == status) return r;
            if (r.statusCode() != 503 || System.nanoTime() > deadline) {
                fail(method + " " + path + ": expected " + status + ", answered " + r.statusCode() + " " + r.body());
            }
            Thread.sleep(200);
        }
    }

    /** The answer is one the document lists for the operation: its status, its media type, a body valid against its schema. */
    private static void check(String op, HttpResponse<String> r) {
        JsonNode operation = operation(op);
        assertTrue(operation.isObject(), op + " is not in the document");
        String status = Integer.toString(r.statusCode());
        JsonNode answer = operation.path("responses").path(status);
        assertTrue(answer.isObject(), op + " answered " + status + ", which the document does not list: " + r.body());
        exercised.computeIfAbsent(op, k -> ConcurrentHashMap.newKeySet()).add(r.statusCode());
        JsonNode content = answer.path("content");
        if (content.isMissingNode()) return;
        String type = r.headers().firstValue("Content-Type").orElse("").split(";")[0].strip();
        JsonNode media = content.path(type);
        assertTrue(media.isObject(), op + " " + status + " answered " + type + "; documented: " + content.fieldNames().next());
        String pointer = "/paths/" + escape(op.substring(op.indexOf(' ') + 1)) + "/" + op.substring(0, op.indexOf(' ')).toLowerCase(Locale.ROOT)
                + "/responses/" + status + "/content/" + escape(type);
        if (media.has(OpenApiDocument.LINE_SCHEMA)) {
            Schema line = schemaAt(pointer + "/" + OpenApiDocument.LINE_SCHEMA);
            for (String l : r.body().lines().filter(l -> !l.isBlank()).toList()) valid(op + " " + status + " line", line, l);
        } else if (media.path("schema").path("type").asText().equals("string")) {
            assertTrue(!r.body().isBlank(), op + " " + status + " answered an empty body");
        } else {
            valid(op + " " + status, schemaAt(pointer + "/schema"), r.body());
        }
    }

    private static void valid(String what, Schema schema, String body) {
        JsonNode instance;
        try {
            instance = JsonCodec.mapper().readTree(body);
        } catch (Exception e) {
            throw new AssertionError(what + ": not JSON: " + body, e);
        }
        List<Error> errors = errors(schema, instance);
        assertEquals(List.of(), errors.stream().map(Error::toString).toList(), what + " " + body);
    }

    /** What {@code schema} finds wrong with {@code instance}, formats (date-time, uuid) asserted too. */
    private static List<Error> errors(Schema schema, JsonNode instance) {
        return schema.validate(instance, ctx -> ctx.executionConfig(c -> c.formatAssertionsEnabled(true)));
    }

    private static Schema schemaAt(String pointer) {
        Schema schema = schemas.getSchema(SchemaLocation.of(DOC_URI + "#" + pointer));
        assertNotNull(schema, pointer);
        return schema;
    }

    /** A JSON pointer token ({@code ~0}, {@code ~1}), percent-encoded where a URI fragment needs it. */
    private static String escape(String token) {
        return token.replace("~", "~0").replace("/", "~1").replace("{", "%7B").replace("}", "%7D");
    }

    // ------------------------------------------------------------------------------------------------- the pipeline's part

    private static URI base(String path) {
        return URI.create("http://127.0.0.1:" + gateway.port() + path);
    }

    private static JsonNode json(HttpResponse<String> r) throws Exception {
        return JsonCodec.mapper().readTree(r.body());
    }

    private static KafkaSettings kafka() {
        return new KafkaSettings(broker.bootstrapServers(), Map.of());
    }

    /** Final results as the pipeline's stages write them; {@code reason} null: a first-attempt success. */
    private static void finish(List<QuestionTask> tasks, java.util.function.Function<QuestionTask, String> reason) {
        try (Producer<byte[], byte[]> p = KafkaClients.producer(kafka(), "contract-results")) {
            for (QuestionTask t : tasks) {
                String why = reason.apply(t);
                QuestionResult r = why == null ? QuestionResult.succeeded(t.withSql("SELECT 42", null), Instant.now())
                        : QuestionResult.failed(t, why, null, "injected " + why, Instant.now());
                p.send(new ProducerRecord<>(Topics.RESULTS.name(), r.key().getBytes(StandardCharsets.UTF_8), JsonCodec.encode(r)));
            }
            p.flush();
        }
    }

    /** The tasks the gateway enqueued that {@code filter} picks, at least {@code count} of them. */
    private static List<QuestionTask> submitted(int count, Predicate<QuestionTask> filter) throws Exception {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "contract-" + System.nanoTime());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        Map<String, QuestionTask> out = new TreeMap<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            c.subscribe(List.of(Topics.RETRIEVE_EXAMPLES.name()));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (out.size() < count && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    QuestionTask t = JsonCodec.decode(r.value(), QuestionTask.class);
                    if (filter.test(t)) out.put(t.questionId(), t);
                }
            }
        }
        assertEquals(count, out.size(), "enqueued tasks");
        return new ArrayList<>(out.values());
    }

    private static void awaitStatus(String id, String status) throws Exception {
        await("/v1/questions/" + id, r -> status.equals(r.path("status").asText()));
    }

    private static void awaitBatch(String id, Predicate<JsonNode> until) throws Exception {
        await("/v1/batches/" + id, until);
    }

    private static void await(String path, Predicate<JsonNode> until) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        String last = null;
        while (System.nanoTime() < deadline) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(base(path)).header("X-API-Key", KEY_A).build(),
                    HttpResponse.BodyHandlers.ofString());
            last = r.statusCode() + " " + r.body();
            if (r.statusCode() == 200 && until.test(json(r))) return;
            Thread.sleep(100);
        }
        throw new AssertionError(path + " never reached the expected state; last: " + last);
    }

    /** Publishes an example as the fewshot service does ({@code owner} null: a seed) and waits until the gateway serves it. */
    private static String publishExample(String question, String owner) throws Exception {
        String id = ExampleIds.of("demo", question, owner).toString();
        ExampleRecord example = new ExampleRecord(0, id, "demo", question, "SELECT 1", "duckdb",
                owner == null ? ExampleRecord.SEED : ExampleRecord.MANUAL, owner, null, List.of(), Instant.now(), owner == null);
        try (Producer<byte[], byte[]> p = KafkaClients.producer(kafka(), "contract-examples")) {
            p.send(new ProducerRecord<>(Topics.EXAMPLES.name(), id.getBytes(StandardCharsets.UTF_8), JsonCodec.encode(example))).get();
        }
        await("/v1/examples/" + id, r -> id.equals(r.path("id").asText()));
        return id;
    }
}
