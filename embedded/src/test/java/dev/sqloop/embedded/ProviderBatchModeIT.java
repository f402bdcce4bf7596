package dev.sqloop.embedded;

import dev.sqloop.embedded.pipeline.DemoBatch;
import dev.sqloop.embedded.pipeline.EmbeddedPipeline;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.cli.GatewayClient;
import dev.sqloop.cli.SubmitCommand;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.message.TokenUsage;
import dev.sqloop.testkit.TestDirs;
import dev.sqloop.testkit.engines.DemoWarehouse;
import dev.sqloop.testkit.llm.OracleResponder;
import dev.sqloop.testkit.llm.SimulatedBatches;
import dev.sqloop.testkit.llm.SimulatedLlm;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * Provider batch mode ({@code SQLOOP_LLM_MODE=batch}) on the real pipeline: a broker kept on disk, DuckDB, and the
 * simulated LLM's OpenAI Batch API over HTTP. Questions (and their repairs, in later windows) are answered through
 * provider batches at the batch discount; a generator restarted while its provider batch runs resumes polling it and
 * submits nothing twice; an expired or failed provider batch ends its questions failed with the provider's reason; a
 * cancelled sqloop batch cancels its provider batch.
 */
class ProviderBatchModeIT {
    private static final double IN = 0.40, CACHED = 0.10, OUT = 1.60, DISCOUNT = 0.5;
    private static final Duration PATIENCE = Duration.ofMinutes(3);
    private static final Duration FOREVER = Duration.ofHours(1);

    @Test
    void shouldAnswerThroughProviderBatchesAcrossARestartAndEndExpiredOnesFailed() throws Exception {
        Path work = TestDirs.create("sqloop-provider-batch-it-");
        Path warehouse = DemoWarehouse.create(work.resolve("warehouse.duckdb"));
        DemoBatch demo = DemoBatch.load();
        try (SimulatedLlm llm = SimulatedLlm.start(new OracleResponder(demo.goldByQuestion(), DemoBatch.faultMix(), "duckdb", 11), 11)) {
            SimulatedBatches provider = llm.batches();
            Map<String, String> settings = new HashMap<>(Map.of(
                    "SQLOOP_DATASOURCE_DEMO_DIALECT", "duckdb",
                    "SQLOOP_DATASOURCE_DEMO_URL", "jdbc:duckdb:" + warehouse.toAbsolutePath(),
                    "SQLOOP_DATASOURCE_DEMO_ISOLATION", "in-process",
                    "SQLOOP_LLM_BASE_URL", llm.openAiBaseUrl(),
                    "SQLOOP_LLM_MODEL", "simulated",
                    "SQLOOP_LLM_MODE", "batch",
                    "SQLOOP_LLM_BATCH_MAX_AGE", "1s",
                    "SQLOOP_LLM_BATCH_POLL_INTERVAL", "200ms",
                    "SQLOOP_LLM_BATCH_MAX_POLL_INTERVAL", "1s"));
            settings.putAll(Map.of("SQLOOP_LLM_PRICE_INPUT", Double.toString(IN), "SQLOOP_LLM_PRICE_CACHED_INPUT", Double.toString(CACHED),
                    "SQLOOP_LLM_PRICE_OUTPUT", Double.toString(OUT), "SQLOOP_LLM_PRICE_BATCH_DISCOUNT", Double.toString(DISCOUNT),
                    "SQLOOP_FEWSHOT_SHORTCUT_EXACT", "false"));
            Path data = work.resolve("data");
            int questions = 12;

            // 1. a batch whose provider batch is still running when the generator stops
            provider.turnaround(FOREVER);
            String batchId;
            try (EmbeddedPipeline first = EmbeddedPipeline.serve(data, settings)) {
                GatewayClient client = new GatewayClient(first.gatewayUrl(), null);
                batchId = client.submitBatchFile(demo.writeJsonl(work.resolve("batch.jsonl"), "demo", questions)).get("batchId").asText();
                await(() -> provider.submittedLines().size() >= questions, "every first attempt in a provider batch: " + provider.submittedLines().size());
                assertEquals(0, client.get("/v1/batches/" + batchId).get("finished").asInt(), "nothing answered while the provider batch runs");
            }
            List<String> beforeRestart = provider.created();
            int linesBeforeRestart = provider.submittedLines().size();

            // 2. restarted on the same broker: the provider batch ends, and the generator picks it up where it was
            try (EmbeddedPipeline second = EmbeddedPipeline.serve(data, settings)) {
                GatewayClient client = new GatewayClient(second.gatewayUrl(), null);
                // the restarted poller finds the window on llm-batches and resumes polling it (a resubmission would show
                // below as more request lines than attempts)
                assertEquals(linesBeforeRestart, provider.submittedLines().size(), "nothing submitted again on restart");
                provider.turnaround(Duration.ZERO);
                JsonNode done = awaitBatch(client, batchId);
                List<QuestionResult> results = results(client, batchId, work.resolve("results.jsonl"));
                int attempts = results.stream().mapToInt(QuestionResult::attempts).sum();
                long succeeded = results.stream().filter(QuestionResult::succeeded).count();
                TokenUsage usage = results.stream().map(QuestionResult::usage).reduce(TokenUsage.ZERO, TokenUsage::plus);
                System.out.printf("provider batch mode: %d questions, %d succeeded, %d attempts in %d provider batches (%d before the restart): %s%n",
                        questions, succeeded, attempts, provider.created().size(), beforeRestart.size(), done.get("byReason"));
                assertEquals(questions, done.get("finished").asInt(), "every question final: " + done);
                assertTrue(succeeded >= questions / 2, "most questions answered through provider batches: " + done.get("byReason"));
                // one request line per attempt: no window submitted twice, across the restart included
                assertEquals(attempts, provider.submittedLines().size(), "one provider request per attempt");
                assertTrue(provider.created().containsAll(beforeRestart), "the batches from before the restart were resumed");
                assertTrue(provider.created().size() > beforeRestart.size(), "repairs went into later provider batches");
                double full = ((usage.inputTokens() - usage.cachedInputTokens()) * IN + usage.cachedInputTokens() * CACHED
                        + usage.outputTokens() * OUT) / 1e6;
                assertTrue(usage.inputTokens() > 0 && full > 0, "tokens were counted: " + usage);
                assertEquals(full * (1 - DISCOUNT), usage.cost(), full * 1e-9, "every call at the batch discount: " + usage);
                assertEquals(usage.cost(), client.get("/v1/batches/" + batchId).path("usage").path("cost").asDouble(), 1e-9,
                        "the batch status sums the discounted cost");

                // 3. provider batches that expire or fail end their questions failed, with the provider's reason
                for (SimulatedBatches.Ending ending : List.of(SimulatedBatches.Ending.EXPIRE, SimulatedBatches.Ending.FAIL)) {
                    provider.nextEnds(ending);
                    String id = client.postJson("/v1/questions", "{\"question\":" + JsonCodec.encodeToString(demo.items().get(0).question())
                            + ",\"datasource\":\"demo\"}", 202).get("id").asText();
                    JsonNode q = QuestionWait.awaitFinal(client, id);
                    assertEquals("failed", q.get("status").asText(), q.toString());
                    assertEquals("llm_unavailable", q.get("reason").asText(), q.toString());
                    String expected = ending == SimulatedBatches.Ending.EXPIRE ? "batch_expired" : "ended failed";
                    assertTrue(q.toString().contains(expected), ending + ": the provider's reason in the result: " + q);
                }

                // 4. a cancelled sqloop batch cancels its provider batch
                provider.turnaround(FOREVER);
                int created = provider.created().size();
                String cancelled = client.submitBatchFile(demo.writeJsonl(work.resolve("cancel.jsonl"), "demo", 3)).get("batchId").asText();
                await(() -> provider.created().size() > created, "the batch's window submitted");
                String providerBatch = provider.created().get(created);
                client.delete("/v1/batches/" + cancelled, 202);
                JsonNode ended = awaitBatch(client, cancelled);
                assertEquals(3, ended.get("byReason").path("cancelled").asInt(), ended.toString());
                await(() -> "cancelled".equals(provider.status(providerBatch)), "the provider batch cancelled: " + provider.status(providerBatch));
            }
        }
    }

    /** The batch's results, downloaded as submit does (AnthropicBatchModeIT uses these helpers too). */
    static List<QuestionResult> results(GatewayClient client, String batchId, Path file) throws Exception {
        SubmitCommand.download(client, batchId, file);
        List<QuestionResult> out = new ArrayList<>();
        for (String line : Files.readAllLines(file)) {
            if (!line.isBlank()) out.add(JsonCodec.decode(line.getBytes(StandardCharsets.UTF_8), QuestionResult.class));
        }
        return out;
    }

    static JsonNode awaitBatch(GatewayClient client, String batchId) throws Exception {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (true) {
            JsonNode s = client.getPatiently("/v1/batches/" + batchId, Duration.ofSeconds(30));
            if (s.get("done").asBoolean()) return s;
            assertTrue(System.nanoTime() < deadline, "batch not done after " + PATIENCE + ": " + s);
            Thread.sleep(250);
        }
    }

    static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "not after " + PATIENCE + ": " + what);
            Thread.sleep(100);
        }
    }
}
