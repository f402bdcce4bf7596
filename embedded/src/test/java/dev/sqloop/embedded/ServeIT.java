package dev.sqloop.embedded;

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

    @Test
    void shouldFinishABatchStartedBeforeARestartWithNothingLost() throws Exception {
        PostgresServer pg = PostgresServer.shared();
        DefogDatasets.loadIntoPostgres(pg, DATABASE);
        List<DefogQuestions.Question> questions = DefogQuestions.load().stream().filter(q -> q.database().equals(DATABASE)).toList();
        Map<String, String> gold = new LinkedHashMap<>();
        questions.forEach(q -> gold.put(q.question(), q.firstGold()));
        Path dataDir = Files.createTempDirectory("sqloop-serve-it-");
        try (SimulatedLlm llm = SimulatedLlm.start(new OracleResponder(gold, DemoBatch.faultMix(), "postgres", 11), 11)) {
            llm.faults().latency(Latency.lognormal(Duration.ofMillis(250), 0.3)); // slow enough to stop mid-batch
            Map<String, String> settings = new HashMap<>(Map.of(
                    "SQLOOP_DATASOURCE_RESTAURANTS_DIALECT", "postgres",
                    "SQLOOP_DATASOURCE_RESTAURANTS_URL", pg.jdbcUrl(DATABASE),
                    "SQLOOP_DATASOURCE_RESTAURANTS_USER", PostgresServer.READER,
                    "SQLOOP_DATASOURCE_RESTAURANTS_PASSWORD", PostgresServer.READER_PASSWORD,
                    "SQLOOP_LLM_BASE_URL", llm.openAiBaseUrl(),
                    "SQLOOP_LLM_MODEL", "simulated",
                    "SQLOOP_GATEWAY_PORT", Integer.toString(Ports.free())));
            StringBuilder jsonl = new StringBuilder();
            for (DefogQuestions.Question q : questions) {
                jsonl.append(JsonCodec.encodeToString(Map.of("question", q.question(), "datasource", DATABASE,
                        "clientId", "q" + q.index()))).append('\n');
            }
            Path batchFile = Files.writeString(dataDir.resolveSibling(dataDir.getFileName() + "-batch.jsonl"), jsonl);

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
                Path out = dataDir.resolveSibling(dataDir.getFileName() + "-results.jsonl");
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
            }
        }
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
