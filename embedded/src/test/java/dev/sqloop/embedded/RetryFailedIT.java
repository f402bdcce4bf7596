package dev.sqloop.embedded;

import dev.sqloop.embedded.pipeline.DemoBatch;
import dev.sqloop.embedded.pipeline.EmbeddedPipeline;
import dev.sqloop.testkit.TestDirs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.cli.GatewayClient;
import dev.sqloop.cli.Main;
import dev.sqloop.cli.SubmitCommand;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.testkit.engines.DemoWarehouse;
import dev.sqloop.testkit.llm.Fault;
import dev.sqloop.testkit.llm.OracleResponder;
import dev.sqloop.testkit.llm.SimulatedLlm;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * After an LLM outage, the failed questions run again on the real pipeline with the user's commands: the whole batch
 * fails {@code llm_unavailable} while the LLM answers 503, then {@code ./sqloop submit FILE --retry-failed --out}
 * runs exactly those again once it is back (one LLM call each, attempt 1, round 1) and the batch's counts follow to
 * 40 successes; {@code ./sqloop retry ID --wait} does the same for one question.
 */
class RetryFailedIT {
    @Test
    void shouldRunOutageFailuresAgainOnceTheLlmIsBack() throws Exception {
        Path work = TestDirs.create("sqloop-retry-it-");
        Path warehouse = DemoWarehouse.create(work.resolve("warehouse.duckdb"));
        DemoBatch batch = DemoBatch.load();
        // no injected SQL faults: every question succeeds at its first attempt once the LLM answers
        SimulatedLlm llm = SimulatedLlm.start(new OracleResponder(batch.goldByQuestion(), Map.of(Fault.NONE, 1.0), "duckdb", 7), 7);
        Map<String, String> settings = Map.of(
                "SQLOOP_DATASOURCE_DEMO_DIALECT", "duckdb",
                "SQLOOP_DATASOURCE_DEMO_URL", "jdbc:duckdb:" + warehouse.toAbsolutePath(),
                "SQLOOP_RETRY_MAX", "2",
                "SQLOOP_RETRY_INITIAL_BACKOFF", "50ms",
                "SQLOOP_RETRY_MAX_BACKOFF", "200ms");
        try (EmbeddedPipeline pipeline = EmbeddedPipeline.start(work.resolve("pipeline"), settings, llm, false)) {
            String gateway = pipeline.gatewayUrl();
            GatewayClient client = new GatewayClient(gateway, null);
            Path file = batch.writeJsonl(work.resolve("batch.jsonl"), "demo");

            llm.faults().failAlways(503, null);
            // every question failed: the waited batch's exit code says so (3), not 0
            assertEquals(Main.QUESTIONS_FAILED, Main.run(List.of("submit", file.toString(), "--gateway", gateway, "--wait")));
            String batchId = Files.readString(file.resolveSibling("batch.jsonl.sqloop-batch")).trim();
            JsonNode down = client.get("/v1/batches/" + batchId);
            assertEquals(40, down.get("byReason").path("llm_unavailable").asInt(), "the outage fails every question clearly: " + down);
            assertEquals(0, down.get("byStatus").path("succeeded").asInt());

            // one question alone, failed by the same outage
            String id = client.postJson("/v1/questions", JsonCodec.mapper().writeValueAsString(
                    Map.of("question", batch.items().get(0).question(), "datasource", "demo")), 202).get("id").asText();
            JsonNode failed = QuestionWait.awaitFinal(client, id);
            assertEquals("llm_unavailable", failed.get("reason").asText(), failed.toString());

            llm.faults().clear();
            int callsBefore = llm.requests().size();
            Path out = work.resolve("results.jsonl");
            String printed = stdout(() -> Main.run(List.of("submit", file.toString(), "--retry-failed", "--out", out.toString(),
                    "--gateway", gateway)));
            JsonNode after = JsonCodec.mapper().readTree(printed);
            System.out.printf("retry after an LLM outage: before %s, after %s, %d LLM calls%n", down.get("byReason"),
                    after.get("byReason"), llm.requests().size() - callsBefore);
            assertEquals(40, after.get("byStatus").path("succeeded").asInt(), "the batch's counts follow the retry: " + after);
            assertEquals(40, after.get("byRound").path("1").asInt(), after.toString());
            assertTrue(after.get("done").asBoolean());
            assertEquals(40, llm.requests().size() - callsBefore, "each retried question asked the LLM once: attempt 1, no repair");
            List<String> lines = Files.readAllLines(out).stream().filter(l -> !l.isBlank()).toList();
            assertEquals(40, lines.size());
            for (String line : lines) {
                JsonNode r = JsonCodec.mapper().readTree(line);
                assertEquals("first_attempt_success", r.get("reason").asText(), line);
                assertEquals(1, r.get("round").asInt(), line);
                assertEquals(1, r.get("attempts").asInt(), line);
            }
            // nothing left to retry: the command says so and succeeds
            assertEquals(0, Main.run(List.of("retry", batchId, "--batch", "--gateway", gateway)));

            // the single question, through ./sqloop retry ID --wait
            JsonNode retried = JsonCodec.mapper().readTree(stdout(() -> Main.run(List.of("retry", id, "--wait", "--gateway", gateway))));
            assertEquals("succeeded", retried.get("status").asText(), retried.toString());
            assertEquals(1, retried.get("round").asInt());
        } finally {
            llm.close();
        }
    }

    private interface Command {
        int run() throws Exception;
    }

    /** What a command printed on standard output (its exit code must be 0). */
    private static String stdout(Command command) throws Exception {
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            assertEquals(0, command.run());
        } finally {
            System.setOut(original);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }
}
