package dev.sqloop.embedded.reliability;

import dev.sqloop.testkit.TestDirs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.cli.GatewayClient;
import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.config.KafkaSettings;
import dev.sqloop.common.runtime.KafkaClients;
import dev.sqloop.embedded.ServiceFleet.Kind;
import dev.sqloop.embedded.pipeline.DemoBatch;
import dev.sqloop.testkit.Dirs;
import dev.sqloop.testkit.EmbeddedKafka;
import dev.sqloop.testkit.Ports;
import dev.sqloop.testkit.ServiceJvm;
import dev.sqloop.testkit.engines.DemoWarehouse;
import dev.sqloop.testkit.llm.Latency;
import dev.sqloop.testkit.llm.OracleResponder;
import dev.sqloop.testkit.llm.RecordedRequest;
import dev.sqloop.testkit.llm.SimulatedLlm;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The reliability suite's crash test on the real pipeline: every service in its own JVM started as
 * {@code ./sqloop run SERVICE} starts it (cli's classpath, {@code SQLOOP_*} environment), a real broker, the simulated
 * LLM over HTTP with the demo's fault mix (~65 % of first answers carry one fault, so the repair loop runs), the
 * DuckDB demo warehouse. Generate and repair run as two processes ({@code ./sqloop run generator} with
 * {@code SQLOOP_GENERATOR_WORKERS=generate}, {@code ./sqloop run repair}) so each can be killed alone.
 *
 * <p>A baseline batch without a kill proves the counting (0 duplicates, 0 repeated LLM calls); then one batch per worker
 * kind — fewshot, generate, repair, validator, executor, gateway — where that kind is SIGKILLed mid-batch (once its
 * consumer group has committed part of the batch and still has lag) and restarted at once. One batch per kind and not
 * one batch with kills in sequence: each kind's duplicates, repeated LLM calls and stall are then its own (question
 * texts carry the kind, so LLM requests are attributed exactly), and the class stays within budget because a batch is
 * small (40 questions; the baseline 20) and the stall per kill is bounded.
 *
 * <p>Asserted per kind: every question reaches exactly one final result in the results API (batch status, the batch's
 * results stream, and each question), attempts ≤ max attempts; duplicate final records on {@code results} and repeated
 * LLM calls are bounded — a SIGKILL can only redo what the killed consumer had started and not yet committed, which is
 * at most its in-flight limit ({@value #IN_FLIGHT}) plus what finished within its last commit interval (200 ms); each
 * redone record repeats at most one chain downstream, so ≤ 1 duplicate final result and ≤ max attempts LLM calls per
 * redone record; the bound asserted is {@value #REDONE_BOUND} duplicates (and never more than the lag at
 * the kill, summed over every group the killed process consumes in — the generator reads the regenerate lane too: nothing below a committed offset is redone) and {@value #REDONE_BOUND} × max attempts repeated calls; the
 * gateway, on no question's path once a batch is written, must redo nothing (its view once counted results twice
 * after a SIGKILL — "finished 42" of 40, done with 2 pending — until it ran exactly once). Processing resumes (the
 * killed kind's group commits past its offset at the kill; for the gateway, the API answers with the batch's progress)
 * within {@value #STALL_BOUND_SECONDS} s of the restart (a JVM start, not bounded: it follows the host's load):
 * the wait for the dead member's session to expire — the new member's join waits for the dead one until its
 * session times out. Kafka's 45 s default made that ~45 s per kill; the consumers' default is now 10 s (see
 * {@code KafkaClients}), which this test runs on without override.
 *
 * <p>Finally the logs of every JVM (each incarnation), the results topic, the events, every question's trace and the
 * dead letters are scanned for the LLM API key and the warehouse password, both distinctive canaries: none may appear.
 * {@code -Dsqloop.crash.kinds=executor,gateway} narrows the kinds for a quicker look. Starting, readiness, batches, results
 * and the secret scan are {@link ForkedPipeline}'s, shared with {@link PipelineOutageIT}.
 */
class PipelineCrashIT {
    static final int IN_FLIGHT = 16;
    static final int MAX_ATTEMPTS = 3;
    static final int BATCH = 40;
    /** In flight (16) plus what finished within the last 200 ms commit interval (≤ 16: under 80 records/s per stage here). */
    static final int REDONE_BOUND = 2 * IN_FLIGHT;
    /**
     * Once the new JVM is up, the dead member's 10 s session plus 10 s of slack: the bound on the stall is counted from
     * the restart, whose JVM start alone took 37 s on a host loaded by other builds (and ~5 s on a quiet one).
     */
    static final long STALL_BOUND_SECONDS = 20;
    static final String LLM_KEY = "sk-canary-llm-7f3c9e2a5b1d";
    static final String DB_PASSWORD = "pw-canary-warehouse-4d81c6e0";
    static final String PREFIX = "crash";
    /** What one batch measured. */
    private record Run(String kind, String batchId, Map<String, String> textById, int finishedAtKill, long lagAtKill,
                       double stallSeconds, double restartSeconds) {}

    @Test
    void shouldGiveEveryQuestionExactlyOneFinalResultWhenAnyWorkerIsKilledMidBatch() throws Exception {
        long classStart = System.nanoTime();
        Path work = TestDirs.create("sqloop-crash-it-");
        Path warehouse = DemoWarehouse.create(work.resolve("warehouse.duckdb"));
        DemoBatch demo = DemoBatch.load();
        List<String> kinds = Arrays.asList(System.getProperty("sqloop.crash.kinds", "fewshot,generate,repair,validator,executor,gateway").split(","));

        // every question text is unique (the kind and a letter code appended), so the oracle and the LLM request log
        // tell exactly which question, and which batch, each call was for
        Map<String, String> gold = new LinkedHashMap<>();
        Map<String, List<String>> textsByRun = new LinkedHashMap<>();
        for (String run : concat("baseline", kinds)) {
            List<String> texts = new ArrayList<>();
            int n = run.equals("baseline") ? 20 : BATCH;
            for (int i = 0; i < n; i++) {
                DemoBatch.Item item = demo.items().get(i % demo.items().size());
                String text = item.question() + " [" + run + " " + code(i) + "]";
                texts.add(text);
                gold.put(text, item.goldSql());
            }
            textsByRun.put(run, texts);
        }
        SimulatedLlm llm = SimulatedLlm.start(new OracleResponder(gold, DemoBatch.faultMix(), "duckdb", 11), 11);
        llm.faults().latency(Latency.lognormal(Duration.ofMillis(100), 0.5));

        try (EmbeddedKafka broker = EmbeddedKafka.start(); Admin admin = KafkaClients.admin(KafkaSettings.of(broker.bootstrapServers()))) {
            KafkaClients.ensureTopics(KafkaSettings.of(broker.bootstrapServers()), Topics.ALL, Duration.ofSeconds(60));
            Map<String, String> env = ForkedPipeline.baseEnvironment(broker.bootstrapServers(), PREFIX, Ports.free(), work);
            env.put("SQLOOP_MAX_IN_FLIGHT", Integer.toString(IN_FLIGHT));
            env.put("SQLOOP_MAX_ATTEMPTS", Integer.toString(MAX_ATTEMPTS));
            env.put("SQLOOP_DATASOURCE_DEMO_DIALECT", "duckdb");
            env.put("SQLOOP_DATASOURCE_DEMO_URL", "jdbc:duckdb:" + warehouse.toAbsolutePath());
            env.put("SQLOOP_DATASOURCE_DEMO_USER", "sqloop_reader");
            env.put("SQLOOP_DATASOURCE_DEMO_PASSWORD", DB_PASSWORD);
            env.put("SQLOOP_LLM_BASE_URL", llm.openAiBaseUrl());
            env.put("SQLOOP_LLM_API_KEY", LLM_KEY);
            env.put("SQLOOP_LLM_MAX_CONCURRENCY", "4");

            ForkedPipeline pipeline = ForkedPipeline.start(PREFIX, work, env, Map.of());
            try {
                System.out.printf("crash: 6 service JVMs ready in %.1f s%n", (System.nanoTime() - classStart) / 1e9);
                List<Run> runs = new ArrayList<>();
                runs.add(runBatch(pipeline, admin, "baseline", textsByRun.get("baseline"), null));
                for (String name : kinds) runs.add(runBatch(pipeline, admin, name, textsByRun.get(name), pipeline.kind(name)));
                Thread.sleep(3000); // a redone chain may still be on its way to a second final record
                verify(pipeline, broker.bootstrapServers(), llm, runs);
            } finally {
                pipeline.close();
            }
            // every incarnation's whole log; the canaries were in every process's environment: its settings line shows them masked
            int logs = pipeline.scanLogs(List.of(LLM_KEY, DB_PASSWORD), List.of("SQLOOP_LLM_API_KEY", "SQLOOP_DATASOURCE_DEMO_PASSWORD"));
            System.out.printf("crash: scanned %d service logs for the canaries%n", logs);
        } finally {
            llm.close();
        }
        System.out.printf("crash: class wall time %.1f s%n", (System.nanoTime() - classStart) / 1e9);
        Dirs.deleteQuietly(work); // kept when the test fails, for its logs
    }

    private Run runBatch(ForkedPipeline pipeline, Admin admin, String run, List<String> texts, Kind kind) throws Exception {
        GatewayClient client = pipeline.client();
        List<String> groups = kind == null ? List.of() : kind.groups();
        Map<String, Long> committedBefore = committed(admin, groups);
        long submitted = System.nanoTime();
        String batchId = pipeline.submit(run, texts, "demo");
        int finishedAtKill = -1;
        long lagAtKill = 0;
        double stall = 0;
        double restart = 0;
        if (kind != null) {
            ServiceJvm victim = pipeline.jvm(kind.name());
            if (kind.group() != null) {
                // mid-batch for this kind: part of its share committed, and work waiting for it now. Progress alone
                // is not enough: repair's input arrives in bursts (as answers fail), and a kill between two bursts
                // found its lag 0 (CI, once) -- nothing of its own to redo, and a restart that only resumes if more
                // comes. So also wait for a lag of at least two records: with ~100 ms per LLM call and a 200 ms
                // commit interval, two records cannot both be done and committed in the moment before the kill.
                int threshold = kind.name().equals("fewshot") ? 1 : texts.size() / 8;
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while (true) {
                    Map<String, Long> now = committed(admin, groups);
                    if (sum(now) - sum(committedBefore) >= threshold && lag(admin, groups, now) >= 2) break;
                    assertTrue(System.nanoTime() < deadline, kind.name() + " never had progress and work left at once on batch " + run + ":\n" + victim.output());
                    Thread.sleep(10);
                }
            } else {
                while (client.getPatiently("/v1/batches/" + batchId, Duration.ofSeconds(30)).get("finished").asInt() < texts.size() / 4) {
                    Thread.sleep(20);
                }
            }
            finishedAtKill = client.getPatiently("/v1/batches/" + batchId, Duration.ofSeconds(30)).get("finished").asInt();
            long killed = System.nanoTime();
            pipeline.kill(kind.name());
            // read once it is dead: a commit it sent just before would otherwise count as the restart's progress
            Map<String, Long> committedAtKill = committed(admin, groups);
            lagAtKill = lag(admin, groups, committedAtKill);
            CompletableFuture<Double> up = pipeline.restart(kind.name());
            ServiceJvm next = pipeline.jvm(kind.name());
            assertTrue(finishedAtKill < texts.size(), kind.name() + " killed mid-batch, not after it: " + finishedAtKill);
            if (kind.group() != null) {
                assertTrue(lagAtKill > 0, kind.name() + " had work left at the kill");
                long deadline = killed + Duration.ofSeconds(120).toNanos();
                while (sum(committed(admin, groups)) <= sum(committedAtKill)) {
                    assertTrue(System.nanoTime() < deadline, kind.name() + " never resumed:\n" + next.output());
                    Thread.sleep(50);
                }
            } else {
                long deadline = killed + Duration.ofSeconds(120).toNanos();
                while (true) {
                    JsonNode s = null;
                    try {
                        s = client.get("/v1/batches/" + batchId);
                    } catch (Exception notYet) {
                        // restarting, rebalancing (503) or restoring its state (404)
                    }
                    if (s != null && s.get("finished").asInt() >= finishedAtKill) break;
                    assertTrue(System.nanoTime() < deadline, "the gateway never answered again:\n" + next.output());
                    Thread.sleep(50);
                }
            }
            stall = (System.nanoTime() - killed) / 1e9;
            restart = up.get(120, TimeUnit.SECONDS);
        }
        JsonNode status = pipeline.awaitDone(run, batchId, Duration.ofSeconds(120));
        System.out.printf("crash: batch %s done in %.1f s: %s%n", run, (System.nanoTime() - submitted) / 1e9, status.get("byReason"));
        Map<String, String> textById = new LinkedHashMap<>();
        for (int i = 0; i < texts.size(); i++) textById.put(run + "-" + i, texts.get(i));
        return new Run(run, batchId, textById, finishedAtKill, lagAtKill, stall, restart);
    }

    private void verify(ForkedPipeline pipeline, String bootstrap, SimulatedLlm llm, List<Run> runs) throws Exception {
        GatewayClient client = pipeline.client();
        Map<String, List<byte[]>> resultsByQuestion = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : ForkedPipeline.readAll(bootstrap, Topics.RESULTS.name())) {
            resultsByQuestion.computeIfAbsent(new String(r.key(), StandardCharsets.UTF_8), x -> new ArrayList<>()).add(r.value());
        }
        List<String> questionIds = new ArrayList<>();
        List<RecordedRequest> requests = llm.requests();
        List<String> summary = new ArrayList<>();
        for (Run run : runs) {
            JsonNode status = client.get("/v1/batches/" + run.batchId());
            assertEquals(run.textById().size(), status.get("finished").asInt(), run.kind() + ": every question final: " + status);
            Map<String, JsonNode> byId = pipeline.results(run.kind(), run.batchId());
            assertEquals(run.textById().size(), byId.size(), run.kind() + ": every question has its final result in the API");
            int duplicates = 0;
            int expectedCalls = 0;
            int calls = 0;
            for (JsonNode n : byId.values()) {
                String id = n.get("questionId").asText();
                JsonNode q = client.get("/v1/questions/" + id);
                assertTrue(List.of("succeeded", "failed").contains(q.get("status").asText()), "final: " + q);
                int attempts = n.get("attempts").asInt();
                assertTrue(attempts >= 1 && attempts <= MAX_ATTEMPTS, run.kind() + ": attempts within the budget: " + n);
                questionIds.add(id);
                duplicates += resultsByQuestion.getOrDefault(id, List.of()).size() - 1;
                assertTrue(resultsByQuestion.containsKey(id), "a final record on results for " + id);
                String text = squash(n.get("question").asText());
                calls += (int) requests.stream().filter(r -> squash(r.call().lastUser()).contains(text)).count();
                expectedCalls += expectedLlmCalls(n);
            }
            int repeated = calls - expectedCalls;
            String line = run.kind().equals("baseline")
                    ? String.format(Locale.ROOT, "crash: %-9s no kill        %d final, duplicates %d, repeated LLM calls %d (%d calls)",
                            run.kind(), byId.size(), duplicates, repeated, calls)
                    : String.format(Locale.ROOT, "crash: %-9s killed at %2d/%d final (lag %d), stall %.1f s (restart %.1f s), duplicates %d, repeated LLM calls %d (%d calls)",
                            run.kind(), run.finishedAtKill(), byId.size(), run.lagAtKill(), run.stallSeconds(), run.restartSeconds(),
                            duplicates, repeated, calls);
            summary.add(line);
            System.out.println(line);
            if (run.kind().equals("baseline")) {
                assertEquals(0, duplicates, "no duplicate without a kill: the counting is exact");
                assertEquals(0, repeated, "no repeated LLM call without a kill: the counting is exact");
            } else if (run.kind().equals("gateway")) {
                // the gateway is on no question's path once a batch is written: its crash redoes nothing
                assertEquals(0, duplicates, line);
                assertEquals(0, repeated, line);
                assertTrue(run.stallSeconds() <= run.restartSeconds() + STALL_BOUND_SECONDS, line);
            } else {
                assertTrue(duplicates <= REDONE_BOUND && duplicates <= run.lagAtKill(), line);
                assertTrue(repeated >= 0 && repeated <= REDONE_BOUND * MAX_ATTEMPTS, line);
                assertTrue(run.stallSeconds() <= run.restartSeconds() + STALL_BOUND_SECONDS, line);
            }
        }
        System.out.println("crash: summary\n" + String.join("\n", summary));
        List<byte[]> scanned = pipeline.scannable(bootstrap, questionIds);
        for (byte[] b : scanned) ForkedPipeline.assertNoSecret(List.of(LLM_KEY, DB_PASSWORD), new String(b, StandardCharsets.UTF_8), "results/events/traces/dlq");
        System.out.printf("crash: scanned %d records, results and traces for the canaries%n", scanned.size());
    }

    /**
     * LLM calls a question's final result accounts for: one per attempt that reached the LLM. An attempt that ends
     * before generate (a cancelled or timed-out question) would not, but none does here.
     */
    private static int expectedLlmCalls(JsonNode result) {
        return result.get("attempts").asInt();
    }

    // ------------------------------------------------------------------ helpers

    /** Committed offsets of every group, keyed {@code group topic-partition}. */
    private static Map<String, Long> committed(Admin admin, List<String> groups) throws Exception {
        Map<String, Long> out = new HashMap<>();
        for (String group : groups) {
            for (Map.Entry<TopicPartition, OffsetAndMetadata> e : admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get().entrySet()) {
                if (e.getValue() != null) out.put(group + " " + e.getKey(), e.getValue().offset());
            }
        }
        return out;
    }

    /**
     * Records on the groups' topics past their committed offsets: what a kill can redo. A group's topics are those it
     * has committed on (the baseline batch runs every group, the regenerate lane included, before any kill).
     */
    private static long lag(Admin admin, List<String> groups, Map<String, Long> committed) throws Exception {
        long lag = 0;
        for (String group : groups) {
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (TopicPartition tp : admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get().keySet()) {
                for (int p = 0; p < 6; p++) latest.put(new TopicPartition(tp.topic(), p), OffsetSpec.latest());
            }
            if (latest.isEmpty()) continue;
            for (var e : admin.listOffsets(latest).all().get().entrySet()) {
                lag += e.getValue().offset() - committed.getOrDefault(group + " " + e.getKey(), 0L);
            }
        }
        return lag;
    }

    private static long sum(Map<String, Long> offsets) {
        return offsets.values().stream().mapToLong(Long::longValue).sum();
    }

    private static String code(int i) {
        return "" + (char) ('a' + i / 26) + (char) ('a' + i % 26);
    }

    private static String squash(String s) {
        return s == null ? "" : s.replaceAll("\\s+", " ").strip().toLowerCase(Locale.ROOT);
    }

    private static List<String> concat(String first, List<String> rest) {
        List<String> out = new ArrayList<>();
        out.add(first);
        out.addAll(rest);
        return out;
    }
}
