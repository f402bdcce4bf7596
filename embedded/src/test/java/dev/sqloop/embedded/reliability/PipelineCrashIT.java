package dev.sqloop.embedded.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.cli.GatewayClient;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.Topics;
import dev.sqloop.common.config.KafkaSettings;
import dev.sqloop.common.runtime.KafkaClients;
import dev.sqloop.embedded.Chaos;
import dev.sqloop.embedded.Chaos.Kind;
import dev.sqloop.embedded.DemoBatch;
import dev.sqloop.testkit.Dirs;
import dev.sqloop.testkit.EmbeddedKafka;
import dev.sqloop.testkit.Ports;
import dev.sqloop.testkit.ServiceJvm;
import dev.sqloop.testkit.engines.DemoWarehouse;
import dev.sqloop.testkit.llm.Latency;
import dev.sqloop.testkit.llm.OracleResponder;
import dev.sqloop.testkit.llm.RecordedRequest;
import dev.sqloop.testkit.llm.SimulatedLlm;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
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
 * redone record; the bound asserted is {@value #REDONE_BOUND} duplicates (and never more than the killed group's lag at
 * the kill: nothing below the committed offset is redone) and {@value #REDONE_BOUND} × max attempts repeated calls; the
 * gateway, on no question's path once a batch is written, must redo nothing (its view once counted results twice
 * after a SIGKILL — "finished 42" of 40, done with 2 pending — until it ran exactly once). Processing resumes (the
 * killed kind's group commits past its offset at the kill; for the gateway, the API answers with the batch's progress)
 * within {@value #STALL_BOUND_SECONDS} s of the kill: the restart (a JVM start)
 * plus the wait for the dead member's session to expire — the new member's join waits for the dead one until its
 * session times out. Kafka's 45 s default made that ~45 s per kill; the consumers' default is now 10 s (see
 * {@code KafkaClients}), which this test runs on without override.
 *
 * <p>Finally the logs of every JVM (each incarnation), the results topic, the events, every question's trace and the
 * dead letters are scanned for the LLM API key and the warehouse password, both distinctive canaries: none may appear.
 * {@code -Dsqloop.crash.kinds=executor,gateway} narrows the kinds for a quicker look.
 */
class PipelineCrashIT {
    static final int IN_FLIGHT = 16;
    static final int MAX_ATTEMPTS = 3;
    static final int BATCH = 40;
    /** In flight (16) plus what finished within the last 200 ms commit interval (≤ 16: under 80 records/s per stage here). */
    static final int REDONE_BOUND = 2 * IN_FLIGHT;
    /** The dead member's 10 s session plus up to 20 s for the new JVM to start on two busy cores. */
    static final long STALL_BOUND_SECONDS = 30;
    static final String LLM_KEY = "sk-canary-llm-7f3c9e2a5b1d";
    static final String DB_PASSWORD = "pw-canary-warehouse-4d81c6e0";
    static final String PREFIX = "crash";
    private static final Pattern MANAGEMENT = Pattern.compile("management .* on http://127\\.0\\.0\\.1:(\\d+)");
    private static final Pattern GATEWAY = Pattern.compile("gateway listening on http://127\\.0\\.0\\.1:(\\d+)");
    private static final HttpClient http = HttpClient.newHttpClient();

    /** A worker kind: how it is started and which consumer group carries its work. */
    private static final List<Kind> KINDS = Chaos.kinds(PREFIX);

    /** What one batch measured. */
    private record Run(String kind, String batchId, Map<String, String> textById, int finishedAtKill, long lagAtKill,
                       double stallSeconds, double restartSeconds) {}

    private final Map<String, ServiceJvm> running = new ConcurrentHashMap<>();
    private final List<ServiceJvm> incarnations = new ArrayList<>();

    @Test
    void shouldGiveEveryQuestionExactlyOneFinalResultWhenAnyWorkerIsKilledMidBatch() throws Exception {
        long classStart = System.nanoTime();
        Path work = Files.createTempDirectory("sqloop-crash-it-");
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
            int gatewayPort = Ports.free();
            Map<String, String> env = new HashMap<>();
            env.put("SQLOOP_BOOTSTRAP_SERVERS", broker.bootstrapServers());
            env.put("SQLOOP_MANAGEMENT_HOST", "127.0.0.1");
            env.put("SQLOOP_MANAGEMENT_PORT", "0");
            env.put("SQLOOP_GROUP_PREFIX", PREFIX);
            env.put("SQLOOP_MAX_IN_FLIGHT", Integer.toString(IN_FLIGHT));
            env.put("SQLOOP_MAX_ATTEMPTS", Integer.toString(MAX_ATTEMPTS));
            env.put("SQLOOP_DATASOURCE_DEMO_DIALECT", "duckdb");
            env.put("SQLOOP_DATASOURCE_DEMO_URL", "jdbc:duckdb:" + warehouse.toAbsolutePath());
            env.put("SQLOOP_DATASOURCE_DEMO_USER", "sqloop_reader");
            env.put("SQLOOP_DATASOURCE_DEMO_PASSWORD", DB_PASSWORD);
            env.put("SQLOOP_LLM_BASE_URL", llm.openAiBaseUrl());
            env.put("SQLOOP_LLM_API_KEY", LLM_KEY);
            env.put("SQLOOP_LLM_MAX_CONCURRENCY", "4");
            env.put("SQLOOP_FEWSHOT_LUCENE_PATH", work.resolve("examples").toString());
            env.put("SQLOOP_GATEWAY_HOST", "127.0.0.1");
            env.put("SQLOOP_GATEWAY_PORT", Integer.toString(gatewayPort));
            env.put("SQLOOP_GATEWAY_STATE_DIR", work.resolve("gateway-state").toString());
            env.put("SQLOOP_GATEWAY_APPLICATION_ID", PREFIX + "-gateway");

            try {
                for (Kind k : KINDS) {
                    Map<String, String> e = new HashMap<>(env);
                    e.putAll(k.extraEnv());
                    start(k, e, work);
                }
                for (Kind k : KINDS) awaitReady(running.get(k.name()), k.name().equals("gateway") ? GATEWAY : MANAGEMENT);
                System.out.printf("crash: 6 service JVMs ready in %.1f s%n", (System.nanoTime() - classStart) / 1e9);
                GatewayClient client = new GatewayClient("http://127.0.0.1:" + gatewayPort, null);

                List<Run> runs = new ArrayList<>();
                runs.add(runBatch(client, admin, work, "baseline", textsByRun.get("baseline"), null));
                for (String name : kinds) {
                    Kind kind = KINDS.stream().filter(k -> k.name().equals(name)).findFirst().orElseThrow();
                    runs.add(runBatch(client, admin, work, name, textsByRun.get(name), kind));
                }
                Thread.sleep(3000); // a redone chain may still be on its way to a second final record
                verify(client, broker.bootstrapServers(), llm, runs);
            } finally {
                for (ServiceJvm s : running.values()) s.close();
            }
            scanLogs();
        } finally {
            llm.close();
        }
        System.out.printf("crash: class wall time %.1f s%n", (System.nanoTime() - classStart) / 1e9);
        Dirs.deleteQuietly(work); // kept when the test fails, for its logs
    }

    private void start(Kind k, Map<String, String> env, Path work) throws Exception {
        ServiceJvm s = ServiceJvm.start(k.name(), cliClasspath(),
                List.of("-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "--enable-native-access=ALL-UNNAMED"),
                "dev.sqloop.cli.Main", List.of("run", k.service()), env, work.resolve(k.name() + "-1.log"));
        running.put(k.name(), s);
        synchronized (incarnations) {
            incarnations.add(s);
        }
    }

    private Run runBatch(GatewayClient client, Admin admin, Path work, String run, List<String> texts, Kind kind) throws Exception {
        StringBuilder jsonl = new StringBuilder();
        for (int i = 0; i < texts.size(); i++) {
            jsonl.append(JsonCodec.encodeToString(Map.of("question", texts.get(i), "datasource", "demo", "clientId", run + "-" + i))).append('\n');
        }
        Map<String, Long> committedBefore = kind == null || kind.group() == null ? Map.of() : committed(admin, kind.group());
        long submitted = System.nanoTime();
        String batchId = client.submitBatchFile(Files.writeString(work.resolve(run + ".jsonl"), jsonl)).get("batchId").asText();
        int finishedAtKill = -1;
        long lagAtKill = 0;
        double stall = 0;
        double restart = 0;
        if (kind != null) {
            ServiceJvm victim = running.get(kind.name());
            if (kind.group() != null) {
                // mid-batch for this kind: part of its share committed, and lag left
                int threshold = kind.name().equals("fewshot") ? 1 : texts.size() / 4;
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while (sum(committed(admin, kind.group())) - sum(committedBefore) < threshold) {
                    assertTrue(System.nanoTime() < deadline, kind.name() + " made no progress on batch " + run + ":\n" + victim.output());
                    Thread.sleep(20);
                }
            } else {
                while (client.getPatiently("/v1/batches/" + batchId, Duration.ofSeconds(30)).get("finished").asInt() < texts.size() / 4) {
                    Thread.sleep(20);
                }
            }
            finishedAtKill = client.getPatiently("/v1/batches/" + batchId, Duration.ofSeconds(30)).get("finished").asInt();
            long killed = System.nanoTime();
            victim.kill9();
            // read once it is dead: a commit it sent just before would otherwise count as the restart's progress
            Map<String, Long> committedAtKill = kind.group() == null ? Map.of() : committed(admin, kind.group());
            lagAtKill = kind.group() == null ? 0 : lag(admin, kind.group(), committedAtKill);
            ServiceJvm next = victim.restart(work.resolve(kind.name() + "-2.log"));
            CompletableFuture<Double> up = upAfter(next, kind.name().equals("gateway") ? GATEWAY : MANAGEMENT);
            running.put(kind.name(), next);
            synchronized (incarnations) {
                incarnations.add(next);
            }
            assertTrue(finishedAtKill < texts.size(), kind.name() + " killed mid-batch, not after it: " + finishedAtKill);
            if (kind.group() != null) {
                assertTrue(lagAtKill > 0, kind.name() + " had work left at the kill");
                long deadline = killed + Duration.ofSeconds(120).toNanos();
                while (sum(committed(admin, kind.group())) <= sum(committedAtKill)) {
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
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        JsonNode status;
        while (!(status = client.getPatiently("/v1/batches/" + batchId, Duration.ofSeconds(60))).get("done").asBoolean()) {
            assertTrue(System.nanoTime() < deadline, "batch " + run + " never done: " + status + logsOfRunning());
            Thread.sleep(100);
        }
        System.out.printf("crash: batch %s done in %.1f s: %s%n", run, (System.nanoTime() - submitted) / 1e9, status.get("byReason"));
        Map<String, String> textById = new LinkedHashMap<>();
        for (int i = 0; i < texts.size(); i++) textById.put(run + "-" + i, texts.get(i));
        return new Run(run, batchId, textById, finishedAtKill, lagAtKill, stall, restart);
    }

    private static List<ConsumerRecord<byte[], byte[]>> readAll(String bootstrap, String topic) {
        return dev.sqloop.testkit.TopicDump.readAll(bootstrap, topic, Duration.ofSeconds(30));
    }

    private void verify(GatewayClient client, String bootstrap, SimulatedLlm llm, List<Run> runs) throws Exception {
        Map<String, List<byte[]>> resultsByQuestion = new HashMap<>();
        List<byte[]> scanned = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : readAll(bootstrap, Topics.RESULTS.name())) {
            resultsByQuestion.computeIfAbsent(new String(r.key(), StandardCharsets.UTF_8), x -> new ArrayList<>()).add(r.value());
            scanned.add(r.value());
        }
        List<ConsumerRecord<byte[], byte[]>> dlq = readAll(bootstrap, Topics.DLQ.name());
        for (ConsumerRecord<byte[], byte[]> r : dlq) {
            if (r.key() != null) scanned.add(r.key());
            if (r.value() != null) scanned.add(r.value());
            for (Header h : r.headers()) if (h.value() != null) scanned.add(h.value());
        }
        for (ConsumerRecord<byte[], byte[]> r : readAll(bootstrap, Topics.EVENTS.name())) scanned.add(r.value());
        List<RecordedRequest> requests = llm.requests();
        List<String> summary = new ArrayList<>();
        for (Run run : runs) {
            JsonNode status = client.get("/v1/batches/" + run.batchId());
            assertEquals(run.textById().size(), status.get("finished").asInt(), run.kind() + ": every question final: " + status);
            List<JsonNode> lines = new ArrayList<>();
            try (BufferedReader r = new BufferedReader(new InputStreamReader(client.stream("/v1/batches/" + run.batchId() + "/results"), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) if (!line.isBlank()) lines.add(JsonCodec.mapper().readTree(line));
            }
            Map<String, JsonNode> byId = new LinkedHashMap<>();
            for (JsonNode n : lines) {
                JsonNode previous = byId.put(n.get("questionId").asText(), n);
                assertTrue(previous == null, run.kind() + ": one final result per question in the API, twice: " + n);
            }
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
                scanned.add(client.get("/v1/questions/" + id + "/trace").toString().getBytes(StandardCharsets.UTF_8));
                scanned.add(q.toString().getBytes(StandardCharsets.UTF_8));
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
                assertTrue(run.stallSeconds() <= STALL_BOUND_SECONDS, line);
            } else {
                assertTrue(duplicates <= REDONE_BOUND && duplicates <= run.lagAtKill(), line);
                assertTrue(repeated >= 0 && repeated <= REDONE_BOUND * MAX_ATTEMPTS, line);
                assertTrue(run.stallSeconds() <= STALL_BOUND_SECONDS, line);
            }
        }
        System.out.println("crash: summary\n" + String.join("\n", summary));
        for (byte[] b : scanned) assertNoSecret(new String(b, StandardCharsets.UTF_8), "results/events/traces/dlq");
        System.out.printf("crash: scanned %d records and traces for the canaries, %d dead letters%n", scanned.size(), dlq.size());
    }

    /**
     * LLM calls a question's final result accounts for: one per attempt that reached the LLM. An attempt that ends
     * before generate (a cancelled or timed-out question) would not, but none does here.
     */
    private static int expectedLlmCalls(JsonNode result) {
        return result.get("attempts").asInt();
    }

    private void scanLogs() throws Exception {
        List<ServiceJvm> all;
        synchronized (incarnations) {
            all = List.copyOf(incarnations);
        }
        for (ServiceJvm s : all) {
            String out = s.output();
            // the canaries were in every process's environment: its settings line shows them masked
            assertTrue(out.contains("SQLOOP_LLM_API_KEY=****") && out.contains("SQLOOP_DATASOURCE_DEMO_PASSWORD=****"),
                    s.logFile() + " logs its settings with the secrets masked:\n" + out);
            assertNoSecret(out, s.logFile().toString());
        }
        System.out.printf("crash: scanned %d service logs for the canaries%n", all.size());
    }

    private static void assertNoSecret(String text, String where) {
        assertTrue(!text.contains(LLM_KEY), "the LLM API key appears in " + where);
        assertTrue(!text.contains(DB_PASSWORD), "the warehouse password appears in " + where);
    }

    // ------------------------------------------------------------------ helpers

    private static Map<String, Long> committed(Admin admin, String group) throws Exception {
        Map<String, Long> out = new HashMap<>();
        for (Map.Entry<TopicPartition, OffsetAndMetadata> e : admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get().entrySet()) {
            if (e.getValue() != null) out.put(e.getKey().toString(), e.getValue().offset());
        }
        return out;
    }

    private static long lag(Admin admin, String group, Map<String, Long> committed) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        String topic = offsets.keySet().iterator().next().topic();
        for (int p = 0; p < 6; p++) latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
        long lag = 0;
        for (var e : admin.listOffsets(latest).all().get().entrySet()) {
            lag += e.getValue().offset() - committed.getOrDefault(e.getKey().toString(), 0L);
        }
        return lag;
    }

    private static long sum(Map<String, Long> offsets) {
        return offsets.values().stream().mapToLong(Long::longValue).sum();
    }

    /** Seconds from the start of {@code s} until it logs {@code line} (its management or API port: the JVM is up). */
    private static CompletableFuture<Double> upAfter(ServiceJvm s, Pattern line) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                s.await(line, Duration.ofSeconds(120));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            return (System.nanoTime() - s.startedNanos()) / 1e9;
        });
    }

    private static void awaitReady(ServiceJvm s, Pattern line) throws Exception {
        int port = Integer.parseInt(s.await(line, Duration.ofSeconds(120)));
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        int last = -1;
        while (System.nanoTime() < deadline) {
            try {
                last = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/ready")).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode();
                if (last == 200) return;
            } catch (java.io.IOException notYet) {
                // listening soon
            }
            Thread.sleep(100);
        }
        throw new AssertionError(s.name() + ": /ready answered " + last + "\n" + s.output());
    }

    private String logsOfRunning() {
        StringBuilder b = new StringBuilder();
        running.forEach((k, s) -> {
            String out = s.output();
            b.append("\n--- ").append(k).append(" (tail) ---\n").append(out, Math.max(0, out.length() - 3000), out.length());
        });
        return b.toString();
    }

    /** cli's classes and runtime classpath, as the launcher runs them (set by embedded's pom). */
    private static List<String> cliClasspath() throws Exception {
        String classes = System.getProperty("sqloop.cli.classes");
        Path cp = Path.of(System.getProperty("sqloop.cli.classpath"));
        assertTrue(Files.isRegularFile(cp), cp + " is written when cli is packaged");
        List<String> entries = new ArrayList<>();
        entries.add(classes);
        entries.addAll(Arrays.asList(Files.readString(cp).strip().split(File.pathSeparator)));
        return entries;
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
