package dev.sqloop.embedded;

import dev.sqloop.embedded.pipeline.DemoBatch;
import dev.sqloop.embedded.pipeline.EmbeddedPipeline;
import dev.sqloop.testkit.TestDirs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.cli.GatewayClient;
import dev.sqloop.cli.SubmitCommand;
import dev.sqloop.common.runtime.StageRunner;
import dev.sqloop.fewshot.RetrieveExamplesStage;
import dev.sqloop.testkit.engines.DemoWarehouse;
import dev.sqloop.testkit.llm.Latency;
import dev.sqloop.testkit.llm.OracleResponder;
import dev.sqloop.testkit.llm.SimulatedLlm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A question's deadline ({@code SQLOOP_QUESTION_TIMEOUT}) on the real pipeline counts from when the pipeline starts
 * the question, not from its submission: a batch held at the entry (admission control, behind the batch's own
 * questions) longer than the deadline still runs whole, while a question whose own processing outlasts the deadline
 * ends {@code deadline_exceeded}.
 */
class QuestionDeadlineIT {
    /** Long enough for the held questions' own processing on a busy CI machine, well short of the wait. */
    private static final Duration TIMEOUT = Duration.ofSeconds(8);
    private static final int QUESTIONS = 10;

    @Test
    void shouldCountTheDeadlineFromTheStartOfAQuestionNotItsWaitToBeAdmitted() throws Exception {
        Path work = TestDirs.create("sqloop-deadline-it-");
        Path warehouse = DemoWarehouse.create(work.resolve("warehouse.duckdb"));
        DemoBatch batch = DemoBatch.load();
        SimulatedLlm llm = SimulatedLlm.start(new OracleResponder(batch.goldByQuestion(), DemoBatch.faultMix(), "duckdb", 5), 5);
        llm.faults().latency(Latency.fixed(Duration.ofMillis(20)));
        Map<String, String> settings = Map.of(
                "SQLOOP_DATASOURCE_DEMO_DIALECT", "duckdb",
                "SQLOOP_DATASOURCE_DEMO_URL", "jdbc:duckdb:" + warehouse.toAbsolutePath(),
                "SQLOOP_QUESTION_TIMEOUT", TIMEOUT.toSeconds() + "s",
                // DuckDB in the executor's JVM: ten questions at once would otherwise wait for the child processes'
                // first starts (seconds each on a loaded host), which this test of the deadline's start does not measure
                "SQLOOP_DATASOURCE_DEMO_ISOLATION", "in-process",
                "SQLOOP_FEWSHOT_SHORTCUT_EXACT", "false"); // the last question repeats one: it must reach the LLM
        try (EmbeddedPipeline pipeline = EmbeddedPipeline.start(work.resolve("pipeline"), settings, llm, false)) {
            GatewayClient client = new GatewayClient(pipeline.gatewayUrl(), null);
            // the entry's admission gate held shut, as a backlog down the path would hold it
            StageRunner<?> entry = pipeline.runners().stream()
                    .filter(r -> r.stageName().equals(RetrieveExamplesStage.NAME)).findFirst().orElseThrow();
            AtomicBoolean open = new AtomicBoolean(false);
            entry.admitting(open::get);

            long submitted = System.nanoTime();
            String batchId = client.submitBatchFile(batch.writeJsonl(work.resolve("batch.jsonl"), "demo", QUESTIONS)).get("batchId").asText();
            Thread.sleep(TIMEOUT.toMillis() + 2000);
            assertEquals(0, client.getPatiently("/v1/batches/" + batchId, Duration.ofSeconds(30)).get("finished").asInt(),
                    "nothing started while the gate was shut");
            int callsWhileHeld = llm.requests().size();
            open.set(true);
            JsonNode done = SubmitCommand.awaitBatch(client, batchId);
            System.out.printf("deadline: %d questions held %d s at the entry with a %d s deadline, done %.1f s after submission: %s%n",
                    QUESTIONS, TIMEOUT.toSeconds() + 2, TIMEOUT.toSeconds(), (System.nanoTime() - submitted) / 1e9, done.get("byReason"));
            assertEquals(0, callsWhileHeld, "no LLM call before the start");
            assertEquals(QUESTIONS, done.get("finished").asInt(), "every question final");
            assertEquals(0, done.get("byReason").path("deadline_exceeded").asInt(),
                    "the wait to be started is not charged to the deadline: " + done.get("byReason"));
            assertTrue(llm.requests().size() >= QUESTIONS, "each question was worked on: " + llm.requests().size() + " LLM calls");

            // the deadline still bounds a question's own processing: an LLM answering after it has passed
            llm.faults().latency(Latency.fixed(TIMEOUT.plusSeconds(1)));
            String id = client.postJson("/v1/questions", "{\"question\":\"" + batch.items().get(0).question().replace("\"", "\\\"")
                    + "\",\"datasource\":\"demo\"}", 202).get("id").asText();
            JsonNode q = QuestionWait.awaitFinal(client, id);
            assertEquals("failed", q.get("status").asText(), q.toString());
            assertEquals("deadline_exceeded", q.get("reason").asText(), q.toString());
        } finally {
            llm.close();
        }
    }
}
