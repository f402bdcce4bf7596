package dev.sqloop.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.testkit.llm.PromptCache;
import dev.sqloop.testkit.llm.SimulatedBatches;
import dev.sqloop.testkit.llm.SimulatedLlm;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The Message Batches client against the simulator over real HTTP: create with the window's ids rewritten to Anthropic's
 * alphabet, retrieve until ended, read the results by their window index with cache reads priced at the batch price;
 * an expired batch answers nothing; cancel; an unknown batch refused for good.
 */
class AnthropicBatchClientIT {
    private static final LlmPrices HAIKU = new LlmPrices(1.00, 0.10, 5.00, 0.5);

    @Test
    void shouldRunAMessageBatchReadItsCachedPrefixAndCancelAnother() {
        try (SimulatedLlm llm = SimulatedLlm.start(call -> "{\"sql\":\"SELECT 1\"}")) {
            AnthropicBatchClient client = new AnthropicBatchClient(llm.anthropicBaseUrl(), "sk-ant-test", Duration.ofSeconds(10));
            BatchLines.RequestSettings settings = new BatchLines.RequestSettings("claude-haiku-4-5", 0, 256, true);
            String schema = "## Schema\n" + "CREATE TABLE t (a INT, b VARCHAR, c DATE);\n".repeat(120);
            List<ProviderBatchApi.Request> requests = List.of(
                    new ProviderBatchApi.Request("0:q-1", new LlmClient.Prompt(schema, "", "first question", false)),
                    new ProviderBatchApi.Request("1:q-2", new LlmClient.Prompt(schema, "", "second question", false)));

            llm.messageBatches().turnaround(Duration.ofHours(1));
            ProviderBatchApi.Submission submitted = client.submit("w-1", requests, settings);
            assertTrue(submitted.batchId().startsWith("msgbatch_"), submitted.toString());
            assertEquals(List.of("0-q-1", "1-q-2"), llm.messageBatches().submittedRequests().stream()
                    .map(r -> r.path("custom_id").asText()).toList(), "Anthropic allows no ':' in a custom id");
            assertEquals("ephemeral", llm.messageBatches().submittedRequests().get(0).path("params").path("system").path(0)
                    .path("cache_control").path("type").asText(), "the breakpoint goes into batches too");
            ProviderBatchApi.State pending = client.state(submitted.batchId());
            assertFalse(pending.ended());
            assertEquals("in_progress", pending.status());
            assertTrue(client.submittedAs("w-1").isEmpty(), "message batches carry no metadata to find a window by");

            llm.messageBatches().turnaround(Duration.ZERO);
            ProviderBatchApi.State done = client.state(submitted.batchId());
            assertTrue(done.ended(), done.toString());
            assertTrue(done.status().contains("succeeded 2"), done.status());
            ProviderBatch window = ProviderBatch.sealed("w-1", null, List.of(task("q-1"), task("q-2")));
            Map<String, BatchLines.LineResult> lines = ProviderBatchPoller.byWindowId(window, client.results(done));
            assertEquals(2, lines.size(), lines.toString());
            BatchLines.Answer first = (BatchLines.Answer) lines.get(ProviderBatch.customId(0, window.tasks().get(0)));
            BatchLines.Answer second = (BatchLines.Answer) lines.get(ProviderBatch.customId(1, window.tasks().get(1)));
            assertEquals("{\"sql\":\"SELECT 1\"}", second.text());
            assertEquals(0, first.usage().cachedInputTokens());
            assertTrue(first.cacheWriteTokens() >= PromptCache.MIN_TOKENS, "the first request writes the prefix: " + first);
            assertEquals(first.cacheWriteTokens(), second.usage().cachedInputTokens(), "the second reads it: " + second);
            double batched = HAIKU.cost(second.usage(), second.cacheWriteTokens(), true);
            assertEquals(HAIKU.cost(second.usage(), 0, false) / 2, batched, 1e-12, "the batch price is half the online one");
            System.out.printf("anthropic message batch: prompt %d / %d tokens, cache write %d, cache read %d; cost $%.6f / $%.6f%n",
                    first.usage().inputTokens(), second.usage().inputTokens(), first.cacheWriteTokens(), second.usage().cachedInputTokens(),
                    HAIKU.cost(first.usage(), first.cacheWriteTokens(), true), batched);

            llm.messageBatches().nextEnds(SimulatedBatches.Ending.EXPIRE);
            ProviderBatchApi.State expired = client.state(client.submit("w-2", requests, settings).batchId());
            assertTrue(expired.ended() && expired.status().contains("expired 2"), expired.status());
            assertTrue(client.results(expired).isEmpty(), "an expired request is no answer");

            llm.messageBatches().turnaround(Duration.ofHours(1));
            String other = client.submit("w-3", requests, settings).batchId();
            client.stop(other);
            ProviderBatchApi.State cancelled = client.state(other);
            assertTrue(cancelled.ended() && cancelled.status().contains("canceled 2"), cancelled.status());

            LlmRejectedException unknown = assertThrows(LlmRejectedException.class, () -> client.state("msgbatch_nope"));
            assertEquals(404, unknown.statusCode());
            assertEquals(3, llm.messageBatches().created().size());
            assertEquals(2, llm.requests().size(), "each answered request once, as a call (the expired and cancelled ones none)");
        }
    }

    private static dev.sqloop.common.message.QuestionTask task(String id) {
        return dev.sqloop.common.message.QuestionTask.create(id, "acme", "demo", "question " + id, 3, java.time.Instant.EPOCH);
    }
}
