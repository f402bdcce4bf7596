package dev.sqloop.embedded;

import dev.sqloop.embedded.pipeline.DemoBatch;
import dev.sqloop.embedded.pipeline.EmbeddedPipeline;
import dev.sqloop.testkit.TestDirs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.cli.GatewayClient;
import dev.sqloop.cli.SubmitCommand;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.testkit.engines.DemoWarehouse;
import dev.sqloop.testkit.llm.Latency;
import dev.sqloop.testkit.llm.Fault;
import dev.sqloop.testkit.llm.Injection;
import dev.sqloop.testkit.llm.OracleResponder;
import dev.sqloop.testkit.llm.SimulatedLlm;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Every stage in one JVM against one real broker, driven through the gateway's HTTP API like a user would:
 * the real DuckDB warehouse, the real embedding model and example store, the simulated LLM over HTTP through
 * the real langchain4j client.
 */
class PipelineEndToEndIT {

    private static Map<String, String> settings(Path warehouse) {
        Map<String, String> s = new HashMap<>();
        s.put("SQLOOP_DATASOURCE_DEMO_DIALECT", "duckdb");
        s.put("SQLOOP_DATASOURCE_DEMO_URL", "jdbc:duckdb:" + warehouse.toAbsolutePath());
        s.put("SQLOOP_MAX_IN_FLIGHT", "64");
        // A tight admission bound, so the 1,000-question batch enters the pipeline gated (see the assertion there).
        s.put("SQLOOP_ADMISSION_MAX_BACKLOG", "100");
        s.put("SQLOOP_ADMISSION_INTERVAL", "200ms");
        return s;
    }

    /** Paraphrases of demo questions, asked after the batch: their prompts must carry the captured originals. */
    private static final Map<String, String> PARAPHRASES = Map.of(
            "How many urgent orders are there?", "Count the orders whose priority is urgent.",
            "How many parts have a size greater than 40?", "Count the parts larger than size 40.",
            "What is the average discount on line items?", "What is the mean line item discount?");

    /** The last oracle started: which fault it injected for each question. */
    private static OracleResponder responder;

    private static SimulatedLlm oracle(DemoBatch batch) {
        Map<String, String> gold = new java.util.LinkedHashMap<>(batch.goldByQuestion());
        PARAPHRASES.forEach((original, paraphrase) -> gold.put(paraphrase, gold.get(original)));
        responder = new OracleResponder(gold, DemoBatch.faultMix(), "duckdb", 7);
        SimulatedLlm llm = SimulatedLlm.start(responder, 7);
        llm.faults().latency(Latency.lognormal(Duration.ofMillis(100), 0.5));
        return llm;
    }

    private static List<QuestionResult> run(GatewayClient client, Path jsonl, int expected) throws Exception {
        JsonNode accepted = client.submitBatchFile(jsonl);
        assertEquals(expected, accepted.get("count").asInt());
        String batchId = accepted.get("batchId").asText();
        long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
        JsonNode status = null;
        while (System.nanoTime() < deadline) {
            status = client.getPatiently("/v1/batches/" + batchId, Duration.ofMinutes(1));
            if (status.get("done").asBoolean()) break;
            Thread.sleep(500);
        }
        assertTrue(status != null && status.get("done").asBoolean(), "every question reached a final state: " + status);
        Path out = TestDirs.file("results", ".jsonl");
        SubmitCommand.download(client, batchId, out);
        return Files.readAllLines(out).stream().filter(l -> !l.isBlank()).map(l -> {
            try {
                return JsonCodec.decode(l.getBytes(StandardCharsets.UTF_8), QuestionResult.class);
            } catch (JsonCodec.DecodeException e) {
                throw new AssertionError(e);
            }
        }).toList();
    }

    @Test
    void shouldRepairTheDemoBatchThenCarryAThousandQuestionBatchToTheEnd() throws Exception {
        DemoBatch batch = DemoBatch.load();
        Path work = TestDirs.create("e2e-");
        Path warehouse = DemoWarehouse.create(work.resolve("warehouse.duckdb"));
        try (EmbeddedPipeline pipeline = EmbeddedPipeline.start(work, settings(warehouse), oracle(batch), false)) {
            // Admission reads the backlog of these (topic, group) pairs: a renamed stage or group would leave it reading a
            // group nobody commits, and the gate closed for good. The wiring must run a consumer for each.
            var wired = pipeline.runners().stream().map(r -> r.inputTopic() + " read by " + r.groupId()).collect(java.util.stream.Collectors.toSet());
            dev.sqloop.common.runtime.Admission.QUESTION_PATH.forEach((topic, stage) ->
                    assertTrue(wired.contains(topic + " read by sqloop-" + stage), topic + " read by sqloop-" + stage + " not in " + wired));
            GatewayClient client = new GatewayClient(pipeline.gatewayUrl(), null);
            List<QuestionResult> results = run(client, batch.writeJsonl(work.resolve("demo.jsonl"), "demo"), batch.items().size());

            assertEquals(batch.items().size(), results.size());
            long first = results.stream().filter(r -> "first_attempt_success".equals(r.reason())).count();
            long corrected = results.stream().filter(r -> "corrected_success".equals(r.reason())).count();
            assertTrue(corrected >= 15, "the loop repaired most injected faults: " + corrected + " corrected, " + first + " first");
            assertTrue(first + corrected >= 0.9 * results.size(), "overall success >= 90 %: " + (first + corrected));
            for (QuestionResult r : results) {
                assertTrue(r.attempts() >= 1 && r.attempts() <= 3, "attempts within the budget: " + r);
                if (r.succeeded()) {
                    assertTrue(r.execution() != null && r.execution().rowCount() >= 1, "succeeded means executed with rows: " + r.questionId());
                    assertEquals(batch.goldByQuestion().get(r.question()).strip(), r.sql().strip(), "the repaired SQL is the gold SQL");
                } else {
                    assertFalse(r.reason().isBlank(), "a failure says why");
                }
            }
            assertFalse(pipeline.llm().requestsMentioning("regenerate").isEmpty(), "corrections went back to the LLM over HTTP");
            faultConfusion(client, results, pipeline.llm());

            // Auto-capture: a success becomes an example in the prompt the LLM receives for a similar later question.
            QuestionResult captured = results.stream().filter(r -> r.succeeded() && PARAPHRASES.containsKey(r.question()))
                    .findFirst().orElseThrow(() -> new AssertionError("none of the paraphrased originals succeeded"));
            String paraphrase = PARAPHRASES.get(captured.question());
            JsonNode asked = client.postJson("/v1/questions", JsonCodec.encodeToString(Map.of("question", paraphrase, "datasource", "demo")), 202);
            String askedId = asked.get("id").asText();
            long until = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            while (System.nanoTime() < until && !Set.of("succeeded", "failed").contains(
                    client.getPatiently("/v1/questions/" + askedId, Duration.ofSeconds(30)).get("status").asText())) {
                Thread.sleep(200);
            }
            var firstPrompt = pipeline.llm().requests().stream().filter(r -> r.call().user().contains(paraphrase)).findFirst()
                    .orElseThrow(() -> new AssertionError("the paraphrase never reached the LLM"));
            String system = firstPrompt.call().system();
            assertTrue(system.contains("## Similar Examples"), system);
            assertTrue(system.contains("Q: " + captured.question()) && system.contains("SQL: " + captured.sql().strip()),
                    "the captured pair is in the prompt the LLM received:\n" + system);

            // 1,000 questions as one batch through the HTTP API: every one reaches a final state.
            StringBuilder big = new StringBuilder();
            for (int i = 0; i < 1000; i++) {
                DemoBatch.Item item = batch.items().get(i % batch.items().size());
                big.append(JsonCodec.encodeToString(Map.of("question", item.question(), "datasource", "demo", "clientId", "bulk-" + i))).append('\n');
            }
            Path bulk = Files.writeString(work.resolve("bulk.jsonl"), big);
            var gate = pipeline.registries().get(EmbeddedPipeline.FEWSHOT);
            java.util.concurrent.atomic.AtomicLong maxBacklog = new java.util.concurrent.atomic.AtomicLong(-1);
            java.util.concurrent.atomic.AtomicInteger closedSamples = new java.util.concurrent.atomic.AtomicInteger();
            var sampler = java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
            sampler.scheduleAtFixedRate(() -> {
                maxBacklog.accumulateAndGet((long) gate.get("sqloop.admission.backlog").gauge().value(), Math::max);
                if (gate.get("sqloop.admission.open").gauge().value() == 0) closedSamples.incrementAndGet();
            }, 0, 50, java.util.concurrent.TimeUnit.MILLISECONDS);
            long start = System.nanoTime();
            List<QuestionResult> thousand;
            try {
                thousand = run(client, bulk, 1000);
            } finally {
                sampler.shutdownNow();
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.printf("e2e: admission (bound 100): closed in %d of the 50 ms samples, largest backlog read %d%n",
                    closedSamples.get(), maxBacklog.get());
            assertTrue(closedSamples.get() > 0, "the batch entered gated: retrieve-examples waited for the path to drain");
            assertTrue(maxBacklog.get() >= 100 && maxBacklog.get() < 1000,
                    "the path held the bound (plus what one read interval admits), not the batch: " + maxBacklog.get());
            Set<String> ids = new HashSet<>();
            thousand.forEach(r -> ids.add(r.questionId()));
            assertEquals(1000, ids.size(), "1,000 distinct final results");
            long ok = thousand.stream().filter(QuestionResult::succeeded).count();
            System.out.printf("e2e: 1000 questions in %.1f s (%.1f q/s), %d succeeded%n", seconds, 1000 / seconds, ok);
            assertTrue(ok >= 900, "the captured examples and the loop carry the bulk batch: " + ok);
        }
    }

    /**
     * Injected fault × the error category the loop reported for the first attempt (printed as a table): every fault
     * must end in its expected category, be repaired (the oracle returns the gold SQL only for evidence outside the
     * faulty SQL), and no correction prompt may name an error other than the injected one (hints stay out).
     */
    private static void faultConfusion(GatewayClient client, List<QuestionResult> results, SimulatedLlm llm) throws Exception {
        Map<String, Map<String, Integer>> table = new java.util.TreeMap<>();
        List<String> wrong = new java.util.ArrayList<>();
        for (QuestionResult r : results) {
            Injection injection = responder.injectionFor(r.question());
            String fault = injection.fault().name().toLowerCase(java.util.Locale.ROOT);
            String expected = injection.fault() == Fault.NONE ? "none"
                    : injection.category() == null ? "llm_output_invalid" : injection.category();
            JsonNode trace = client.getPatiently("/v1/questions/" + r.questionId() + "/trace", Duration.ofSeconds(30));
            String got = "none";
            for (JsonNode e : trace.get("attempts")) {
                if (e.get("attempt").asInt() != 1) continue;
                for (JsonNode i : e.path("issues")) {
                    if (!i.path("hint").asBoolean(false)) {
                        got = i.get("category").asText();
                        break;
                    }
                }
                if (!got.equals("none")) break;
            }
            table.computeIfAbsent(fault, k -> new java.util.TreeMap<>()).merge(got, 1, Integer::sum);
            if (!got.equals(expected)) wrong.add(fault + " → " + got + " (expected " + expected + "): " + r.question());
            if (injection.fault() != Fault.NONE && !r.succeeded()) wrong.add(fault + " not repaired: " + r.reason() + ": " + r.question());
            if (!r.succeeded()) {
                assertEquals(null, r.sql(), "a failure carries no sql");
                assertTrue(r.lastRejectedSql() != null, "a failure carries the refused text as lastRejectedSql");
            }
        }
        System.out.println("e2e: injected fault × first-attempt error category");
        table.forEach((fault, row) -> System.out.printf("  %-18s %s%n", fault, row));
        for (var req : llm.requestsMentioning("regenerate")) {
            String prompt = req.call().lastUser();
            String question = results.stream().map(QuestionResult::question).filter(prompt::contains)
                    .max(java.util.Comparator.comparingInt(String::length)).orElse(null);
            if (question == null) continue;
            Injection injection = responder.injectionFor(question);
            String expected = injection.category() == null ? "llm_output_invalid" : injection.category();
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^\\[([a-z_]+)\\] ").matcher(prompt);
            while (m.find()) {
                if (!m.group(1).equals(expected)) wrong.add("correction prompt names " + m.group(1) + " beside injected " + expected + ": " + question);
            }
        }
        assertTrue(wrong.isEmpty(), "faults that ended elsewhere or unrepaired:\n" + String.join("\n", wrong));
    }

    @Test
    void shouldNotRepairWhenTheCorrectionPromptCarriesNoEvidence() throws Exception {
        DemoBatch batch = DemoBatch.load();
        Path work = TestDirs.create("e2e-stripped-");
        Path warehouse = DemoWarehouse.create(work.resolve("warehouse.duckdb"));
        try (EmbeddedPipeline pipeline = EmbeddedPipeline.start(work, settings(warehouse), oracle(batch), true)) {
            // Admission reads the backlog of these (topic, group) pairs: a renamed stage or group would leave it reading a
            // group nobody commits, and the gate closed for good. The wiring must run a consumer for each.
            var wired = pipeline.runners().stream().map(r -> r.inputTopic() + " read by " + r.groupId()).collect(java.util.stream.Collectors.toSet());
            dev.sqloop.common.runtime.Admission.QUESTION_PATH.forEach((topic, stage) ->
                    assertTrue(wired.contains(topic + " read by sqloop-" + stage), topic + " read by sqloop-" + stage + " not in " + wired));
            GatewayClient client = new GatewayClient(pipeline.gatewayUrl(), null);
            List<QuestionResult> results = run(client, batch.writeJsonl(work.resolve("demo.jsonl"), "demo"), batch.items().size());
            long first = results.stream().filter(r -> "first_attempt_success".equals(r.reason())).count();
            long corrected = results.stream().filter(r -> "corrected_success".equals(r.reason())).count();
            assertTrue(first >= 5, "questions without a fault still succeed: " + first);
            assertEquals(0, corrected, "without the error in the prompt the oracle cannot repair: the feedback is what fixes it");
        }
    }
}
