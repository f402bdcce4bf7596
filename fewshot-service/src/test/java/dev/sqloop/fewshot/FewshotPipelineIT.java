package dev.sqloop.fewshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.config.KafkaSettings;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.Execution;
import dev.sqloop.common.message.FeedbackCommand;
import dev.sqloop.common.message.Issue;
import dev.sqloop.common.message.Message;
import dev.sqloop.common.message.NlConstraints;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.runtime.KafkaClients;
import dev.sqloop.common.runtime.MicrometerStageMetrics;
import dev.sqloop.common.runtime.RunnerSettings;
import dev.sqloop.common.runtime.StageRunner;
import dev.sqloop.fewshot.schema.SchemaLinker;
import dev.sqloop.store.Embedder;
import dev.sqloop.store.ErrorFixMemory;
import dev.sqloop.store.LuceneExampleStore;
import dev.sqloop.store.StoredExample;
import dev.sqloop.testkit.EmbeddedKafka;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The three few-shot workers on a real KRaft broker through {@link KafkaClients#runner}, with the real embedding
 * model, a Lucene store on disk and a DuckDB schema.
 */
class FewshotPipelineIT {
    @TempDir
    static Path dir;
    private static EmbeddedKafka broker;
    private static KafkaSettings kafka;
    private static LuceneExampleStore store;
    private static SimpleMeterRegistry registry;
    private static final List<StageRunner<?>> runners = new ArrayList<>();
    private static final Embedder embedder = TestModel.embedder();

    @BeforeAll
    static void start() throws Exception {
        broker = EmbeddedKafka.start();
        kafka = KafkaSettings.of(broker.bootstrapServers());
        // one partition each: what a test sends is processed in order
        KafkaClients.ensureTopics(kafka, List.of(Topics.RETRIEVE_EXAMPLES, Topics.GENERATE, Topics.STATIC_VALIDATE,
                Topics.SUCCESS, Topics.FEEDBACK, Topics.RESULTS, Topics.DLQ).stream()
                .map(t -> new Topics.Spec(t, 1, false)).toList(), Duration.ofSeconds(60));
        store = LuceneExampleStore.open(dir.resolve("index"));
        registry = new SimpleMeterRegistry();
        Path warehouse = TestWarehouse.create(dir);
        FewshotConfig config = FewshotConfig.defaults();
        SchemaLinker linker = new SchemaLinker(TestWarehouse.schemaSource(warehouse), embedder, SchemaLinker.Settings.DEFAULTS, Clock.systemUTC());
        runners.add(KafkaClients.runner(new RetrieveExamplesStage(embedder, store, linker, new ConstraintExtractor(), config, new MicrometerStageMetrics(registry)),
                Topics.RETRIEVE_EXAMPLES, kafka, settings("retrieve"), registry).start());
        runners.add(KafkaClients.runner(new CaptureStage(embedder, store, config, new MicrometerStageMetrics(registry), Clock.systemUTC()),
                Topics.SUCCESS, kafka, settings("capture"), registry).start());
        runners.add(KafkaClients.runner(new FeedbackStage(embedder, store, config, Clock.systemUTC()),
                Topics.FEEDBACK, kafka, settings("feedback"), registry).start());
    }

    @AfterAll
    static void stop() {
        StageRunner.closeAll(runners);
        if (store != null) store.close();
        if (broker != null) broker.close();
    }

    private static RunnerSettings settings(String group) {
        // one record at a time: what a test sends in order is processed in order
        return RunnerSettings.defaults("fewshot-it-" + group).withMaxInFlight(1).withShutdownTimeout(Duration.ofSeconds(10));
    }

    private static QuestionTask question(String datasource, String text) {
        return QuestionTask.create("q-" + UUID.randomUUID(), "acme", datasource, text, 3, Instant.now());
    }

    @Test
    void shouldForwardAQuestionToGenerateWithExamplesLinkedSchemaAndConstraints() throws Exception {
        store.upsertAll(List.of(
                new StoredExample("shop", "How many orders did each customer place?", "SELECT customer_id, count(*) FROM orders GROUP BY customer_id", "duckdb", "seed", null),
                new StoredExample("shop", "Which toys cost less than 10?", "SELECT name FROM products WHERE category = 'toys' AND price < 10", "duckdb", "seed", null),
                new StoredExample("other", "How many orders per customer?", "SELECT 'wrong datasource'", "duckdb", "seed", null)),
                embedder.embedAll(List.of("How many orders did each customer place?", "Which toys cost less than 10?", "How many orders per customer?")));

        QuestionTask task = question("shop", "What is the number of orders per customer?");
        send(Topics.RETRIEVE_EXAMPLES.name(), task);
        QuestionTask out = await(Topics.GENERATE.name(), task.questionId());

        assertEquals("SELECT customer_id, count(*) FROM orders GROUP BY customer_id", out.examples().getFirst().sql());
        assertTrue(out.examples().stream().noneMatch(e -> e.sql().contains("wrong datasource")), "only the same datasource");
        assertTrue(out.examples().getFirst().score() >= FewshotConfig.defaults().minScore());
        // the test warehouse fits the schema token budget: the whole schema is linked, so the table the answer needs is there
        assertTrue(out.linkedSchema().tables().stream().anyMatch(t -> t.name().equals("orders")), out.linkedSchema().render());
        assertEquals(new NlConstraints("count", true, null, null, null, "orders"), out.constraints());
        assertNull(out.sql(), "the LLM writes the SQL");
        assertEquals(1, out.attempt());
    }

    @Test
    void shouldMakeACapturedSuccessAnExampleOfTheNextSimilarQuestion() throws Exception {
        String sql = "SELECT p.category, sum(oi.quantity) FROM order_items oi JOIN products p USING (product_id) GROUP BY 1";
        QuestionTask empty = question("shop-capture", "How many units were sold per product category?").withSql("SELECT 1 WHERE false", null)
                .withExecution(new Execution(List.of("x"), List.of("INTEGER"), 0, List.of(), 1));
        send(Topics.SUCCESS.name(), empty);
        QuestionTask failedFirst = question("shop-capture", "How many units were sold per product category?").withSql("SELECT p.categry FROM products p", null)
                .withIssues(List.of(Issue.of("execute", ErrorCategory.COLUMN_NOT_FOUND, "Binder Error: column \"categry\" not found")))
                .nextAttempt("Failed SQL:\nSELECT p.categry FROM products p\n\nError:\n[column_not_found] Binder Error: column \"categry\" not found\n");
        QuestionTask success = failedFirst.withSql(sql, null).withExecution(new Execution(List.of("category", "sum"), List.of("VARCHAR", "BIGINT"), 3, List.of(), 2));
        send(Topics.SUCCESS.name(), success);
        eventually(() -> store.find("shop-capture", "How many units were sold per product category?", "acme").isPresent(), "captured");
        assertEquals(sql, store.find("shop-capture", "how many units were sold per product category", "acme").orElseThrow().sql(),
                "the success with rows replaced nothing; the zero-row success was not captured");
        eventually(() -> store.countFixes() >= 1, "error-fix pair stored");
        var fixes = new ErrorFixMemory(embedder, store, 0.5).similar("shop-capture", "Binder Error: column \"categori\" not found");
        assertEquals(sql, fixes.getFirst().value().fixedSql());
        assertEquals("SELECT p.categry FROM products p", fixes.getFirst().value().failedSql());
        assertEquals("column_not_found", fixes.getFirst().value().category());

        QuestionTask next = question("shop-capture", "Total quantity sold for each category of products");
        send(Topics.RETRIEVE_EXAMPLES.name(), next);
        QuestionTask out = await(Topics.GENERATE.name(), next.questionId());
        assertEquals(List.of(sql), out.examples().stream().map(e -> e.sql()).toList());
        assertEquals(StoredExample.AUTO, out.examples().getFirst().source());
    }

    @Test
    void shouldSendARepeatedQuestionStraightToStaticValidate() throws Exception {
        String sql = "SELECT count(*) FROM orders WHERE status = 'cancelled'";
        store.upsert(new StoredExample("shop-repeat", "How many orders were cancelled?", sql, "duckdb", "seed", null),
                embedder.embed("How many orders were cancelled?"));
        double before = shortcuts("shop-repeat");

        QuestionTask repeat = question("shop-repeat", "how many orders were CANCELLED");
        send(Topics.RETRIEVE_EXAMPLES.name(), repeat);
        QuestionTask out = await(Topics.STATIC_VALIDATE.name(), repeat.questionId());
        assertEquals(sql, out.sql());
        assertEquals(1, out.attempt());
        assertTrue(out.linkedSchema().tables().stream().anyMatch(t -> t.name().equals("orders")), "context still travels for a possible repair");
        assertEquals(before + 1, shortcuts("shop-repeat"));

        QuestionTask different = question("shop-repeat", "How many orders were shipped?");
        send(Topics.RETRIEVE_EXAMPLES.name(), different);
        QuestionTask generated = await(Topics.GENERATE.name(), different.questionId());
        assertNull(generated.sql(), "a merely similar question still goes to the LLM (similarity shortcut off by default)");
        assertEquals(sql, generated.examples().getFirst().sql());
        assertTrue(read(Topics.GENERATE.name(), Duration.ofSeconds(2)).stream().noneMatch(r -> key(r).equals(repeat.questionId())),
                "the repeated question never reached generate");
    }

    @Test
    void shouldNeverCaptureAQuestionMarkedWrongThroughTheFeedbackTopic() throws Exception {
        String q = "Which customer spent the most?";
        send(Topics.FEEDBACK.name(), new FeedbackCommand(0, "fb-1", "save", "acme", "shop-feedback", q, "SELECT name FROM customers LIMIT 1", "duckdb", Instant.now()));
        eventually(() -> store.find("shop-feedback", q, "acme").isPresent(), "saved");
        assertEquals(StoredExample.MANUAL, store.find("shop-feedback", q, "acme").orElseThrow().source());

        send(Topics.FEEDBACK.name(), new FeedbackCommand(0, "fb-2", "mark-wrong", "acme", "shop-feedback", q, null, null, Instant.now()));
        eventually(() -> store.isMarkedWrong("shop-feedback", q, "acme"), "marked wrong");
        assertTrue(store.find("shop-feedback", q, "acme").isEmpty(), "mark-wrong deleted the example");

        QuestionTask again = question("shop-feedback", q).withSql("SELECT name FROM customers ORDER BY 1 LIMIT 1", null)
                .withExecution(new Execution(List.of("name"), List.of("VARCHAR"), 1, List.of(), 1));
        send(Topics.SUCCESS.name(), again);
        // a later success that is captured proves the capture worker has read past the marked one
        QuestionTask marker = question("shop-feedback", "How many customers are there?").withSql("SELECT count(*) FROM customers", null)
                .withExecution(new Execution(List.of("n"), List.of("BIGINT"), 1, List.of(), 1));
        send(Topics.SUCCESS.name(), marker);
        eventually(() -> store.find("shop-feedback", "How many customers are there?", "acme").isPresent(), "later success captured");
        assertFalse(store.find("shop-feedback", q, "acme").isPresent(), "the marked question was not captured again");
    }

    private double shortcuts(String datasource) {
        var c = registry.find(RetrieveExamplesStage.SHORTCUTS).tags("datasource", datasource, "kind", "exact").counter();
        return c == null ? 0 : c.count();
    }

    private static void send(String topic, Message message) {
        try (Producer<byte[], byte[]> p = KafkaClients.producer(kafka, "it-producer")) {
            RecordHeaders h = new RecordHeaders();
            message.headers().forEach((k, v) -> h.add(k, v.getBytes(StandardCharsets.UTF_8)));
            p.send(new ProducerRecord<>(topic, null, message.key().getBytes(StandardCharsets.UTF_8), JsonCodec.encode(message), h));
            p.flush();
        }
    }

    private static QuestionTask await(String topic, String questionId) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        try (KafkaConsumer<byte[], byte[]> c = consumer()) {
            c.subscribe(List.of(topic));
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    if (key(r).equals(questionId)) return JsonCodec.decode(r.value(), QuestionTask.class);
                }
            }
        }
        throw new AssertionError(questionId + " never arrived on " + topic);
    }

    private static List<ConsumerRecord<byte[], byte[]>> read(String topic, Duration duration) {
        List<ConsumerRecord<byte[], byte[]>> all = new ArrayList<>();
        long deadline = System.nanoTime() + duration.toNanos();
        try (KafkaConsumer<byte[], byte[]> c = consumer()) {
            c.subscribe(List.of(topic));
            while (System.nanoTime() < deadline) c.poll(Duration.ofMillis(200)).forEach(all::add);
        }
        return all;
    }

    private static KafkaConsumer<byte[], byte[]> consumer() {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "it-reader-" + UUID.randomUUID());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    private static String key(ConsumerRecord<byte[], byte[]> r) {
        return new String(r.key(), StandardCharsets.UTF_8);
    }

    private static void eventually(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) return;
            Thread.sleep(100);
        }
        throw new AssertionError("not within 60 s: " + what);
    }

}
