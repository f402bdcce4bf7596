package dev.sqloop.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.testkit.llm.SimulatedLlm;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The batch client against the simulated LLM's OpenAI Batch API over real HTTP: upload, create, retrieve until it ends,
 * download the output; a submission found again by its window metadata (how a restart avoids paying twice); cancel;
 * an unknown batch refused for good.
 */
class OpenAiBatchClientIT {
    @Test
    void shouldRunABatchFindItByItsWindowAndCancelAnother() throws Exception {
        try (SimulatedLlm llm = SimulatedLlm.start(call -> "{\"sql\":\"SELECT 1\"}")) {
            OpenAiBatchClient client = new OpenAiBatchClient(llm.openAiBaseUrl(), "sk-test", Duration.ofSeconds(10));
            BatchLines.RequestSettings settings = new BatchLines.RequestSettings("sim", 0, 256, true);
            String jsonl = BatchLines.jsonl(List.of(
                    BatchLines.requestLine("0:q1", new LlmClient.Prompt("system", "first question"), settings),
                    BatchLines.requestLine("1:q2", new LlmClient.Prompt("system", "second question"), settings)));
            llm.batches().turnaround(Duration.ofHours(1));
            String file = client.upload("w-1.jsonl", jsonl);
            OpenAiBatchClient.Status created = client.create(file, Map.of(ProviderBatch.WINDOW_METADATA, "w-1"));
            assertEquals("in_progress", created.status());
            assertEquals(created.id(), client.findByMetadata(ProviderBatch.WINDOW_METADATA, "w-1").orElseThrow().id());
            assertTrue(client.findByMetadata(ProviderBatch.WINDOW_METADATA, "w-2").isEmpty());

            llm.batches().turnaround(Duration.ZERO);
            OpenAiBatchClient.Status done = client.retrieve(created.id());
            assertTrue(done.ended());
            assertEquals("completed", done.status());
            Map<String, BatchLines.LineResult> lines = BatchLines.parse(client.content(done.outputFileId()));
            assertEquals(2, lines.size());
            assertEquals("{\"sql\":\"SELECT 1\"}", ((BatchLines.Answer) lines.get("1:q2")).text());
            assertTrue(((BatchLines.Answer) lines.get("0:q1")).usage().inputTokens() > 0);
            assertEquals(2, llm.requests().size(), "each line answered once, as a call");

            llm.batches().turnaround(Duration.ofHours(1));
            String other = client.create(client.upload("w-3.jsonl", jsonl), Map.of()).id();
            assertEquals("cancelled", client.cancel(other).status());
            assertEquals("cancelled", llm.batches().status(other));

            LlmRejectedException unknown = assertThrows(LlmRejectedException.class, () -> client.retrieve("batch_nope"));
            assertEquals(404, unknown.statusCode());
            assertEquals(List.of(created.id(), other), llm.batches().created());
        }
    }
}
