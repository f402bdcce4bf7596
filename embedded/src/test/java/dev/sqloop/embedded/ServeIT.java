package dev.sqloop.embedded;

import dev.sqloop.testkit.TestDirs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.cli.GatewayClient;
import dev.sqloop.cli.SubmitCommand;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.testkit.Ports;
import dev.sqloop.testkit.engines.DefogDatasets;
import dev.sqloop.testkit.engines.DefogQuestions;
import dev.sqloop.testkit.engines.PostgresServer;
import dev.sqloop.testkit.llm.Latency;
import dev.sqloop.testkit.llm.OracleResponder;
import dev.sqloop.testkit.llm.SimulatedLlm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * {@code ./sqloop serve} on a PostgreSQL datasource (a defog database behind a SELECT-only role) and the simulated
 * LLM: stopped in the middle of a batch and started again on the same data directory, the batch completes with
 * every question answered once.
 */
class ServeIT {
    private static final String DATABASE = "restaurants";
    /** An LLM key that must never leave the process's configuration: not in a log line, result, trace or dead letter. */
    private static final String CANARY = "sk-sqloop-canary-5f1d9e77";

    @Test
    void shouldFinishABatchStartedBeforeARestartWithNothingLost() throws Exception {
        PostgresServer pg = PostgresServer.shared();
        DefogDatasets.loadIntoPostgres(pg, DATABASE);
        List<DefogQuestions.Question> questions = DefogQuestions.load().stream().filter(q -> q.database().equals(DATABASE)).toList();
        Map<String, String> gold = new LinkedHashMap<>();
        questions.forEach(q -> gold.put(q.question(), q.firstGold()));
        Path dataDir = TestDirs.create("sqloop-serve-it-");
        Path files = TestDirs.create("sqloop-serve-it-files-"); // the batch and its results, outside serve's own folder
        ch.qos.logback.classic.Logger root = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> logs = new ch.qos.logback.core.read.ListAppender<>();
        logs.start();
        root.addAppender(logs);
        // every line sqloop can write, debug included, is scanned
        ch.qos.logback.classic.Logger sqloop = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger("dev.sqloop");
        ch.qos.logback.classic.Level level = sqloop.getLevel();
        sqloop.setLevel(ch.qos.logback.classic.Level.DEBUG);
        try (SimulatedLlm llm = SimulatedLlm.start(new OracleResponder(gold, DemoBatch.faultMix(), "postgres", 11), 11)) {
            llm.faults().latency(Latency.lognormal(Duration.ofMillis(250), 0.3)); // slow enough to stop mid-batch
            Map<String, String> settings = new HashMap<>(Map.of(
                    "SQLOOP_DATASOURCE_RESTAURANTS_DIALECT", "postgres",
                    "SQLOOP_DATASOURCE_RESTAURANTS_URL", pg.jdbcUrl(DATABASE),
                    "SQLOOP_DATASOURCE_RESTAURANTS_USER", PostgresServer.READER,
                    "SQLOOP_DATASOURCE_RESTAURANTS_PASSWORD", PostgresServer.READER_PASSWORD,
                    "SQLOOP_LLM_BASE_URL", llm.openAiBaseUrl(),
                    "SQLOOP_LLM_MODEL", "simulated",
                    "SQLOOP_LLM_API_KEY", CANARY,
                    "SQLOOP_GATEWAY_PORT", Integer.toString(Ports.free())));
            StringBuilder jsonl = new StringBuilder();
            for (DefogQuestions.Question q : questions) {
                jsonl.append(JsonCodec.encodeToString(Map.of("question", q.question(), "datasource", DATABASE,
                        "clientId", "q" + q.index()))).append('\n');
            }
            Path batchFile = Files.writeString(files.resolve("batch.jsonl"), jsonl);

            String batchId;
            int finishedBeforeStop;
            try (EmbeddedPipeline first = Serve.start(dataDir, settings)) {
                String banner = Serve.describe(first, dataDir);
                assertTrue(banner.contains("restaurants") && banner.contains("no examples yet"), banner);
                assertTrue(first.embeddedBroker(), "no SQLOOP_BOOTSTRAP_SERVERS: the broker is embedded");
                GatewayClient client = new GatewayClient(first.gatewayUrl(), null);
                batchId = client.submitBatchFile(batchFile).get("batchId").asText();
                finishedBeforeStop = awaitFinished(client, batchId, 3);
            }
            assertTrue(finishedBeforeStop < questions.size(), "stopped mid-batch: " + finishedBeforeStop + " of " + questions.size());

            try (EmbeddedPipeline second = Serve.start(dataDir, settings)) {
                GatewayClient client = new GatewayClient(second.gatewayUrl(), null);
                JsonNode done = SubmitCommand.awaitBatch(client, batchId);
                Path out = files.resolve("results.jsonl");
                SubmitCommand.download(client, batchId, out);
                List<JsonNode> results = Files.readAllLines(out).stream().filter(l -> !l.isBlank()).map(ServeIT::json).toList();
                Set<String> ids = results.stream().map(r -> r.get("questionId").asText()).collect(Collectors.toSet());
                Map<String, Long> byReason = new TreeMap<>(results.stream().collect(Collectors.groupingBy(r -> r.get("reason").asText(), Collectors.counting())));
                System.out.printf("serve restarted after %d of %d finished; after the restart: %s%n", finishedBeforeStop, questions.size(), byReason);
                assertEquals(questions.size(), done.get("finished").asInt(), "the batch completes after the restart");
                assertEquals(questions.size(), results.size(), "one result per question");
                assertEquals(questions.size(), ids.size(), "no question answered twice, none lost");
                assertTrue(byReason.getOrDefault("first_attempt_success", 0L) + byReason.getOrDefault("corrected_success", 0L)
                        >= questions.size() * 0.8, "the loop still corrects across a restart: " + byReason);

                // the LLM key is in no result, trace, dead letter or log line
                StringBuilder seen = new StringBuilder(Files.readString(out));
                for (JsonNode r : results) {
                    seen.append(client.getPatiently("/v1/questions/" + r.get("questionId").asText() + "/trace", Duration.ofSeconds(30)));
                }
                seen.append(deadLetters(second.bootstrapServers()));
                root.detachAppender(logs);
                sqloop.setLevel(level);
                for (var e : logs.list) {
                    seen.append(e.getFormattedMessage()).append('\n');
                    if (e.getThrowableProxy() != null) seen.append(e.getThrowableProxy().getMessage()).append('\n');
                }
                assertTrue(logs.list.size() > 0, "the log capture saw the run");
                assertTrue(!seen.toString().contains(CANARY), "the LLM key leaked");
                assertTrue(!seen.toString().contains(CANARY.substring(8)), "part of the LLM key leaked");
            }
        }
    }

    /** Every record on the dlq topic, keys, values and headers as text. */
    private static String deadLetters(String bootstrap) {
        Map<String, Object> props = Map.of("bootstrap.servers", bootstrap);
        StringBuilder out = new StringBuilder();
        try (var c = new org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]>(props,
                new org.apache.kafka.common.serialization.ByteArrayDeserializer(), new org.apache.kafka.common.serialization.ByteArrayDeserializer())) {
            var partitions = c.partitionsFor(dev.sqloop.common.Topics.DLQ.name()).stream()
                    .map(p -> new org.apache.kafka.common.TopicPartition(p.topic(), p.partition())).toList();
            c.assign(partitions);
            c.seekToBeginning(partitions);
            var end = c.endOffsets(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (partitions.stream().anyMatch(p -> c.position(p) < end.get(p)) && System.nanoTime() < deadline) {
                for (var r : c.poll(Duration.ofMillis(200))) {
                    if (r.value() != null) out.append(new String(r.value(), java.nio.charset.StandardCharsets.UTF_8));
                    r.headers().forEach(h -> out.append(new String(h.value(), java.nio.charset.StandardCharsets.UTF_8)));
                }
            }
        }
        return out.toString();
    }

    private static int awaitFinished(GatewayClient client, String batchId, int atLeast) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (System.nanoTime() < deadline) {
            JsonNode status = client.getPatiently("/v1/batches/" + batchId, Duration.ofSeconds(30));
            int finished = status.get("finished").asInt();
            if (finished >= atLeast) return finished;
            Thread.sleep(100);
        }
        throw new AssertionError("fewer than " + atLeast + " questions finished in 120 s");
    }

    private static JsonNode json(String line) {
        try {
            return JsonCodec.mapper().readTree(line);
        } catch (Exception e) {
            throw new AssertionError(line, e);
        }
    }
}
