package dev.sqloop.embedded.reliability;

import dev.sqloop.testkit.TestDirs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.common.SqloopHeaders;
import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.config.KafkaSettings;
import dev.sqloop.common.error.Outcomes;
import dev.sqloop.common.runtime.KafkaClients;
import dev.sqloop.testkit.Dirs;
import dev.sqloop.testkit.EmbeddedKafka;
import dev.sqloop.testkit.Ports;
import dev.sqloop.testkit.engines.DefogDatasets;
import dev.sqloop.testkit.engines.DefogQuestions;
import dev.sqloop.testkit.engines.PostgresServer;
import dev.sqloop.testkit.llm.Fault;
import dev.sqloop.testkit.llm.Faults;
import dev.sqloop.testkit.llm.Latency;
import dev.sqloop.testkit.llm.OracleResponder;
import dev.sqloop.testkit.llm.RecordedRequest;
import dev.sqloop.testkit.llm.SimulatedLlm;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * The reliability suite's outage test on the real pipeline ({@link ForkedPipeline}: each service in its own JVM as
 * {@code ./sqloop run SERVICE} starts it, a real broker, the simulated LLM over HTTP, a real PostgreSQL warehouse —
 * defog's {@code restaurants} behind the SELECT-only role — that the test stops and starts). One class, scenarios in
 * sequence on the same processes:
 *
 * <ol>
 *   <li><b>Poison</b>: on every topic a stage worker consumes, an undecodable value, valid JSON of the wrong shape and a
 *       null value; on the topics only the gateway's view or the cancellation followers read, the same. Each worker's
 *       poison is dead-lettered with reason {@code undecodable}, its topic and its stage, key, value and headers kept; so
 *       is the undecodable poison on the topics only the gateway's Kafka Streams view reads ({@code results},
 *       {@code events}, {@code batches}: stage {@code gateway-view}; a null there is a tombstone, not poison); the
 *       {@code examples} global table and the cancellation followers skip theirs; the next batch (the baseline)
 *       completes.</li>
 *   <li><b>Baseline</b>: the questions without a fault of the LLM's or the warehouse's — every LLM call is one attempt
 *       (calls = attempts: the counting below is exact) and no infrastructure retry happens. Each question's fault is
 *       fixed per base question ({@link #FAULTS}), so later batches of the same questions must end the same way.</li>
 *   <li><b>Short LLM storm</b> mid-batch (once the LLM answered the batch's first calls): for {@value #SHORT_STORM_MS} ms
 *       every LLM request fails, in turn 429 with
 *       {@code Retry-After: 1}, 500, a hang past the client's timeout, a garbage body. The generator's infrastructure
 *       budget ({@value #LLM_RETRIES} retries, backoff from {@value #LLM_BACKOFF_MS} ms: at least 1.8 s of waiting in
 *       all) outlasts the window, so every question caught ends exactly as in the baseline — same outcome, attempts no
 *       higher: a failed call is an infrastructure retry, never an attempt — and the retry counter of the generator
 *       grows by exactly the failed calls.</li>
 *   <li><b>Long LLM storm</b>: the storm on from before the batch until each of its questions is final: all end
 *       {@code llm_unavailable} at attempt 1 (nothing left "in progress"), each dead-lettered {@code retries_exhausted};
 *       the LLM back, the batch is retried ({@code POST /v1/batches/{id}/retry}) and its questions succeed as in the
 *       baseline, at round 1, the batch's counts following.</li>
 *   <li><b>Short warehouse outage</b> mid-batch (once the gateway accepted it): PostgreSQL stopped until a
 *       question of the batch meets it at the executor (the executor's retry counter moves), then started again — back
 *       well within the executor's budget ({@value #DB_RETRIES} retries from {@value #DB_BACKOFF_MS} ms: at least
 *       {@value #DB_LEAST_WAIT_MS} ms of waiting): the batch ends as the baseline.</li>
 *   <li><b>Long warehouse outage</b>: PostgreSQL down from before the batch until each question is final: all end
 *       {@code warehouse_unavailable} with attempts no higher than the baseline's, each dead-lettered
 *       {@code retries_exhausted} by the executor; started again, the batch is retried and its questions succeed.</li>
 *   <li><b>Secrets</b>: the LLM API key and the warehouse password are distinctive canaries (the reader role's real
 *       password is set to it): neither appears in any JVM's log (every incarnation), on {@code results},
 *       {@code events}, {@code dlq} (keys, values, headers), or in any question's result or trace from the API.</li>
 * </ol>
 * One summary line per scenario ({@code outage: …}) gives outcomes by reason, infrastructure retries and
 * stall/recovery seconds.
 */
class PipelineOutageIT {
    static final String PREFIX = "outage";
    static final String DATABASE = "restaurants";
    static final String LLM_KEY = "sk-canary-llm-0b9d4e71c3a8f6";
    static final String DB_PASSWORD = "pw-canary-warehouse-93e5a1f7c2";
    static final int MAX_ATTEMPTS = 3;
    static final int BATCH = 10;
    static final int SMALL = 6;
    /** The generator's LLM client gives up on a call after this long: the storm's hangs outlast it. */
    static final long LLM_TIMEOUT_MS = 1500;
    static final long HANG_MS = 3000;
    static final int LLM_RETRIES = 4;
    static final long LLM_BACKOFF_MS = 300;
    static final long LLM_MAX_BACKOFF_MS = 1500;
    /**
     * Shorter than the least the generator's budget waits (full jitter draws each delay in [cap/2, cap]: 150 + 300 + 600
     * + 750 ms = 1.8 s before the fifth try; a Retry-After of 1 s only lengthens a wait), so no question caught in it
     * can run out of retries, with 0.6 s to spare for switching the storm on and off.
     */
    static final long SHORT_STORM_MS = 1200;
    static final int DB_RETRIES = 4;
    static final long DB_BACKOFF_MS = 1000;
    static final long DB_MAX_BACKOFF_MS = 2500;
    /** The least the executor's budget waits before giving up: 500 + 1000 + 1250 + 1250 ms. */
    static final long DB_LEAST_WAIT_MS = 4000;
    static final Latency LATENCY = Latency.lognormal(Duration.ofMillis(60), 0.3);
    /** The oracle's first answer per base question (index modulo the list): half right, half one fault the loop repairs. */
    static final List<Fault> FAULTS = List.of(Fault.NONE, Fault.WRONG_COLUMN, Fault.NONE, Fault.SYNTAX_SLIP, Fault.NONE,
            Fault.KEYWORD_TYPO, Fault.NONE, Fault.WRONG_TABLE, Fault.NONE, Fault.MISSING_GROUP_BY);
    /** Topics a stage worker consumes, with the stage that must dead-letter its poison. */
    static final Map<String, String> WORKER_TOPICS = workerTopics();
    /** Topics only the gateway's Streams view or the cancellation followers read: poison there must not stop anything. */
    static final List<String> OTHER_TOPICS = List.of(Topics.RESULTS.name(), Topics.EVENTS.name(), Topics.BATCHES.name(),
            Topics.EXAMPLES.name(), Topics.CANCELLATIONS.name());
    /** Of those, the ones only the results view reads: it dead-letters what it cannot decode there (not a null: a tombstone). */
    static final List<String> VIEW_TOPICS = List.of(Topics.RESULTS.name(), Topics.EVENTS.name(), Topics.BATCHES.name());
    static final List<String> VIEW_POISONS = List.of("bytes", "shape");

    /** One batch: its questions (base index → text) and, once done, its results by base index. */
    private record Batch(String name, String id, Map<Integer, String> texts, Map<Integer, JsonNode> results, double seconds) {}

    private final List<String> summary = new ArrayList<>();

    @Test
    void shouldEndEveryQuestionClearlyThroughPoisonLlmStormsAndAWarehouseOutage() throws Exception {
        long classStart = System.nanoTime();
        Path work = TestDirs.create("sqloop-outage-it-");
        List<DefogQuestions.Question> base = DefogQuestions.load().stream().filter(q -> q.database().equals(DATABASE)).limit(BATCH).toList();
        assertEquals(BATCH, base.size(), "enough " + DATABASE + " questions");
        List<String> runs = List.of("baseline", "storm-short", "storm-long", "pg-short", "pg-long");
        Map<String, Map<Integer, String>> textsByRun = new LinkedHashMap<>();
        Map<String, String> gold = new LinkedHashMap<>();
        Map<String, Fault> faults = new HashMap<>();
        for (String run : runs) {
            Map<Integer, String> texts = new LinkedHashMap<>();
            int n = run.equals("baseline") || run.endsWith("-short") ? BATCH : SMALL;
            for (int i = 0; i < n; i++) {
                String text = base.get(i).question() + " [" + run + " " + i + "]"; // unique: LLM calls map to one question
                texts.put(i, text);
                gold.put(text, base.get(i).firstGold());
                faults.put(text, FAULTS.get(i % FAULTS.size()));
            }
            textsByRun.put(run, texts);
        }
        OracleResponder oracle = new OracleResponder(gold, Map.of(Fault.NONE, 1.0), "postgres", 7).withFaults(faults);

        try (PostgresServer pg = PostgresServer.start(); SimulatedLlm llm = SimulatedLlm.start(oracle, 7);
             EmbeddedKafka broker = EmbeddedKafka.start()) {
            DefogDatasets.loadIntoPostgres(pg, DATABASE);
            try (Connection c = pg.superuser("postgres"); Statement st = c.createStatement()) {
                // the canary is the role's real password (loopback is trusted, so any password logs in; it is sent all the same)
                st.execute("ALTER ROLE " + PostgresServer.READER + " PASSWORD '" + DB_PASSWORD + "'");
            }
            llm.faults().latency(LATENCY);
            KafkaClients.ensureTopics(KafkaSettings.of(broker.bootstrapServers()), Topics.ALL, Duration.ofSeconds(60));
            Map<String, String> env = ForkedPipeline.baseEnvironment(broker.bootstrapServers(), PREFIX, Ports.free(), work);
            env.put("SQLOOP_MAX_IN_FLIGHT", "16");
            env.put("SQLOOP_MAX_ATTEMPTS", Integer.toString(MAX_ATTEMPTS));
            env.put("SQLOOP_FEWSHOT_SHORTCUT_EXACT", "false"); // every batch asks the LLM, not a captured answer
            // every line sqloop can write is scanned for the canaries, each infrastructure retry's among them
            env.put("SQLOOP_LOG_LEVEL", "DEBUG");
            String ds = "SQLOOP_DATASOURCE_" + DATABASE.toUpperCase(Locale.ROOT);
            env.put(ds + "_DIALECT", "postgres");
            env.put(ds + "_URL", pg.jdbcUrl(DATABASE));
            env.put(ds + "_USER", PostgresServer.READER);
            env.put(ds + "_PASSWORD", DB_PASSWORD);
            env.put(ds + "_CONNECT_TIMEOUT", "1s");
            env.put("SQLOOP_LLM_BASE_URL", llm.openAiBaseUrl());
            env.put("SQLOOP_LLM_API_KEY", LLM_KEY);
            env.put("SQLOOP_LLM_MODEL", "simulated");
            env.put("SQLOOP_LLM_MAX_CONCURRENCY", "4");
            env.put("SQLOOP_LLM_TIMEOUT", LLM_TIMEOUT_MS + "ms");
            env.put("SQLOOP_RETRY_MAX", Integer.toString(LLM_RETRIES));
            env.put("SQLOOP_RETRY_INITIAL_BACKOFF", LLM_BACKOFF_MS + "ms");
            env.put("SQLOOP_RETRY_MAX_BACKOFF", LLM_MAX_BACKOFF_MS + "ms");
            Map<String, String> executor = Map.of("SQLOOP_RETRY_MAX", Integer.toString(DB_RETRIES),
                    "SQLOOP_RETRY_INITIAL_BACKOFF", DB_BACKOFF_MS + "ms", "SQLOOP_RETRY_MAX_BACKOFF", DB_MAX_BACKOFF_MS + "ms");

            ForkedPipeline pipeline = ForkedPipeline.start(PREFIX, work, env, Map.of("executor", executor));
            List<Batch> batches = new ArrayList<>();
            try {
                System.out.printf("outage: 6 service JVMs ready in %.1f s%n", (System.nanoTime() - classStart) / 1e9);
                poison(broker.bootstrapServers());
                Batch baseline = runBatch(pipeline, "baseline", textsByRun.get("baseline"));
                batches.add(baseline);
                verifyPoison(broker.bootstrapServers(), baseline);
                verifyPoisonLoggedOnce(pipeline.jvm("gateway").output());
                verifyBaseline(pipeline, llm, baseline);
                batches.addAll(shortStorm(pipeline, llm, baseline, textsByRun.get("storm-short")));
                batches.addAll(longStorm(pipeline, llm, baseline, textsByRun.get("storm-long"), broker.bootstrapServers()));
                batches.addAll(shortOutage(pipeline, pg, baseline, textsByRun.get("pg-short")));
                batches.addAll(longOutage(pipeline, pg, baseline, textsByRun.get("pg-long"), broker.bootstrapServers()));

                // the logs show the retries too: one line each, as many as the counters
                for (String[] k : new String[][] {{"generate", "generate"}, {"executor", "execute"}}) {
                    double counted = retries(pipeline, k[1]);
                    long logged = pipeline.jvm(k[0]).output().lines().filter(l -> l.contains("stage " + k[1] + ": infrastructure retry")).count();
                    assertEquals((long) counted, logged, k[0] + ": one log line per infrastructure retry");
                    summary.add(String.format(Locale.ROOT, "outage: %-16s %d infrastructure retries in all, %d log lines", k[0], (long) counted, logged));
                }
                List<String> ids = new ArrayList<>();
                for (Batch b : batches) for (JsonNode r : b.results().values()) ids.add(r.get("questionId").asText());
                List<byte[]> scanned = pipeline.scannable(broker.bootstrapServers(), ids);
                for (byte[] b : scanned) {
                    ForkedPipeline.assertNoSecret(List.of(LLM_KEY, DB_PASSWORD), new String(b, StandardCharsets.UTF_8), "results/events/traces/dlq");
                }
                summary.add(String.format(Locale.ROOT, "outage: secrets      %d records, results and traces scanned: no canary", scanned.size()));
            } finally {
                pipeline.close();
            }
            int logs = pipeline.scanLogs(List.of(LLM_KEY, DB_PASSWORD), List.of("SQLOOP_LLM_API_KEY", ds + "_PASSWORD"));
            summary.add(String.format(Locale.ROOT, "outage: secrets      %d service logs (every incarnation) scanned: no canary", logs));
        }
        System.out.println("outage: summary\n" + String.join("\n", summary));
        System.out.printf("outage: class wall time %.1f s%n", (System.nanoTime() - classStart) / 1e9);
        if (!Boolean.getBoolean("sqloop.outage.keep")) Dirs.deleteQuietly(work); // kept when the test fails (or asked to), for its logs
    }

    // ------------------------------------------------------------------ poison

    private static Map<String, String> workerTopics() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(Topics.RETRIEVE_EXAMPLES.name(), "retrieve-examples");
        m.put(Topics.GENERATE.name(), "generate");
        m.put(Topics.REGENERATE.name(), "generate");
        m.put(Topics.STATIC_VALIDATE.name(), null); // the validator's stage name is its own (SchemaCheck.STAGE)
        m.put(Topics.EXECUTE.name(), "execute");
        m.put(Topics.REPAIR_FEEDBACK.name(), "repair");
        m.put(Topics.SUCCESS.name(), "capture");
        m.put(Topics.FEEDBACK.name(), "feedback");
        m.put(Topics.EXAMPLE_COMMANDS.name(), "example-commands");
        return m;
    }

    /** The three poisons, by key suffix: bytes no JSON parser takes, JSON of no message's shape, no value at all. */
    private static Map<String, byte[]> poisons() {
        Map<String, byte[]> m = new LinkedHashMap<>();
        m.put("bytes", new byte[] {0, (byte) 0xff, '{', 'n', 'o', 't', ' ', 'j', 's', 'o', 'n'});
        m.put("shape", "{\"hello\":[\"world\"]}".getBytes(StandardCharsets.UTF_8)); // none of the message's required fields
        m.put("null", null);
        return m;
    }

    private static void poison(String bootstrap) throws Exception {
        Map<String, Object> props = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            List<String> topics = new ArrayList<>(WORKER_TOPICS.keySet());
            topics.addAll(OTHER_TOPICS);
            for (String topic : topics) {
                for (Map.Entry<String, byte[]> e : poisons().entrySet()) {
                    ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, ("poison-" + topic + "-" + e.getKey()).getBytes(StandardCharsets.UTF_8), e.getValue());
                    r.headers().add("origin", "PipelineOutageIT".getBytes(StandardCharsets.UTF_8));
                    p.send(r).get();
                }
            }
        }
    }

    /** Every worker's poison is a dead letter with reason undecodable, its own topic and stage, key and value kept. */
    private void verifyPoison(String bootstrap, Batch after) throws Exception {
        Map<String, ConsumerRecord<byte[], byte[]>> byKey = new HashMap<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        int expected = WORKER_TOPICS.size() * poisons().size() + VIEW_TOPICS.size() * VIEW_POISONS.size();
        while (true) {
            for (ConsumerRecord<byte[], byte[]> r : ForkedPipeline.readAll(bootstrap, Topics.DLQ.name())) {
                if (r.key() != null && new String(r.key(), StandardCharsets.UTF_8).startsWith("poison-")) {
                    ConsumerRecord<byte[], byte[]> previous = byKey.put(new String(r.key(), StandardCharsets.UTF_8), r);
                    assertTrue(previous == null || previous.offset() == r.offset(), "one dead letter per poison record: " + r);
                }
            }
            if (byKey.size() >= expected || System.nanoTime() > deadline) break;
            byKey.clear();
            Thread.sleep(500);
        }
        Map<String, String> stages = new TreeMap<>();
        for (Map.Entry<String, String> t : WORKER_TOPICS.entrySet()) {
            for (Map.Entry<String, byte[]> p : poisons().entrySet()) {
                String key = "poison-" + t.getKey() + "-" + p.getKey();
                ConsumerRecord<byte[], byte[]> r = byKey.get(key);
                assertTrue(r != null, "a dead letter for " + key + "; got " + byKey.keySet());
                assertEquals(t.getKey(), header(r, SqloopHeaders.ERROR_TOPIC), key);
                assertEquals("undecodable", header(r, SqloopHeaders.ERROR_REASON), key);
                String stage = header(r, SqloopHeaders.ERROR_STAGE);
                if (t.getValue() != null) assertEquals(t.getValue(), stage, key);
                assertTrue(stage != null && !stage.isBlank(), key + " names its stage");
                assertEquals("PipelineOutageIT", header(r, "origin"), key + " keeps its headers");
                if (p.getValue() == null) assertTrue(r.value() == null, key + " stays a null value");
                else assertTrue(java.util.Arrays.equals(p.getValue(), r.value()), key + " keeps its value");
                stages.merge(stage, "1", (a, b) -> Integer.toString(Integer.parseInt(a) + 1));
            }
        }
        for (String topic : VIEW_TOPICS) {
            for (String poison : VIEW_POISONS) {
                String key = "poison-" + topic + "-" + poison;
                ConsumerRecord<byte[], byte[]> r = byKey.get(key);
                assertTrue(r != null, "the results view dead-letters " + key + "; got " + byKey.keySet());
                assertEquals(topic, header(r, SqloopHeaders.ERROR_TOPIC), key);
                assertEquals("undecodable", header(r, SqloopHeaders.ERROR_REASON), key);
                assertEquals("gateway-view", header(r, SqloopHeaders.ERROR_STAGE), key);
                assertEquals("PipelineOutageIT", header(r, "origin"), key + " keeps its headers");
                assertTrue(java.util.Arrays.equals(poisons().get(poison), r.value()), key + " keeps its value");
                stages.merge("gateway-view", "1", (a, b) -> Integer.toString(Integer.parseInt(a) + 1));
            }
        }
        for (String k : byKey.keySet()) {
            assertTrue(WORKER_TOPICS.keySet().stream().anyMatch(t -> k.startsWith("poison-" + t + "-"))
                    || VIEW_TOPICS.stream().anyMatch(t -> VIEW_POISONS.stream().anyMatch(p -> k.equals("poison-" + t + "-" + p))),
                    "no other dead letter (a null is a tombstone; examples and cancellations skip theirs): " + k);
        }
        assertEquals(expected, byKey.size(), "one dead letter per undecodable poison record: " + byKey.keySet());
        line("poison", "%d dead letters, all undecodable, by stage %s (+%d poison records on %s skipped or tombstones, nothing stopped); "
                + "the next batch: %d/%d final in %.1f s", byKey.size(), stages,
                OTHER_TOPICS.size() * poisons().size() - VIEW_TOPICS.size() * VIEW_POISONS.size(),
                OTHER_TOPICS, after.results().size(), after.texts().size(), after.seconds());
    }

    /**
     * The gateway's log names each record its view cannot decode in one WARN that says what became of it, and Kafka
     * Streams does not add its own line for the same record.
     */
    private static void verifyPoisonLoggedOnce(String gatewayLog) {
        List<String> lines = gatewayLog.lines().filter(l -> l.contains("results view: undecodable record")).toList();
        for (String topic : VIEW_TOPICS) {
            long deadLettered = lines.stream().filter(l -> l.contains("record " + topic + "-") && l.contains("dead-lettered")).count();
            assertEquals(VIEW_POISONS.size(), deadLettered, "one WARN per poison record on " + topic + ":\n" + String.join("\n", lines));
        }
        assertTrue(!gatewayLog.contains("Skipping record due to deserialization error"),
                "Kafka Streams' second WARN for the same record:\n" + gatewayLog.lines()
                        .filter(l -> l.contains("Skipping record")).limit(5).toList());
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String key) {
        Header h = r.headers().lastHeader(key);
        return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    // ------------------------------------------------------------------ baseline

    private void verifyBaseline(ForkedPipeline pipeline, SimulatedLlm llm, Batch baseline) throws Exception {
        int calls = 0;
        int attempts = 0;
        for (Map.Entry<Integer, JsonNode> e : baseline.results().entrySet()) {
            int c = calls(llm, baseline.texts().get(e.getKey()));
            int a = e.getValue().get("attempts").asInt();
            assertEquals(a, c, "without a storm every LLM call is one attempt: " + e.getValue());
            calls += c;
            attempts += a;
        }
        assertEquals(0.0, retries(pipeline, "generate"), "no infrastructure retry without a storm");
        assertEquals(0.0, retries(pipeline, "execute"), "no infrastructure retry without an outage");
        long succeeded = baseline.results().values().stream().filter(r -> r.get("status").asText().equals("succeeded")).count();
        assertTrue(succeeded >= BATCH - 1, "the baseline's questions succeed (the oracle's faults are repaired): " + reasons(baseline));
        line("baseline", "%d final %s, LLM calls %d = attempts %d, infrastructure retries 0, %.1f s", baseline.results().size(),
                reasons(baseline), calls, attempts, baseline.seconds());
    }

    // ------------------------------------------------------------------ LLM storms

    /** Every request fails, in turn: 429 with Retry-After 1 s, 500, a hang past the client's timeout, a garbage body. */
    private static void stormOn(SimulatedLlm llm) {
        Faults f = llm.faults();
        for (int i = 0; i < 2500; i++) {
            f.rateLimitNext(1, Duration.ofSeconds(1)).failNext(1, 500, null).slowNext(1, Duration.ofMillis(HANG_MS)).malformedNext(1);
        }
    }

    private static void stormOff(SimulatedLlm llm) {
        llm.faults().clear().latency(LATENCY);
    }

    private List<Batch> shortStorm(ForkedPipeline pipeline, SimulatedLlm llm, Batch baseline, Map<Integer, String> texts) throws Exception {
        double retriesBefore = retries(pipeline, "generate");
        long submitted = System.nanoTime();
        String id = pipeline.submit("storm-short", List.copyOf(texts.values()), DATABASE);
        // mid-batch: the LLM has answered the batch's first calls, the other first attempts and every correction to come
        awaitLlmCalls(pipeline, llm, texts, 2);
        double stormAt = (System.nanoTime() - submitted) / 1e9;
        stormOn(llm);
        Thread.sleep(SHORT_STORM_MS);
        stormOff(llm);
        Batch b = finish(pipeline, "storm-short", id, texts, submitted);
        Thread.sleep(HANG_MS); // a hung request is recorded when its hang ends
        int caught = 0;
        int failedCalls = 0;
        for (Map.Entry<Integer, JsonNode> e : b.results().entrySet()) {
            JsonNode r = e.getValue();
            JsonNode before = baseline.results().get(e.getKey());
            int failed = calls(llm, texts.get(e.getKey())) - r.get("attempts").asInt();
            assertTrue(failed >= 0, "every attempt made an LLM call: " + r);
            if (failed > 0) caught++;
            failedCalls += failed;
            assertEquals(before.get("reason").asText(), r.get("reason").asText(), "a short storm changes no outcome: " + r);
            assertTrue(r.get("attempts").asInt() <= before.get("attempts").asInt(),
                    "a storm consumes no attempt: " + r + " vs the baseline's " + before);
        }
        double retries = retries(pipeline, "generate") - retriesBefore;
        assertTrue(caught > 0, "the storm caught questions in flight");
        // the storm's faults come in turn (429, 500, hang, garbage): four failed calls met each kind
        assertTrue(failedCalls >= 4, "every kind of fault met, " + failedCalls + " failed calls");
        assertEquals(failedCalls, (int) retries, "each failed LLM call was one infrastructure retry (sqloop_stage_infrastructure_retries_total)");
        line("llm storm short", "%d ms from %.1f s into the batch: %d of %d questions caught, %d failed calls = %d infrastructure retries, "
                + "outcomes %s as the baseline, attempts no higher; batch %.1f s (baseline %.1f s)", SHORT_STORM_MS, stormAt, caught,
                texts.size(), failedCalls, (int) retries, reasons(b), b.seconds(), baseline.seconds());
        return List.of(b);
    }

    private List<Batch> longStorm(ForkedPipeline pipeline, SimulatedLlm llm, Batch baseline, Map<Integer, String> texts,
                                  String bootstrap) throws Exception {
        double retriesBefore = retries(pipeline, "generate");
        stormOn(llm);
        long stormStart = System.nanoTime();
        String id = pipeline.submit("storm-long", List.copyOf(texts.values()), DATABASE);
        Batch b;
        try {
            b = finish(pipeline, "storm-long", id, texts, stormStart);
        } finally {
            stormOff(llm);
        }
        double stormSeconds = (System.nanoTime() - stormStart) / 1e9;
        for (JsonNode r : b.results().values()) {
            assertEquals("failed", r.get("status").asText(), r.toString());
            assertEquals(Outcomes.LLM_UNAVAILABLE, r.get("reason").asText(), "a storm past the budget ends clearly: " + r);
            assertEquals(1, r.get("attempts").asInt(), "infrastructure retries are no attempt: " + r);
        }
        double retries = retries(pipeline, "generate") - retriesBefore;
        assertEquals(texts.size() * LLM_RETRIES, (int) retries, "each question spent its whole budget, no more");
        int exhausted = exhausted(bootstrap, b, "generate");

        long back = System.nanoTime();
        double beforeRecovery = retries(pipeline, "generate");
        Batch after = retried(pipeline, b, Outcomes.LLM_UNAVAILABLE, back);
        assertSameAsBaseline(after, baseline);
        assertEquals(beforeRecovery, retries(pipeline, "generate"), "the LLM back, its calls succeed at once");
        line("llm storm long", "%.1f s until all %d questions final: %s, attempts 1, %d infrastructure retries (%d each), %d dead letters "
                        + "retries_exhausted; the LLM back, the batch retried (POST /v1/batches/{id}/retry): %s in %.1f s", stormSeconds, texts.size(), reasons(b),
                (int) retries, LLM_RETRIES, exhausted, reasons(after), after.seconds());
        return List.of(b, after);
    }

    // ------------------------------------------------------------------ warehouse outage

    private List<Batch> shortOutage(ForkedPipeline pipeline, PostgresServer pg, Batch baseline, Map<Integer, String> texts)
            throws Exception {
        double retriesBefore = retries(pipeline, "execute");
        long submitted = System.nanoTime();
        String id = pipeline.submit("pg-short", List.copyOf(texts.values()), DATABASE);
        // mid-batch: the batch accepted and on its way, none of it past the executor yet. The stop itself takes ~1 s: begun
        // any later (once the LLM answered, once a result was final) it sometimes took effect after all but one question,
        // or all, of a batch this small had passed the executor.
        double at = (System.nanoTime() - submitted) / 1e9;
        long down = System.nanoTime();
        pg.stop();
        double caughtAfter;
        try {
            // down until a question of the batch meets the outage at the executor (its retry counter moves), then started
            // again at once: well inside that question's budget
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (retries(pipeline, "execute") == retriesBefore) {
                assertTrue(System.nanoTime() < deadline, "no question of the batch met the outage" + pipeline.logsOfRunning());
                Thread.sleep(20);
            }
            caughtAfter = (System.nanoTime() - down) / 1e9;
        } finally {
            pg.restart();
        }
        double outage = (System.nanoTime() - down) / 1e9;
        assertTrue(outage - caughtAfter < DB_LEAST_WAIT_MS / 1000.0, String.format(Locale.ROOT,
                "PostgreSQL back %.1f s after the first question met the outage: within its budget's least wait", outage - caughtAfter));
        Batch b = finish(pipeline, "pg-short", id, texts, submitted);
        assertSameAsBaseline(b, baseline);
        double retries = retries(pipeline, "execute") - retriesBefore;
        assertTrue(retries > 0, "the executor met the outage (sqloop_stage_infrastructure_retries_total{stage=execute})");
        line("pg short", "PostgreSQL down %.1f s, stopped %.1f s after the batch's submission (first question caught at the "
                + "executor %.1f s after the stop): %d infrastructure retries, outcomes %s as the baseline, attempts no higher; "
                + "batch %.1f s", outage, at, caughtAfter, (int) retries, reasons(b), b.seconds());
        return List.of(b);
    }

    private List<Batch> longOutage(ForkedPipeline pipeline, PostgresServer pg, Batch baseline, Map<Integer, String> texts,
                                   String bootstrap) throws Exception {
        double retriesBefore = retries(pipeline, "execute");
        long down = System.nanoTime();
        pg.stop();
        Batch b;
        try {
            b = finish(pipeline, "pg-long", pipeline.submit("pg-long", List.copyOf(texts.values()), DATABASE), texts, down);
        } finally {
            pg.restart();
        }
        double outage = (System.nanoTime() - down) / 1e9;
        for (Map.Entry<Integer, JsonNode> e : b.results().entrySet()) {
            JsonNode r = e.getValue();
            assertEquals("failed", r.get("status").asText(), r.toString());
            assertEquals(Outcomes.WAREHOUSE_UNAVAILABLE, r.get("reason").asText(), "an outage past the budget ends clearly: " + r);
            assertTrue(r.get("attempts").asInt() <= baseline.results().get(e.getKey()).get("attempts").asInt(),
                    "an outage consumes no attempt: " + r);
        }
        double retries = retries(pipeline, "execute") - retriesBefore;
        assertEquals(texts.size() * DB_RETRIES, (int) retries, "each question spent its whole budget at the executor, no more");
        int exhausted = exhausted(bootstrap, b, "execute");
        long back = System.nanoTime();
        double beforeRecovery = retries(pipeline, "execute");
        Batch after = retried(pipeline, b, Outcomes.WAREHOUSE_UNAVAILABLE, back);
        assertSameAsBaseline(after, baseline);
        // the executor's pool may still be backing off from its failed connects when the server is back: a few retries
        // then, within the budget (seen: 0 or 12, the batch 1.1–6.1 s). HikariCP backs its connection creator off up to
        // 5 s (10 ms doubling) while connects fail, so the first connection after a long outage can take that long, and a
        // getConnection waits only the connect timeout (1 s here)
        double recoveryRetries = retries(pipeline, "execute") - beforeRecovery;
        line("pg long", "PostgreSQL down %.1f s, until all %d questions final: %s, %d infrastructure retries (%d each), %d dead "
                        + "letters retries_exhausted; started again, the batch retried: %s in %.1f s (%d infrastructure retries on the "
                        + "way)", outage, texts.size(), reasons(b), (int) retries, DB_RETRIES, exhausted, reasons(after), after.seconds(),
                (int) recoveryRetries);
        return List.of(b, after);
    }

    // ------------------------------------------------------------------ helpers

    private Batch runBatch(ForkedPipeline pipeline, String name, Map<Integer, String> texts) throws Exception {
        long submitted = System.nanoTime();
        String id = pipeline.submit(name, List.copyOf(texts.values()), DATABASE);
        return finish(pipeline, name, id, texts, submitted);
    }

    /**
     * Waits until the batch is done, then checks every question has exactly one final result, final in the question API
     * too (nothing "in progress"), attempts within the budget.
     */
    private Batch finish(ForkedPipeline pipeline, String name, String id, Map<Integer, String> texts, long since) throws Exception {
        JsonNode status = pipeline.awaitDone(name, id, Duration.ofSeconds(90));
        double seconds = (System.nanoTime() - since) / 1e9;
        assertEquals(texts.size(), status.get("finished").asInt(), name + ": every question final: " + status);
        Map<String, Integer> indexByText = new HashMap<>();
        texts.forEach((i, t) -> indexByText.put(t, i));
        Map<Integer, JsonNode> byIndex = new TreeMap<>();
        for (JsonNode r : pipeline.results(name, id).values()) {
            Integer i = indexByText.get(r.get("question").asText());
            assertTrue(i != null, name + ": a result for a question of the batch: " + r);
            assertTrue(byIndex.put(i, r) == null, name + ": one result per question: " + r);
            int attempts = r.get("attempts").asInt();
            assertTrue(attempts >= 1 && attempts <= MAX_ATTEMPTS, name + ": attempts within the budget: " + r);
            JsonNode q = pipeline.client().getPatiently("/v1/questions/" + r.get("questionId").asText(), Duration.ofSeconds(30));
            assertTrue(List.of("succeeded", "failed").contains(q.get("status").asText()), name + ": final, not in progress: " + q);
        }
        assertEquals(texts.size(), byIndex.size(), name + ": every question has its final result in the API");
        System.out.printf("outage: batch %s done in %.1f s: %s%n", name, seconds, status.get("byReason"));
        return new Batch(name, id, texts, byIndex, seconds);
    }

    /**
     * The outage over, the batch's failures run again as a user would ({@code POST /v1/batches/{id}/retry}, what
     * {@code ./sqloop retry ID --batch} sends): every question of the batch, failed for {@code reason}, at round 1; the
     * batch is done again once round 1 has all of them, each question once, final, its result from round 1.
     */
    private Batch retried(ForkedPipeline pipeline, Batch failed, String reason, long since) throws Exception {
        JsonNode accepted = pipeline.client().postJson("/v1/batches/" + failed.id() + "/retry", "", 202);
        assertEquals(failed.texts().size(), accepted.get("retried").asInt(), "every outage failure is retried: " + accepted);
        assertEquals(failed.texts().size(), accepted.get("byReason").path(reason).asInt(), accepted.toString());
        assertEquals(1, accepted.get("round").asInt());
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        JsonNode status;
        while ((status = pipeline.status(failed.id())).path("byRound").path("1").asInt() < failed.texts().size()) {
            assertTrue(System.nanoTime() < deadline, failed.name() + " retried: round 1 never ended: " + status);
            Thread.sleep(100);
        }
        Batch after = finish(pipeline, failed.name(), failed.id(), failed.texts(), since);
        for (JsonNode r : after.results().values()) assertEquals(1, r.path("round").asInt(), "the retry's result replaced the outage's: " + r);
        return new Batch(failed.name() + "-retried", after.id(), after.texts(), after.results(), after.seconds());
    }

    /** Each of the batch's questions is one dead letter {@code retries_exhausted} from {@code stage}; answers how many. */
    private static int exhausted(String bootstrap, Batch b, String stage) {
        Map<String, Integer> byQuestion = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : ForkedPipeline.readAll(bootstrap, Topics.DLQ.name())) {
            String question = header(r, SqloopHeaders.QUESTION_ID);
            if (question != null && b.results().values().stream().anyMatch(x -> x.get("questionId").asText().equals(question))) {
                assertEquals("retries_exhausted", header(r, SqloopHeaders.ERROR_REASON), "dead letter of " + question);
                assertEquals(stage, header(r, SqloopHeaders.ERROR_STAGE), "dead letter of " + question);
                byQuestion.merge(question, 1, Integer::sum);
            }
        }
        assertEquals(b.texts().size(), byQuestion.size(), b.name() + ": each question given up is a dead letter");
        assertTrue(byQuestion.values().stream().allMatch(n -> n == 1), b.name() + ": one dead letter per question: " + byQuestion);
        return byQuestion.size();
    }

    /** Waits until the LLM answered {@code n} calls for the batch's questions. */
    private static void awaitLlmCalls(ForkedPipeline pipeline, SimulatedLlm llm, Map<Integer, String> texts, int n) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (texts.values().stream().mapToInt(t -> calls(llm, t)).sum() < n) {
            assertTrue(System.nanoTime() < deadline, "the batch never reached the LLM" + pipeline.logsOfRunning());
            Thread.sleep(10);
        }
    }

    /** Same outcome per base question as the baseline, attempts no higher. */
    private static void assertSameAsBaseline(Batch b, Batch baseline) {
        for (Map.Entry<Integer, JsonNode> e : b.results().entrySet()) {
            JsonNode r = e.getValue();
            JsonNode before = baseline.results().get(e.getKey());
            assertEquals(before.get("reason").asText(), r.get("reason").asText(), b.name() + " ends as the baseline: " + r);
            assertTrue(r.get("attempts").asInt() <= before.get("attempts").asInt(), b.name() + ": attempts no higher than the baseline's: " + r);
        }
    }

    private static double retries(ForkedPipeline pipeline, String stage) throws Exception {
        String kind = switch (stage) {
            case "generate" -> "generate";
            case "execute" -> "executor";
            default -> throw new IllegalArgumentException(stage);
        };
        return pipeline.metric(kind, "sqloop_stage_infrastructure_retries_total", "stage=\"" + stage + "\"");
    }

    /** LLM requests for one question (its text is unique to its batch). */
    private static int calls(SimulatedLlm llm, String text) {
        String t = squash(text);
        int n = 0;
        for (RecordedRequest r : llm.requests()) if (squash(r.call().lastUser()).contains(t)) n++;
        return n;
    }

    private static String squash(String s) {
        return s == null ? "" : s.replaceAll("\\s+", " ").strip().toLowerCase(Locale.ROOT);
    }

    private static Map<String, Long> reasons(Batch b) {
        Map<String, Long> m = new TreeMap<>();
        for (JsonNode r : b.results().values()) m.merge(r.get("reason").asText(), 1L, Long::sum);
        return m;
    }

    private void line(String scenario, String format, Object... args) {
        String l = String.format(Locale.ROOT, "outage: %-16s ", scenario) + String.format(Locale.ROOT, format, args);
        summary.add(l);
        System.out.println(l);
    }
}
