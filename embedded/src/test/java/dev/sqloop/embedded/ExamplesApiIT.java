package dev.sqloop.embedded;

import dev.sqloop.testkit.TestDirs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.cli.Args;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.config.KafkaSettings;
import dev.sqloop.common.message.Execution;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.metrics.Metrics;
import dev.sqloop.common.runtime.KafkaClients;
import dev.sqloop.common.runtime.StageRunner;
import dev.sqloop.fewshot.ExampleSeeder;
import dev.sqloop.fewshot.ExampleTopic;
import dev.sqloop.fewshot.FewshotWorker;
import dev.sqloop.gateway.Gateway;
import dev.sqloop.gateway.GatewayConfig;
import dev.sqloop.store.Embedder;
import dev.sqloop.store.LuceneExampleStore;
import dev.sqloop.testkit.EmbeddedKafka;
import dev.sqloop.testkit.Ports;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Predicate;
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

/**
 * {@code /v1/examples} end to end on a real broker: the gateway's HTTP API, the fewshot workers with the real
 * all-MiniLM-L6-v2 model and a Lucene store on disk. A posted example must really be in the store (retrieved for a
 * paraphrase by the retrieve-examples worker), and a deleted one really gone from it.
 */
class ExamplesApiIT {
    private static final String KEY_A = "key-a";
    private static final String KEY_B = "key-b";
    private static final String KEY_CURATOR = "key-c";
    private static final List<String> SEEDS = List.of("How many customers are there?", "What is the total revenue per nation?",
            "Which parts are the most expensive?");
    private static final HttpClient http = HttpClient.newHttpClient();

    private static EmbeddedKafka broker;
    private static KafkaSettings kafka;
    private static LuceneExampleStore store;
    private static Gateway gateway;
    private static final List<StageRunner<?>> runners = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        broker = EmbeddedKafka.start();
        kafka = KafkaSettings.of(broker.bootstrapServers());
        KafkaClients.ensureTopics(kafka, Topics.ALL, Duration.ofSeconds(60));
        Path dir = TestDirs.create("examples-it-");
        Embedder embedder = new Embedder();
        store = LuceneExampleStore.open(dir.resolve("index"));
        // seeded before the service starts, like ./sqloop seed; the start-up sync publishes them
        Path seed = Files.writeString(dir.resolve("seed.yaml"), """
                cases:
                  - {id: c1, question: "%s", expected_sql: "SELECT count(*) FROM customer"}
                  - {id: c2, question: "%s", expected_sql: "SELECT n_name, sum(o_totalprice) FROM orders JOIN customer ON o_custkey = c_custkey JOIN nation ON c_nationkey = n_nationkey GROUP BY 1"}
                  - {id: c3, question: "%s", expected_sql: "SELECT p_name FROM part ORDER BY p_retailprice DESC LIMIT 10"}
                """.formatted(SEEDS.get(0), SEEDS.get(1), SEEDS.get(2)));
        assertEquals(3, new ExampleSeeder(embedder, store, Clock.systemUTC()).seed(seed, "demo", "duckdb").seeded());
        assertEquals(3, ExampleTopic.sync(store, kafka, Duration.ofSeconds(60)).published());
        assertEquals(0, ExampleTopic.sync(store, kafka, Duration.ofSeconds(60)).published(), "a second sync finds nothing to publish");

        // the fewshot service's own wiring over this store (no datasource configured: schema linking yields nothing)
        FewshotWorker worker = FewshotWorker.create(new EnvConfig(Map.of("SQLOOP_BOOTSTRAP_SERVERS", broker.bootstrapServers(),
                "SQLOOP_GROUP_PREFIX", "examples-it", "SQLOOP_SHUTDOWN_TIMEOUT", "10s")), new SimpleMeterRegistry(), Clock.systemUTC(),
                embedder, store);
        worker.runners().forEach(r -> runners.add(r.start()));
        gateway = startGateway(TestDirs.create("examples-gw-a-"));
    }

    @AfterAll
    static void stop() {
        if (gateway != null) gateway.close();
        StageRunner.closeAll(runners);
        if (store != null) store.close();
        if (broker != null) broker.close();
    }

    private static Gateway startGateway(Path state) throws Exception {
        Map<String, String> env = new HashMap<>(Map.of(
                "SQLOOP_BOOTSTRAP_SERVERS", broker.bootstrapServers(),
                "SQLOOP_GATEWAY_PORT", Integer.toString(Ports.free()),
                "SQLOOP_GATEWAY_API_KEYS", KEY_A + ":tenant-a," + KEY_B + ":tenant-b," + KEY_CURATOR + ":data-team",
                "SQLOOP_GATEWAY_CURATORS", "data-team",
                "SQLOOP_DATASOURCE_DEMO_DIALECT", "duckdb", "SQLOOP_DATASOURCE_SALES_DIALECT", "trino",
                "SQLOOP_GATEWAY_STATE_DIR", state.toString()));
        return Gateway.start(GatewayConfig.fromEnv(new EnvConfig(env)), Metrics.newRegistry(), Duration.ofSeconds(90));
    }

    // ------------------------------------------------------------------ the posted example is really in the store

    @Test
    void shouldListAndRetrieveAPostedExampleUntilItIsDeleted() throws Exception {
        String sql = "SELECT s_name FROM supplier JOIN nation ON s_nationkey = n_nationkey WHERE n_name = 'GERMANY'";
        HttpResponse<String> posted = send(gateway, "POST", "/v1/examples", KEY_A, "application/json", JsonCodec.encodeToString(Map.of(
                "question", "Which suppliers are located in Germany?", "datasource", "demo", "sql", sql,
                "notes", "nation names are upper case", "tags", List.of("suppliers"))));
        assertEquals(202, posted.statusCode(), posted.body());
        String id = json(posted).get("id").asText();

        JsonNode listed = awaitListed(gateway, "?datasource=demo&q=germany", KEY_A, id);
        assertEquals(sql, listed.get("sql").asText());
        assertEquals("manual", listed.get("source").asText());
        assertEquals("duckdb", listed.get("dialect").asText(), "the datasource's dialect, from the gateway's configuration");
        assertEquals(List.of("suppliers"), JsonCodec.mapper().convertValue(listed.get("tags"), List.class));
        assertEquals("nation names are upper case", json(send(gateway, "GET", "/v1/examples/" + id, KEY_A, null, null)).get("notes").asText());
        assertTrue(store.find("demo", "which suppliers are located in germany", "tenant-a").isPresent(), "in the store itself, as tenant-a's");

        String paraphrase = "List the names of German suppliers";
        assertTrue(retrievedSqls(paraphrase).contains(sql), "the retrieve-examples worker finds the posted example for a paraphrase");

        // the outside probe's request (issue 44): Javalin routed a GET carrying X-HTTP-Method-Override: DELETE to the delete
        for (String override : List.of("X-HTTP-Method-Override", "X-HTTP-Method", "X-Method-Override")) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port() + "/v1/examples/" + id))
                    .GET().header("X-API-Key", KEY_A).header(override, "DELETE").build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(400, r.statusCode(), override + ": " + r.body());
            assertEquals(override, json(r).get("field").asText(), r.body());
        }
        assertEquals(400, send(gateway, "GET", "/v1/examples/" + id + "?_method=DELETE", KEY_A, null, null).statusCode());
        Thread.sleep(1000); // a deletion produced by mistake would have reached the store by now
        assertTrue(store.find("demo", "which suppliers are located in germany", "tenant-a").isPresent(), "no override deleted it");
        assertEquals(200, send(gateway, "GET", "/v1/examples/" + id, KEY_A, null, null).statusCode());

        HttpResponse<String> deleted = send(gateway, "DELETE", "/v1/examples/" + id, KEY_A, null, null);
        assertEquals(202, deleted.statusCode(), deleted.body());
        awaitStatus(gateway, "/v1/examples/" + id, KEY_A, 404);
        assertTrue(listAll(gateway, "?datasource=demo", KEY_A).stream().noneMatch(e -> e.get("id").asText().equals(id)), "gone from the listing");
        assertTrue(store.find("demo", "Which suppliers are located in Germany?", "tenant-a").isEmpty(), "gone from the store");
        assertFalse(retrievedSqls(paraphrase).contains(sql), "no longer retrieved for the same paraphrase");
    }

    /** Asks a question through the gateway and returns the SQL of the examples the retrieve worker attached. */
    private static List<String> retrievedSqls(String question) throws Exception {
        HttpResponse<String> r = send(gateway, "POST", "/v1/questions", KEY_A, "application/json",
                JsonCodec.encodeToString(Map.of("question", question, "datasource", "demo")));
        assertEquals(202, r.statusCode(), r.body());
        String questionId = json(r).get("id").asText();
        QuestionTask forwarded = JsonCodec.decode(awaitRecord(Topics.GENERATE.name(), questionId).value(), QuestionTask.class);
        return forwarded.examples().stream().map(e -> e.sql()).toList();
    }

    // ------------------------------------------------------------------ seeds, other instances

    @Test
    void shouldListSeedsAndServeTheSameExamplesFromASecondAndARestartedInstance() throws Exception {
        for (String q : SEEDS.subList(0, 2)) {
            awaitListed(gateway, "?source=seed&prefix=" + URLEncoder.encode(q, StandardCharsets.UTF_8), KEY_B, null);
        }
        Path state = TestDirs.create("examples-gw-b-");
        Set<String> onA;
        try (Gateway second = startGateway(state)) {
            onA = ids(listAll(gateway, "", KEY_A));
            assertTrue(onA.size() >= 2, "seeds at least: " + onA);
            assertEquals(onA, ids(listAll(second, "", KEY_A)), "a fresh instance restored every example before it was ready");
            List<JsonNode> paged = new ArrayList<>();
            String cursor = null;
            do {
                JsonNode page = json(send(second, "GET", "/v1/examples?limit=1" + (cursor == null ? "" : "&cursor=" + cursor), KEY_A, null, null));
                page.get("examples").forEach(paged::add);
                cursor = page.hasNonNull("nextCursor") ? page.get("nextCursor").asText() : null;
            } while (cursor != null);
            assertEquals(onA, ids(paged), "one at a time through the cursor: every example once");
            assertEquals(onA.size(), paged.size());
        }
        try (Gateway restarted = startGateway(state)) {
            assertEquals(ids(listAll(gateway, "", KEY_A)), ids(listAll(restarted, "", KEY_A)), "the same after a restart on its old state");
        }
    }

    // ------------------------------------------------------------------ bad input

    @Test
    void shouldRefuseBadInputWithAReasonAndProduceNothing() throws Exception {
        long commandsBefore = endOffsets(Topics.EXAMPLE_COMMANDS.name());
        long examplesBefore = endOffsets(Topics.EXAMPLES.name());
        String ok = "\"question\":\"How many nations?\",\"datasource\":\"demo\"";
        record Case(String method, String path, String type, String body, int status, String error, String field) {}
        List<Case> cases = List.of(
                new Case("POST", "/v1/examples", "application/json", "{\"question\":\"\",\"datasource\":\"demo\",\"sql\":\"SELECT 1\"}", 400, "invalid_request", "question"),
                new Case("POST", "/v1/examples", "application/json", "{\"question\":\"  \",\"datasource\":\"demo\",\"sql\":\"SELECT 1\"}", 400, "invalid_request", "question"),
                new Case("POST", "/v1/examples", "application/json", "{\"question\":\"" + "x".repeat(2001) + "\",\"datasource\":\"demo\",\"sql\":\"SELECT 1\"}", 400, "invalid_request", "question"),
                new Case("POST", "/v1/examples", "application/json", "{\"datasource\":\"demo\",\"sql\":\"SELECT 1\"}", 400, "invalid_request", "question"),
                new Case("POST", "/v1/examples", "application/json", "{" + ok + ",\"sql\":\"\"}", 400, "invalid_request", "sql"),
                new Case("POST", "/v1/examples", "application/json", "{" + ok + "}", 400, "invalid_request", "sql"),
                new Case("POST", "/v1/examples", "application/json", "{" + ok + ",\"sql\":\"" + "x".repeat(20_001) + "\"}", 400, "invalid_request", "sql"),
                new Case("POST", "/v1/examples", "application/json", "{" + ok + ",\"sql\":\"DELETE FROM nation\"}", 400, "invalid_request", "sql"),
                new Case("POST", "/v1/examples", "application/json", "{" + ok + ",\"sql\":\"SELECT 1; DROP TABLE nation\"}", 400, "invalid_request", "sql"),
                // the outside probe's (issue 44): the engine ends a -- comment at \r, so a second statement hid behind it
                new Case("POST", "/v1/examples", "application/json", "{" + ok + ",\"sql\":\"SELECT 1 --\\r; DROP TABLE nation\"}", 400, "invalid_request", "sql"),
                new Case("POST", "/v1/examples", "application/json", "{" + ok + ",\"sql\":\"SELECT * FROM read_csv('/etc/passwd')\"}", 400, "invalid_request", "sql"),
                new Case("POST", "/v1/examples", "application/json", "{\"question\":\"q\",\"datasource\":\"nope\",\"sql\":\"SELECT 1\"}", 400, "invalid_request", "datasource"),
                new Case("POST", "/v1/examples", "application/json", "{" + ok + ",\"sql\":\"SELECT 1\",\"owner\":\"me\"}", 400, "invalid_request", "owner"),
                new Case("POST", "/v1/examples", "application/json", "{" + ok + ",\"sql\":\"SELECT 1\",\"tags\":[1]}", 400, "invalid_request", "tags"),
                new Case("POST", "/v1/examples", "application/json", "{" + ok + ",\"sql\":", 400, "invalid_request", null),
                new Case("POST", "/v1/examples", "application/json", "", 400, "invalid_request", null),
                new Case("POST", "/v1/examples", "application/json", "[]", 400, "invalid_request", null),
                new Case("POST", "/v1/examples", "text/plain", "{" + ok + ",\"sql\":\"SELECT 1\"}", 415, "unsupported_media_type", null),
                new Case("POST", "/v1/examples", null, "{" + ok + ",\"sql\":\"SELECT 1\"}", 415, "unsupported_media_type", null),
                new Case("GET", "/v1/examples?limit=0", null, null, 400, "invalid_request", "limit"),
                new Case("GET", "/v1/examples?limit=many", null, null, 400, "invalid_request", "limit"),
                new Case("GET", "/v1/examples?source=captured", null, null, 400, "invalid_request", "source"),
                new Case("GET", "/v1/examples?datasource=nope", null, null, 400, "invalid_request", "datasource"),
                new Case("GET", "/v1/examples?colour=red", null, null, 400, "invalid_request", "colour"),
                new Case("GET", "/v1/examples?cursor=not-a-cursor", null, null, 400, "invalid_request", "cursor"),
                new Case("GET", "/v1/examples/" + UUID.randomUUID(), null, null, 404, "not_found", null),
                new Case("DELETE", "/v1/examples/" + UUID.randomUUID(), null, null, 404, "not_found", null),
                new Case("DELETE", "/v1/examples/not-an-id", null, null, 404, "not_found", null));
        for (Case c : cases) {
            HttpResponse<String> r = send(gateway, c.method(), c.path(), KEY_A, c.type(), c.body());
            String what = c.method() + " " + c.path() + " " + (c.body() == null ? "" : c.body().substring(0, Math.min(60, c.body().length()))) + " → " + r.body();
            assertEquals(c.status(), r.statusCode(), what);
            JsonNode body = json(r);
            assertEquals(c.error(), body.get("error").asText(), what);
            assertFalse(body.get("message").asText().isBlank(), "a reason is given: " + what);
            if (c.field() != null) assertEquals(c.field(), body.get("field").asText(), what);
        }
        assertEquals(401, send(gateway, "GET", "/v1/examples", null, null, null).statusCode());
        assertEquals(401, send(gateway, "POST", "/v1/examples", "wrong", "application/json", "{" + ok + ",\"sql\":\"SELECT 1\"}").statusCode());
        Thread.sleep(500); // a command produced by mistake would be on the topic by now
        assertEquals(commandsBefore, endOffsets(Topics.EXAMPLE_COMMANDS.name()), "no refused request produced a command");
        assertEquals(examplesBefore, endOffsets(Topics.EXAMPLES.name()), "and nothing changed in the store");
    }

    // ------------------------------------------------------------------ tenants, idempotency

    @Test
    void shouldKeepATenantsPostedExampleToItselfAndLetOnlyCuratorsShareOrChangeOthers() throws Exception {
        String question = "What is the average account balance of suppliers?";
        String sql = "SELECT avg(s_acctbal) FROM supplier";
        String body = JsonCodec.encodeToString(Map.of("question", question, "datasource", "demo", "sql", sql));
        String id = json(send(gateway, "POST", "/v1/examples", KEY_A, "application/json", body)).get("id").asText();
        JsonNode mine = awaitListed(gateway, "?q=acctbal", KEY_A, id);
        assertTrue(mine.get("deletable").asBoolean(), "the creator may delete it");
        assertFalse(mine.get("shared").asBoolean());
        assertFalse(mine.has("tenant"), "the creating tenant is not shown");

        // tenant-b does not see it, cannot delete it, and its own post of the same question is its own example
        assertTrue(listAll(gateway, "?q=acctbal", KEY_B).isEmpty(), "not listed for another tenant");
        assertEquals(404, send(gateway, "GET", "/v1/examples/" + id, KEY_B, null, null).statusCode());
        long commands = endOffsets(Topics.EXAMPLE_COMMANDS.name());
        assertEquals(404, send(gateway, "DELETE", "/v1/examples/" + id, KEY_B, null, null).statusCode());
        HttpResponse<String> sharing = send(gateway, "POST", "/v1/examples", KEY_B, "application/json", JsonCodec.encodeToString(
                Map.of("question", question, "datasource", "demo", "sql", sql, "shared", true)));
        assertEquals(403, sharing.statusCode(), "only curators share: " + sharing.body());
        HttpResponse<String> respelled = send(gateway, "POST", "/v1/examples", KEY_A, "application/json", JsonCodec.encodeToString(
                Map.of("question", "  what is the AVERAGE account balance of suppliers ", "datasource", "demo", "sql", "select avg(s_acctbal)\n  from supplier;")));
        assertEquals(200, respelled.statusCode(), respelled.body());
        assertEquals(id, json(respelled).get("id").asText(), "the same question, spelt differently, is the same example");
        String seedId = listAll(gateway, "?source=seed&prefix=" + URLEncoder.encode(SEEDS.get(2), StandardCharsets.UTF_8), KEY_A).getFirst().get("id").asText();
        assertEquals(403, send(gateway, "DELETE", "/v1/examples/" + seedId, KEY_A, null, null).statusCode(), "seeds are for curators");
        assertEquals(commands, endOffsets(Topics.EXAMPLE_COMMANDS.name()), "refused and unchanged requests produced no command");

        HttpResponse<String> bs = send(gateway, "POST", "/v1/examples", KEY_B, "application/json", JsonCodec.encodeToString(
                Map.of("question", question, "datasource", "demo", "sql", "SELECT max(s_acctbal) FROM supplier")));
        assertEquals(202, bs.statusCode(), bs.body());
        String idB = json(bs).get("id").asText();
        assertFalse(idB.equals(id), "tenant-b's example of the same question is another example");
        awaitListed(gateway, "?q=acctbal", KEY_B, idB);
        assertEquals(sql, json(send(gateway, "GET", "/v1/examples/" + id, KEY_A, null, null)).get("sql").asText(), "tenant-a's unchanged");
        assertEquals(1, listAll(gateway, "?q=acctbal", KEY_A).size(), "tenant-a still sees only its own");

        // a curator sees both, shares one with every tenant, and may delete any
        assertEquals(Set.of(id, idB), ids(listAll(gateway, "?q=acctbal", KEY_CURATOR)));
        HttpResponse<String> shared = send(gateway, "POST", "/v1/examples", KEY_CURATOR, "application/json", JsonCodec.encodeToString(
                Map.of("question", question, "datasource", "demo", "sql", sql, "shared", true)));
        assertEquals(202, shared.statusCode(), shared.body());
        String sharedId = json(shared).get("id").asText();
        JsonNode seenByB = awaitListed(gateway, "?q=acctbal", KEY_B, sharedId);
        assertTrue(seenByB.get("shared").asBoolean());
        assertFalse(seenByB.get("deletable").asBoolean(), "a shared example is for curators to change");
        assertEquals(403, send(gateway, "DELETE", "/v1/examples/" + sharedId, KEY_B, null, null).statusCode());
        awaitListed(gateway, "?q=acctbal", KEY_A, sharedId);

        assertEquals(202, send(gateway, "DELETE", "/v1/examples/" + seedId, KEY_CURATOR, null, null).statusCode(), "a curator may");
        awaitStatus(gateway, "/v1/examples/" + seedId, KEY_A, 404);
        for (String each : List.of(id, idB, sharedId)) {
            assertEquals(202, send(gateway, "DELETE", "/v1/examples/" + each, KEY_CURATOR, null, null).statusCode());
            awaitStatus(gateway, "/v1/examples/" + each, KEY_CURATOR, 404);
        }
    }

    /**
     * The outside probe's poisoning: tenant-a posts an example for a question tenant-b's run captured. Before, the post
     * replaced tenant-b's capture and the repeat-question shortcut served tenant-a's SQL to tenant-b without an LLM call.
     */
    @Test
    void shouldNeverLetOneTenantsExampleAnswerAnotherTenantsQuestion() throws Exception {
        String question = "Which region has the most suppliers?";
        String bSql = "SELECT r_name, count(*) AS suppliers FROM supplier JOIN nation ON s_nationkey = n_nationkey "
                + "JOIN region ON n_regionkey = r_regionkey GROUP BY r_name ORDER BY suppliers DESC LIMIT 1";
        String poison = "SELECT 'ANTARCTICA' AS r_name, 999 AS suppliers";
        QuestionTask success = QuestionTask.create("q-" + UUID.randomUUID(), "tenant-b", "demo", question, 3, Instant.now())
                .withSql(bSql, null).withExecution(new Execution(List.of("r_name", "suppliers"), List.of("VARCHAR", "BIGINT"), 1, List.of(), 3));
        try (Producer<byte[], byte[]> p = KafkaClients.producer(kafka, "it-success")) {
            p.send(new ProducerRecord<>(Topics.SUCCESS.name(), success.key().getBytes(StandardCharsets.UTF_8), JsonCodec.encode(success))).get();
        }
        String prefix = "?prefix=" + URLEncoder.encode(question, StandardCharsets.UTF_8);
        JsonNode captured = awaitListed(gateway, prefix, KEY_B, null);
        assertEquals("auto", captured.get("source").asText(), "a captured success is published and listed to its tenant");
        assertTrue(captured.get("deletable").asBoolean(), "tenant-b's own capture");
        String capturedId = captured.get("id").asText();

        // tenant-a cannot see, replace or delete tenant-b's capture
        assertTrue(listAll(gateway, prefix, KEY_A).isEmpty(), "not listed for tenant-a");
        assertEquals(404, send(gateway, "GET", "/v1/examples/" + capturedId, KEY_A, null, null).statusCode());
        assertEquals(404, send(gateway, "DELETE", "/v1/examples/" + capturedId, KEY_A, null, null).statusCode());
        HttpResponse<String> posted = send(gateway, "POST", "/v1/examples", KEY_A, "application/json",
                JsonCodec.encodeToString(Map.of("question", question, "datasource", "demo", "sql", poison)));
        assertEquals(202, posted.statusCode(), posted.body());
        String poisonId = json(posted).get("id").asText();
        assertFalse(poisonId.equals(capturedId), "tenant-a's post is its own example, not a replacement of tenant-b's");
        awaitListed(gateway, prefix, KEY_A, poisonId);
        assertEquals(bSql, json(send(gateway, "GET", "/v1/examples/" + capturedId, KEY_B, null, null)).get("sql").asText(), "tenant-b's unchanged");
        assertEquals(Set.of(capturedId), ids(listAll(gateway, prefix, KEY_B)), "tenant-b lists only its own");

        // tenant-b asks: its own capture answers (shortcut), tenant-a's SQL is neither the answer nor in the prompt
        QuestionTask forB = ask(KEY_B, question, Topics.STATIC_VALIDATE.name());
        assertEquals(bSql, forB.sql(), "tenant-b's repeat question is answered from tenant-b's own example");
        assertTrue(forB.examples().stream().noneMatch(e -> e.sql().contains("ANTARCTICA")), "not in tenant-b's prompt: " + forB.examples());
        QuestionTask paraphraseB = ask(KEY_B, "Which region has the largest number of suppliers?", Topics.GENERATE.name());
        assertTrue(paraphraseB.examples().stream().noneMatch(e -> e.sql().contains("ANTARCTICA")), "nor for a paraphrase: " + paraphraseB.examples());
        assertTrue(paraphraseB.examples().stream().anyMatch(e -> e.sql().equals(bSql)), "tenant-b's own example is retrieved: " + paraphraseB.examples());

        // the other direction: tenant-a gets its own example, never tenant-b's
        QuestionTask forA = ask(KEY_A, question, Topics.STATIC_VALIDATE.name());
        assertEquals(poison, forA.sql(), "tenant-a's own example answers tenant-a");
        QuestionTask paraphraseA = ask(KEY_A, "Which region has the largest number of suppliers?", Topics.GENERATE.name());
        assertTrue(paraphraseA.examples().stream().noneMatch(e -> e.sql().equals(bSql)), "tenant-b's capture is not in tenant-a's prompt");

        // a third tenant (the curator asks as a tenant too) gets neither: nothing shared answers the question
        QuestionTask forC = ask(KEY_CURATOR, question, Topics.GENERATE.name());
        assertTrue(forC.examples().stream().noneMatch(e -> e.sql().equals(bSql) || e.sql().contains("ANTARCTICA")), forC.examples().toString());
        assertTrue(store.find("demo", question, "tenant-b").isPresent() && store.find("demo", question, "tenant-a").isPresent()
                && store.find("demo", question).isEmpty(), "two own examples in the store, no shared one");
    }

    @Test
    void shouldRefuseAFeedbackSaveThatPostingWouldRefuseAndProduceNothing() throws Exception {
        String asked = json(send(gateway, "POST", "/v1/questions", KEY_B, "application/json",
                JsonCodec.encodeToString(Map.of("question", "How many orders are there?", "datasource", "demo")))).get("id").asText();
        awaitStatus(gateway, "/v1/questions/" + asked, KEY_B, 200);
        long feedback = endOffsets(Topics.FEEDBACK.name());
        for (String bad : List.of("{\"action\":\"save\",\"sql\":\"DELETE FROM orders; DROP TABLE customer\"}",
                "{\"action\":\"save\",\"sql\":\"INSERT INTO orders SELECT * FROM orders\"}",
                "{\"action\":\"save\",\"sql\":\"SELECT 1 --\\r; DROP TABLE customer\"}",
                "{\"action\":\"save\",\"sql\":\"SELECT 1 --\\u2028; DROP TABLE customer\"}",
                "{\"action\":\"save\",\"sql\":123}", "{\"action\":\"save\",\"sql\":{\"a\":1}}",
                "{\"action\":\"save\",\"sql\":\"" + "x".repeat(20_001) + "\"}")) {
            HttpResponse<String> refused = send(gateway, "POST", "/v1/questions/" + asked + "/feedback", KEY_B, "application/json", bad);
            assertEquals(400, refused.statusCode(), bad.length() > 80 ? "oversized" : bad + ": " + refused.body());
            assertEquals("sql", json(refused).get("field").asText(), refused.body());
        }
        // the question has no SQL of its own yet (nothing answers it in this test): a save needs one
        assertEquals(400, send(gateway, "POST", "/v1/questions/" + asked + "/feedback", KEY_B, "application/json", "{\"action\":\"save\"}").statusCode());
        assertEquals(feedback, endOffsets(Topics.FEEDBACK.name()), "refused feedback produced nothing");
        HttpResponse<String> ok = send(gateway, "POST", "/v1/questions/" + asked + "/feedback", KEY_B, "application/json",
                "{\"action\":\"save\",\"sql\":\"SELECT count(*) FROM orders\"}");
        assertEquals(202, ok.statusCode(), ok.body());
        JsonNode saved = awaitListed(gateway, "?source=manual&prefix=" + URLEncoder.encode("How many orders are there", StandardCharsets.UTF_8), KEY_B, null);
        assertEquals("SELECT count(*) FROM orders", saved.get("sql").asText());
        assertTrue(listAll(gateway, "?source=manual&prefix=" + URLEncoder.encode("How many orders are there", StandardCharsets.UTF_8), KEY_A).isEmpty(),
                "a tenant's save is its own");
    }

    /** Asks through the gateway with {@code key} and returns the task the retrieve worker sent to {@code topic}. */
    private static QuestionTask ask(String key, String question, String topic) throws Exception {
        HttpResponse<String> r = send(gateway, "POST", "/v1/questions", key, "application/json",
                JsonCodec.encodeToString(Map.of("question", question, "datasource", "demo")));
        assertEquals(202, r.statusCode(), r.body());
        return JsonCodec.decode(awaitRecord(topic, json(r).get("id").asText()).value(), QuestionTask.class);
    }

    @Test
    void shouldKeepOneExampleWhenTheSamePostArrivesTwiceBeforeItIsApplied() throws Exception {
        String body = JsonCodec.encodeToString(Map.of("question", "Which region has the most nations?", "datasource", "demo",
                "sql", "SELECT r_name, count(*) FROM region JOIN nation ON n_regionkey = r_regionkey GROUP BY 1 ORDER BY 2 DESC LIMIT 1"));
        String first = json(send(gateway, "POST", "/v1/examples", KEY_A, "application/json", body)).get("id").asText();
        HttpResponse<String> second = send(gateway, "POST", "/v1/examples", KEY_A, "application/json", body);
        assertTrue(second.statusCode() == 202 || second.statusCode() == 200, second.body());
        assertEquals(first, json(second).get("id").asText());
        awaitListed(gateway, "?q=most%20nations", KEY_A, first);
        Thread.sleep(1000); // let the second command, if any, be applied too
        assertEquals(1, listAll(gateway, "?q=most%20nations", KEY_A).size());
        long stored = new ArrayList<String>() {{ store.forEachExample(e -> { if (e.question().contains("most nations")) add(e.question()); }); }}.size();
        assertEquals(1, stored, "one example in the store");
    }

    @Test
    void shouldAddListAndDeleteFromTheCommandLine() throws Exception {
        String url = "http://127.0.0.1:" + gateway.port();
        String added = cli("examples", "add", "--gateway", url, "--api-key", KEY_A, "--datasource", "demo",
                "--question", "How many line items were returned?", "--sql", "SELECT count(*) FROM lineitem WHERE l_returnflag = 'R'",
                "--tags", "returns,lineitem");
        assertTrue(added.startsWith("accepted: "), added);
        String id = added.substring("accepted: ".length()).strip();
        JsonNode listed = awaitListed(gateway, "?tag=returns", KEY_A, id);
        assertEquals(List.of("returns", "lineitem"), JsonCodec.mapper().convertValue(listed.get("tags"), List.class));
        String list = cli("examples", "list", "--gateway", url, "--api-key", KEY_A, "--tag", "returns");
        assertTrue(list.contains(id) && list.contains("l_returnflag") && list.contains("1 example(s)"), list);
        assertTrue(cli("examples", "delete", id, "--gateway", url, "--api-key", KEY_A).contains(id));
        awaitStatus(gateway, "/v1/examples/" + id, KEY_A, 404);
        Args.UsageException refused = org.junit.jupiter.api.Assertions.assertThrows(Args.UsageException.class, () -> cli("examples", "add",
                "--gateway", url, "--api-key", KEY_A, "--datasource", "demo", "--question", "q", "--sql", "DROP TABLE orders"));
        assertTrue(refused.getMessage().contains("400") && refused.getMessage().contains("read-only"), refused.getMessage());
    }

    /** Runs a {@code sqloop} subcommand in this JVM and returns what it printed. */
    private static String cli(String... argv) throws Exception {
        java.io.PrintStream original = System.out;
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        System.setOut(new java.io.PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            assertEquals(0, dev.sqloop.cli.Main.run(List.of(argv)));
        } finally {
            System.setOut(original);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    // ------------------------------------------------------------------ helpers

    private static HttpResponse<String> send(Gateway g, String method, String path, String key, String type, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + g.port() + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (key != null) b.header("X-API-Key", key);
        if (type != null) b.header("Content-Type", type);
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode json(HttpResponse<String> r) throws Exception {
        return JsonCodec.mapper().readTree(r.body());
    }

    /** Every example matching the query, through all pages. */
    private static List<JsonNode> listAll(Gateway g, String query, String key) throws Exception {
        List<JsonNode> out = new ArrayList<>();
        String cursor = null;
        do {
            String sep = query.isEmpty() ? "?" : "&";
            HttpResponse<String> r = send(g, "GET", "/v1/examples" + query + (cursor == null ? "" : sep + "cursor=" + cursor), key, null, null);
            assertEquals(200, r.statusCode(), r.body());
            JsonNode page = json(r);
            page.get("examples").forEach(out::add);
            cursor = page.hasNonNull("nextCursor") ? page.get("nextCursor").asText() : null;
        } while (cursor != null);
        return out;
    }

    private static Set<String> ids(List<JsonNode> examples) {
        Set<String> out = new HashSet<>();
        examples.forEach(e -> out.add(e.get("id").asText()));
        return out;
    }

    /** Polls the listing until an example (the one with {@code id}, or any when null) appears; returns it. */
    private static JsonNode awaitListed(Gateway g, String query, String key, String id) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            for (JsonNode e : listAll(g, query, key)) if (id == null || e.get("id").asText().equals(id)) return e;
            Thread.sleep(200);
        }
        throw new AssertionError("never listed: " + query + " " + id);
    }

    private static void awaitStatus(Gateway g, String path, String key, int status) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        int last = -1;
        while (System.nanoTime() < deadline) {
            last = send(g, "GET", path, key, null, null).statusCode();
            if (last == status) return;
            Thread.sleep(200);
        }
        throw new AssertionError(path + " never answered " + status + " (last " + last + ")");
    }

    private static ConsumerRecord<byte[], byte[]> awaitRecord(String topic, String key) {
        return awaitRecord(topic, r -> r.key() != null && new String(r.key(), StandardCharsets.UTF_8).equals(key));
    }

    private static ConsumerRecord<byte[], byte[]> awaitRecord(String topic, Predicate<ConsumerRecord<byte[], byte[]>> match) {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "it-reader-" + UUID.randomUUID());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            c.subscribe(List.of(topic));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) if (match.test(r)) return r;
            }
        }
        throw new AssertionError("no matching record on " + topic + " within 60 s");
    }

    private static long endOffsets(String topic) throws Exception {
        try (Admin admin = KafkaClients.admin(kafka)) {
            int partitions = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().size();
            Map<TopicPartition, OffsetSpec> req = new HashMap<>();
            for (int i = 0; i < partitions; i++) req.put(new TopicPartition(topic, i), OffsetSpec.latest());
            return admin.listOffsets(req).all().get().values().stream().mapToLong(o -> o.offset()).sum();
        }
    }
}
