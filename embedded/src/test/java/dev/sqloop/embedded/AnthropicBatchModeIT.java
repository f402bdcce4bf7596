package dev.sqloop.embedded;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.cli.GatewayClient;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.message.TokenUsage;
import dev.sqloop.embedded.pipeline.DemoBatch;
import dev.sqloop.embedded.pipeline.EmbeddedPipeline;
import dev.sqloop.testkit.TestDirs;
import dev.sqloop.testkit.engines.DemoWarehouse;
import dev.sqloop.testkit.llm.OracleResponder;
import dev.sqloop.testkit.llm.SimulatedLlm;
import dev.sqloop.testkit.llm.SimulatedMessageBatches;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Provider batch mode with {@code SQLOOP_LLM_PROVIDER=anthropic} on the real pipeline (broker, DuckDB) against the
 * simulator's Message Batches over HTTP: questions and their repairs answered through message batches, one request per
 * attempt, priced at the batch discount (cache writes at 1.25x input included); a cancelled sqloop batch cancels its
 * message batch. The restart and expiry paths are the poller's, shown for OpenAI by {@link ProviderBatchModeIT}.
 */
class AnthropicBatchModeIT {
    private static final double IN = 1.00, CACHED = 0.10, OUT = 5.00, DISCOUNT = 0.5;

    @Test
    void shouldAnswerThroughMessageBatchesAndCancelOne() throws Exception {
        Path work = TestDirs.create("sqloop-anthropic-batch-it-");
        Path warehouse = DemoWarehouse.create(work.resolve("warehouse.duckdb"));
        DemoBatch demo = DemoBatch.load();
        try (SimulatedLlm llm = SimulatedLlm.start(new OracleResponder(demo.goldByQuestion(), DemoBatch.faultMix(), "duckdb", 11), 11)) {
            SimulatedMessageBatches provider = llm.messageBatches();
            Map<String, String> settings = new HashMap<>(Map.of(
                    "SQLOOP_DATASOURCE_DEMO_DIALECT", "duckdb",
                    "SQLOOP_DATASOURCE_DEMO_URL", "jdbc:duckdb:" + warehouse.toAbsolutePath(),
                    "SQLOOP_DATASOURCE_DEMO_ISOLATION", "in-process",
                    "SQLOOP_LLM_PROVIDER", "anthropic",
                    "SQLOOP_LLM_BASE_URL", llm.anthropicBaseUrl(),
                    "SQLOOP_LLM_MODEL", "simulated",
                    "SQLOOP_LLM_MODE", "batch",
                    "SQLOOP_LLM_BATCH_MAX_AGE", "1s",
                    "SQLOOP_LLM_BATCH_POLL_INTERVAL", "200ms",
                    "SQLOOP_LLM_BATCH_MAX_POLL_INTERVAL", "1s"));
            settings.putAll(Map.of("SQLOOP_LLM_PRICE_INPUT", Double.toString(IN), "SQLOOP_LLM_PRICE_CACHED_INPUT", Double.toString(CACHED),
                    "SQLOOP_LLM_PRICE_OUTPUT", Double.toString(OUT), "SQLOOP_LLM_PRICE_BATCH_DISCOUNT", Double.toString(DISCOUNT),
                    "SQLOOP_FEWSHOT_SHORTCUT_EXACT", "false"));
            int questions = 12;
            try (EmbeddedPipeline pipeline = EmbeddedPipeline.serve(work.resolve("data"), settings)) {
                GatewayClient client = new GatewayClient(pipeline.gatewayUrl(), null);
                String batchId = client.submitBatchFile(demo.writeJsonl(work.resolve("batch.jsonl"), "demo", questions)).get("batchId").asText();
                JsonNode done = ProviderBatchModeIT.awaitBatch(client, batchId);
                List<QuestionResult> results = ProviderBatchModeIT.results(client, batchId, work.resolve("results.jsonl"));
                int attempts = results.stream().mapToInt(QuestionResult::attempts).sum();
                long succeeded = results.stream().filter(QuestionResult::succeeded).count();
                TokenUsage usage = results.stream().map(QuestionResult::usage).reduce(TokenUsage.ZERO, TokenUsage::plus);
                System.out.printf("anthropic batch mode: %d questions, %d succeeded, %d attempts in %d message batches, usage %s: %s%n",
                        questions, succeeded, attempts, provider.created().size(), usage, done.get("byReason"));
                assertEquals(questions, done.get("finished").asInt(), "every question final: " + done);
                assertTrue(succeeded >= questions / 2, "most questions answered through message batches: " + done.get("byReason"));
                assertEquals(attempts, provider.submittedRequests().size(), "one message batch request per attempt");
                assertTrue(provider.created().size() > 1, "repairs went into later message batches");
                // the batch discount on every call: between the discounted price without and with every uncached token a
                // cache write (1.25x), and below the undiscounted price, which is at least twice the lower bound
                long uncached = usage.inputTokens() - usage.cachedInputTokens();
                double lower = (uncached * IN + usage.cachedInputTokens() * CACHED + usage.outputTokens() * OUT) / 1e6 * (1 - DISCOUNT);
                double upper = lower + uncached * (1.25 - 1) * IN / 1e6 * (1 - DISCOUNT);
                assertTrue(usage.inputTokens() > 0 && lower > 0, "tokens were counted: " + usage);
                assertTrue(usage.cost() >= lower - 1e-12 && usage.cost() <= upper + 1e-12,
                        "cost " + usage.cost() + " at the batch price, within [" + lower + ", " + upper + "]");

                // a cancelled sqloop batch cancels its message batch
                provider.turnaround(Duration.ofHours(1));
                int created = provider.created().size();
                String cancelled = client.submitBatchFile(demo.writeJsonl(work.resolve("cancel.jsonl"), "demo", 3)).get("batchId").asText();
                ProviderBatchModeIT.await(() -> provider.created().size() > created, "the batch's window submitted");
                String messageBatch = provider.created().get(created);
                client.delete("/v1/batches/" + cancelled, 202);
                JsonNode ended = ProviderBatchModeIT.awaitBatch(client, cancelled);
                assertEquals(3, ended.get("byReason").path("cancelled").asInt(), ended.toString());
                ProviderBatchModeIT.await(() -> provider.count(messageBatch, "canceled") > 0, "the message batch cancelled: " + provider.status(messageBatch));
            }
        }
    }
}
