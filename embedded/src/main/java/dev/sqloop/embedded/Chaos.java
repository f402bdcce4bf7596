package dev.sqloop.embedded;

import dev.sqloop.embedded.pipeline.DemoBatch;
import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.cli.Args;
import dev.sqloop.cli.GatewayClient;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.config.KafkaSettings;
import dev.sqloop.common.runtime.KafkaClients;
import dev.sqloop.embedded.ServiceFleet.Kind;
import dev.sqloop.testkit.EmbeddedKafka;
import dev.sqloop.testkit.Ports;
import dev.sqloop.testkit.engines.DemoWarehouse;
import dev.sqloop.testkit.llm.Latency;
import dev.sqloop.testkit.llm.OracleResponder;
import dev.sqloop.testkit.llm.SimulatedLlm;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./sqloop chaos}: the reliability suite's crash test at batch scale. Every service in its own JVM as
 * {@code ./sqloop run SERVICE} starts it (generate and repair apart), the embedded broker, the simulated LLM with the
 * demo's fault mix, the DuckDB demo warehouse; N questions (default 10,000) through the gateway while one worker kind
 * after another is SIGKILLed and restarted at a fixed interval. At the end: every question has exactly one final
 * result in the results API and attempts within the budget; it prints the kills, the stall after each (until the
 * killed kind's consumer group commits again, or the gateway answers again), the duplicate final records on
 * {@code results} and the repeated LLM calls. Exit 0 when nothing was lost, stuck or counted twice; 1 otherwise.
 */
public final class Chaos {
    /** {@code ./sqloop chaos [--questions N] [--kill-every S] [--kinds K,K] [--llm-median-ms MS] [--out DIR]}. */
    @Command(name = "chaos",
            description = {dev.sqloop.cli.Main.CHAOS,
                "",
                "The real pipeline in seven JVMs (this one: broker, simulated LLM; one per service, as ./sqloop run starts",
                "them) under N questions while worker kinds are SIGKILLed and restarted in turn; then checks that every",
                "question has exactly one final result and prints kills, stalls, duplicates and repeated LLM calls.",
                "Exit 0 when nothing was lost, stuck or counted twice; 1 otherwise."})
    static final class Cmd implements Callable<Integer> {
        @Option(names = "--questions", paramLabel = "N", defaultValue = "10000", description = "questions (default ${DEFAULT-VALUE}; the demo's 40, each text made unique)")
        int questions;
        @Option(names = "--kill-every", paramLabel = "S", defaultValue = "30", description = "seconds between kills (default ${DEFAULT-VALUE})")
        int every;
        @Option(names = "--kinds", paramLabel = "K,K", split = ",", defaultValue = "fewshot,generate,repair,validator,executor,gateway",
                description = "kinds to kill in turn (default ${DEFAULT-VALUE})")
        List<String> kinds;
        @Option(names = "--llm-median-ms", paramLabel = "MS", defaultValue = "100", description = "simulated LLM latency, lognormal median (default ${DEFAULT-VALUE})")
        int llmMedianMs;
        @Option(names = "--out", paramLabel = "DIR", description = "logs and batch files (default $SQLOOP_HOME/.sqloop/chaos/run-<time>)")
        Path out;

        @Override
        public Integer call() throws Exception {
            return run(questions, every, kinds, llmMedianMs, out);
        }
    }

    static final int MAX_ATTEMPTS = 3;
    static final String PREFIX = "chaos";

    static final List<Kind> KINDS = ServiceFleet.kinds(PREFIX);

    /** One kill: when, what was final then, and how long until the kind worked again. */
    /**
     * @param stallSeconds from the kill until the restarted worker's group committed past its offsets at the kill (the
     *                     gateway: until the results API counted as many as before); NaN when no backlog was left
     * @param timedOut     no progress within {@link #RESUME_BOUND}: the stall is at least that, and the run fails
     */
    record Kill(String kind, double atSeconds, long finishedAtKill, double stallSeconds, boolean timedOut) {
        String describe() {
            if (Double.isNaN(stallSeconds)) return "no backlog left";
            return timedOut ? String.format(Locale.ROOT, "NO PROGRESS within %d s", RESUME_BOUND.toSeconds())
                    : String.format(Locale.ROOT, "stall %.1f s", stallSeconds);
        }
    }

    /** How long a restarted worker may take to make progress again before the run reports it as not resumed. */
    static final Duration RESUME_BOUND = Duration.ofMinutes(3);

    private Chaos() {}

    static int run(int questions, int every, List<String> kindArgs, int llmMedianMs, Path out) throws Exception {
        List<String> kinds = kindArgs.stream().map(String::strip).filter(s -> !s.isEmpty()).toList();
        for (String k : kinds) {
            if (KINDS.stream().noneMatch(x -> x.name().equals(k))) throw new Args.UsageException("--kinds: unknown kind '" + k + "'");
        }
        String home = System.getenv("SQLOOP_HOME");
        Path root = Path.of(home == null || home.isBlank() ? "." : home);
        Path work = out != null ? out : Path.of(root + "/.sqloop/chaos/run-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        Files.createDirectories(work);
        List<String> classpath = ServiceFleet.cliClasspath();
        Path warehouse = DemoWarehouse.create(work.resolve("warehouse.duckdb"));
        DemoBatch demo = DemoBatch.load();
        Map<String, String> gold = new LinkedHashMap<>();
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < questions; i++) {
            DemoBatch.Item item = demo.items().get(i % demo.items().size());
            String text = item.question() + " [chaos " + i + "]"; // unique: LLM requests map to one question each
            texts.add(text);
            gold.put(text, item.goldSql());
        }
        System.out.printf("sqloop chaos: %d questions, a kill every %d s (%s), out %s%n", questions, every, String.join(", ", kinds), work.toAbsolutePath());
        SimulatedLlm llm = SimulatedLlm.start(new OracleResponder(gold, DemoBatch.faultMix(), "duckdb", 13), 13).recording(false);
        llm.faults().latency(Latency.lognormal(Duration.ofMillis(llmMedianMs), 0.5));
        try (EmbeddedKafka broker = EmbeddedKafka.start(); Admin admin = KafkaClients.admin(KafkaSettings.of(broker.bootstrapServers()))) {
            KafkaClients.ensureTopics(KafkaSettings.of(broker.bootstrapServers()), Topics.ALL, Duration.ofSeconds(60));
            int gatewayPort = Ports.free();
            Map<String, String> env = environment(broker.bootstrapServers(), warehouse, llm, work, gatewayPort);
            try (ServiceFleet fleet = ServiceFleet.start(PREFIX, work, classpath,
                    List.of("-Xmx512m", "-XX:+UseSerialGC", "--enable-native-access=ALL-UNNAMED"), env, Map.of())) {
                GatewayClient client = new GatewayClient("http://127.0.0.1:" + gatewayPort, null);
                long start = System.nanoTime();
                List<String> batches = submit(client, texts, work);
                List<Kill> kills = new ArrayList<>();
                long nextKill = System.nanoTime() + Duration.ofSeconds(every).toNanos();
                long finished;
                while ((finished = finished(client, batches)) < questions) {
                    if (System.nanoTime() >= nextKill && !kinds.isEmpty()) {
                        Kind kind = KINDS.stream().filter(k -> k.name().equals(kinds.get(kills.size() % kinds.size()))).findFirst().orElseThrow();
                        kills.add(kill(kind, fleet, admin, client, batches, finished, start));
                        Kill k = kills.getLast();
                        System.out.printf("%n  kill %2d: %-9s at %6.1f s, %d/%d final, %s%n", kills.size(), k.kind(), k.atSeconds(),
                                k.finishedAtKill(), questions, k.describe());
                        nextKill = System.nanoTime() + Duration.ofSeconds(every).toNanos();
                    }
                    System.err.printf("\r  %d/%d final, %.0f s", finished, questions, (System.nanoTime() - start) / 1e9);
                    Thread.sleep(1000);
                }
                double seconds = (System.nanoTime() - start) / 1e9;
                System.err.println();
                Thread.sleep(3000); // a redone chain may still be on its way to a second final record
                return verify(client, batches, broker.bootstrapServers(), llm, questions, seconds, kills);
            }
        } finally {
            llm.close();
        }
    }

    private static Map<String, String> environment(String bootstrap, Path warehouse, SimulatedLlm llm, Path work, int gatewayPort) {
        Map<String, String> env = ServiceFleet.baseEnvironment(bootstrap, PREFIX, gatewayPort, work);
        env.put("SQLOOP_MAX_ATTEMPTS", Integer.toString(MAX_ATTEMPTS));
        env.put("SQLOOP_DATASOURCE_DEMO_DIALECT", "duckdb");
        env.put("SQLOOP_DATASOURCE_DEMO_URL", "jdbc:duckdb:" + warehouse.toAbsolutePath());
        env.put("SQLOOP_LLM_BASE_URL", llm.openAiBaseUrl());
        env.put("SQLOOP_LLM_MODEL", "simulated");
        env.put("SQLOOP_LLM_MAX_CONCURRENCY", "64");
        env.put("SQLOOP_FEWSHOT_SHORTCUT_EXACT", "false");
        return env;
    }

    private static List<String> submit(GatewayClient client, List<String> texts, Path work) throws Exception {
        List<String> batches = new ArrayList<>();
        int chunk = 10_000;
        for (int from = 0; from < texts.size(); from += chunk) {
            Path file = work.resolve("batch-" + from + ".jsonl");
            try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
                for (int i = from; i < Math.min(texts.size(), from + chunk); i++) {
                    w.write(JsonCodec.encodeToString(Map.of("question", texts.get(i), "datasource", "demo", "clientId", "chaos-" + i)));
                    w.write('\n');
                }
            }
            batches.add(client.submitBatchFile(file).get("batchId").asText());
        }
        return batches;
    }

    private static long finished(GatewayClient client, List<String> batches) throws Exception {
        long n = 0;
        for (String b : batches) n += client.getPatiently("/v1/batches/" + b, Duration.ofMinutes(2)).get("finished").asLong();
        return n;
    }

    private static Kill kill(Kind kind, ServiceFleet fleet, Admin admin, GatewayClient client, List<String> batches,
                             long finishedAtKill, long start) throws Exception {
        long killed = System.nanoTime();
        fleet.kill(kind.name());
        Map<TopicPartition, OffsetAndMetadata> atKill = kind.group() == null ? Map.of() : offsets(admin, kind.group());
        long committedAtKill = sum(atKill);
        // a group that has committed nothing yet has not started: its backlog is all still to come, so it is timed
        boolean drained = kind.group() != null && !atKill.isEmpty() && backlog(admin, atKill) == 0;
        fleet.restart(kind.name());
        if (drained) {
            // nothing left on its topic: there is no work whose resumption could be timed
            return new Kill(kind.name(), (killed - start) / 1e9, finishedAtKill, Double.NaN, false);
        }
        long deadline = killed + RESUME_BOUND.toNanos();
        boolean resumed = false;
        while (!resumed && System.nanoTime() < deadline) {
            if (kind.group() != null) {
                resumed = sum(offsets(admin, kind.group())) > committedAtKill;
            } else {
                try {
                    resumed = finished(client, batches) >= finishedAtKill;
                } catch (Exception restarting) {
                    // 503 while rebalancing, 404 while restoring its state, refused while starting
                }
            }
            if (!resumed) Thread.sleep(100);
        }
        return new Kill(kind.name(), (killed - start) / 1e9, finishedAtKill, (System.nanoTime() - killed) / 1e9, !resumed);
    }

    private static int verify(GatewayClient client, List<String> batches, String bootstrap, SimulatedLlm llm, int questions,
                              double seconds, List<Kill> kills) throws Exception {
        Map<String, Integer> finalsOnTopic = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : dev.sqloop.testkit.TopicDump.readAll(bootstrap, Topics.RESULTS.name(), Duration.ofMinutes(2))) {
            if (r.value() != null) finalsOnTopic.merge(new String(r.key(), StandardCharsets.UTF_8), 1, Integer::sum);
        }
        Set<String> seen = new HashSet<>();
        long attempts = 0;
        int twiceInApi = 0;
        int overBudget = 0;
        Map<String, Integer> reasons = new TreeMap<>();
        for (String b : batches) {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(client.stream("/v1/batches/" + b + "/results"), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    if (line.isBlank()) continue;
                    JsonNode n = JsonCodec.mapper().readTree(line);
                    if (!seen.add(n.get("questionId").asText())) twiceInApi++;
                    int a = n.get("attempts").asInt();
                    if (a < 1 || a > MAX_ATTEMPTS) overBudget++;
                    attempts += a;
                    reasons.merge(n.get("reason").asText(), 1, Integer::sum);
                }
            }
        }
        int duplicates = seen.stream().mapToInt(id -> finalsOnTopic.getOrDefault(id, 0) - 1).filter(d -> d > 0).sum();
        int missingOnTopic = (int) seen.stream().filter(id -> !finalsOnTopic.containsKey(id)).count();
        long calls = llm.stats().calls();
        int lost = questions - seen.size();
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "%nsqloop chaos: %d questions in %.1f s (%.1f questions/s) with %d kills%n", questions, seconds,
                questions / seconds, kills.size()));
        b.append(String.format(Locale.ROOT, "  final in the API          %d (lost %d, counted twice %d, attempts outside 1..%d: %d)%n",
                seen.size(), lost, twiceInApi, MAX_ATTEMPTS, overBudget));
        b.append(String.format(Locale.ROOT, "  outcomes                  %s%n", reasons));
        b.append(String.format(Locale.ROOT, "  duplicate final records   %d on results (%.2f %% of questions)%n", duplicates, 100.0 * duplicates / questions));
        b.append(String.format(Locale.ROOT, "  LLM calls                 %d for %d attempts: %d repeated (%.2f %%)%n", calls, attempts,
                calls - attempts, 100.0 * (calls - attempts) / Math.max(1, attempts)));
        Map<String, List<Double>> stalls = new TreeMap<>();
        kills.forEach(k -> stalls.computeIfAbsent(k.kind(), x -> new ArrayList<>()).add(k.stallSeconds()));
        stalls.forEach((kind, s) -> {
            double[] timed = s.stream().mapToDouble(Double::doubleValue).filter(d -> !Double.isNaN(d)).toArray();
            b.append(String.format(Locale.ROOT, "  %-9s killed %2d×, stall mean %.1f s, max %.1f s (%d with no backlog left: nothing to time)%n", kind,
                    s.size(), Arrays.stream(timed).average().orElse(0), Arrays.stream(timed).max().orElse(0), s.size() - timed.length));
        });
        long notResumed = kills.stream().filter(Kill::timedOut).count();
        if (notResumed > 0) {
            b.append(String.format(Locale.ROOT, "  not resumed               %d kills made no progress within %d s (their stall above is that bound)%n",
                    notResumed, RESUME_BOUND.toSeconds()));
        }
        System.out.print(b);
        boolean ok = lost == 0 && twiceInApi == 0 && overBudget == 0 && missingOnTopic == 0 && notResumed == 0;
        System.out.println(ok ? "OK: every question has exactly one final result, every killed worker resumed" : "FAILED: see above");
        return ok ? 0 : 1;
    }

    /** The group's committed offset per partition. */
    static Map<TopicPartition, OffsetAndMetadata> offsets(Admin admin, String group) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
        admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get().forEach((tp, o) -> {
            if (o != null) out.put(tp, o);
        });
        return out;
    }

    static long sum(Map<TopicPartition, OffsetAndMetadata> offsets) {
        return offsets.values().stream().mapToLong(OffsetAndMetadata::offset).sum();
    }

    /** Records on the partitions of {@code committed} not yet committed. */
    static long backlog(Admin admin, Map<TopicPartition, OffsetAndMetadata> committed) throws Exception {
        Map<TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> latest = new HashMap<>();
        committed.keySet().forEach(tp -> latest.put(tp, org.apache.kafka.clients.admin.OffsetSpec.latest()));
        long backlog = 0;
        for (var e : admin.listOffsets(latest).all().get().entrySet()) backlog += e.getValue().offset() - committed.get(e.getKey()).offset();
        return backlog;
    }
}
