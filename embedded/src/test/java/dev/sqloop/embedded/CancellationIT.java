package dev.sqloop.embedded;

import dev.sqloop.embedded.pipeline.DemoBatch;
import dev.sqloop.embedded.pipeline.EmbeddedPipeline;
import dev.sqloop.testkit.TestDirs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.cli.GatewayClient;
import dev.sqloop.cli.SubmitCommand;
import dev.sqloop.testkit.engines.DemoWarehouse;
import dev.sqloop.testkit.llm.Latency;
import dev.sqloop.testkit.llm.OracleResponder;
import dev.sqloop.testkit.llm.SimulatedLlm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Cancelling on the real pipeline: a batch cancelled part way ends with every question final (the rest
 * {@code cancelled}) and the LLM is not called again; a single question cancelled while its LLM call runs ends
 * {@code cancelled} at the next stage; a finished batch cannot be cancelled.
 */
class CancellationIT {
    @Test
    void shouldEndTheRestOfACancelledBatchWithoutFurtherLlmCalls() throws Exception {
        Path work = TestDirs.create("sqloop-cancel-it-");
        Path warehouse = DemoWarehouse.create(work.resolve("warehouse.duckdb"));
        DemoBatch batch = DemoBatch.load();
        SimulatedLlm llm = SimulatedLlm.start(new OracleResponder(batch.goldByQuestion(), DemoBatch.faultMix(), "duckdb", 7), 7);
        llm.faults().latency(Latency.fixed(Duration.ofMillis(400)));
        Map<String, String> settings = Map.of(
                "SQLOOP_DATASOURCE_DEMO_DIALECT", "duckdb",
                "SQLOOP_DATASOURCE_DEMO_URL", "jdbc:duckdb:" + warehouse.toAbsolutePath(),
                "SQLOOP_LLM_MAX_CONCURRENCY", "2");
        try (EmbeddedPipeline pipeline = EmbeddedPipeline.start(work.resolve("pipeline"), settings, llm, false)) {
            GatewayClient client = new GatewayClient(pipeline.gatewayUrl(), null);
            String batchId = client.submitBatchFile(batch.writeJsonl(work.resolve("batch.jsonl"), "demo")).get("batchId").asText();
            awaitFinished(client, batchId, 3);
            JsonNode first = client.delete("/v1/batches/" + batchId, 202);
            JsonNode again = client.delete("/v1/batches/" + batchId, 202);
            assertEquals("cancelling", first.get("status").asText());
            assertEquals("cancelling", again.get("status").asText(), "cancelling twice is the same as once");
            int callsAtCancel = llm.requests().size();

            JsonNode done = SubmitCommand.awaitBatch(client, batchId);
            int callsAtDone = llm.requests().size();
            Thread.sleep(2000);
            long cancelled = done.get("byReason").path("cancelled").asLong();
            System.out.printf("batch of 40 cancelled after %d LLM calls: %s; LLM calls at cancel %d, at done %d, 2 s later %d%n",
                    callsAtCancel, done.get("byReason"), callsAtCancel, callsAtDone, llm.requests().size());
            assertEquals(40, done.get("finished").asInt(), "every question is final");
            assertTrue(cancelled >= 20, "most of the batch ended cancelled: " + done.get("byReason"));
            assertTrue(callsAtDone - callsAtCancel <= 6, "at most the calls in flight finish after the cancel: " + callsAtCancel + " -> " + callsAtDone);
            assertEquals(callsAtDone, llm.requests().size(), "no LLM call once the batch is done");
            assertEquals(409, status(() -> client.delete("/v1/batches/" + batchId, 202)), "a finished batch cannot be cancelled");

            // one question, cancelled while its first LLM call runs: it ends cancelled at the next stage
            llm.faults().latency(Latency.fixed(Duration.ofMillis(3000)));
            String id = client.postJson("/v1/questions", "{\"question\":\"" + batch.items().get(0).question().replace("\"", "\\\"")
                    + "\",\"datasource\":\"demo\"}", 202).get("id").asText();
            // the gateway knows a question once its submission is read back from Kafka (as GET does): wait for it
            client.getPatiently("/v1/questions/" + id, Duration.ofSeconds(30));
            assertEquals("cancelling", client.delete("/v1/questions/" + id, 202).get("status").asText());
            JsonNode q = QuestionWait.awaitFinal(client, id);
            assertEquals("failed", q.get("status").asText());
            assertEquals("cancelled", q.get("reason").asText(), q.toString());
            assertEquals(404, status(() -> client.delete("/v1/questions/no-such-question", 202)));
        } finally {
            llm.close();
        }
    }

    private interface Call {
        void run() throws Exception;
    }

    private static int status(Call call) throws Exception {
        try {
            call.run();
            return 202;
        } catch (dev.sqloop.cli.Args.UsageException e) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("gateway answered (\\d{3})").matcher(e.getMessage());
            if (m.find()) return Integer.parseInt(m.group(1));
            throw e;
        }
    }

    private static void awaitFinished(GatewayClient client, String batchId, int atLeast) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (client.getPatiently("/v1/batches/" + batchId, Duration.ofSeconds(30)).get("finished").asInt() < atLeast) {
            assertTrue(System.nanoTime() < deadline, "nothing finished");
            Thread.sleep(100);
        }
    }
}
