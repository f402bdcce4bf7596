package dev.sqloop.lab;

import dev.sqloop.cli.Args;
import dev.sqloop.cli.GatewayClient;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.message.Message;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.metrics.Metrics;
import dev.sqloop.common.runtime.Outcome;
import dev.sqloop.common.runtime.Stage;
import dev.sqloop.common.runtime.StageRunner;
import dev.sqloop.embedded.pipeline.DemoBatch;
import dev.sqloop.embedded.pipeline.EmbeddedPipeline;
import dev.sqloop.store.Embedder;
import dev.sqloop.testkit.engines.DemoWarehouse;
import dev.sqloop.testkit.llm.Latency;
import dev.sqloop.testkit.llm.OracleResponder;
import dev.sqloop.testkit.llm.SimulatedLlm;
import io.micrometer.core.instrument.FunctionCounter;
import java.io.IOException;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * {@code ./sqloop bench pipeline}: N questions through the whole pipeline in one JVM (real broker, every stage,
 * the gateway's HTTP API, DuckDB, the simulated LLM with a latency distribution and the demo's fault mix), measured
 * against its two physical limits:
 * <ul>
 *   <li>the LLM-bound limit {@code C / (mean LLM latency × LLM calls per question)}: what C concurrent calls to an
 *       LLM of that latency allow, whatever the pipeline does;</li>
 *   <li>the CPU-bound limit {@code cores / CPU per question}: what this machine allows, with the CPU split by part
 *       ({@link CpuProfile}).</li>
 * </ul>
 * Then the same questions, one at a time, through a sequential self-correcting agent built from the same stage
 * instances (retrieve, generate, validate, execute, repair: the same prompts, LLM server, engine and budget), for the
 * speed-up that batching buys.
 */
public final class PipelineBenchmark {
    static final String DATASOURCE = "demo";

    static final String USAGE = """
            usage: ./sqloop bench pipeline [options]

            N questions through the whole pipeline in one JVM (embedded broker, every stage, gateway, DuckDB TPC-H
            warehouse, simulated LLM with the demo's fault mix), against the LLM-bound and CPU-bound limits, plus a
            sequential self-correcting agent on the same stages for the speed-up.
            options:
              --questions N        questions per run (default 10000; the demo's 40 repeated, exact shortcut off)
              --regime R           llm (lognormal LLM latency), cpu (LLM latency 0) or both (default both)
              --llm-median-ms MS   median LLM latency in the llm regime (default 800; lognormal, sigma 0.5)
              --concurrency C      concurrent LLM calls, SQLOOP_LLM_MAX_CONCURRENCY (default 256)
              --lane L             on, off or both: the corrections' priority lane (default on; both = before/after)
              --agent N            questions through the sequential agent (default 30 in the llm regime, 300 in cpu)
              --cancel-at F        cancel the batch once a fraction F (0 < F < 1) of it is final, and measure how soon the
                                   LLM stops being called and every question is final (cancelled) instead of the limits
              --idle-seconds S     before the batch, measure what the started pipeline burns with no work for S
                                   seconds, by part (default 10; 0 skips): a slow LLM's run pays it per wall second
              --unique             each question's text made unique ("… (#i)"): a batch of new questions, so capture embeds
                                   and stores every success (the default repeats the demo's 40, which capture has seen)
              --processes          each service in its own JVM, as ./sqloop run starts it (this JVM: broker, LLM, harness):
                                   CPU per question and heap per process from the kernel and each service's /metrics, a
                                   line per tenth of the batch as it becomes final (questions/s, CPU per question per
                                   service and its JIT's share, the probe under load), and the steady state (second half)
              --jvm-opts "OPTS"    the services' JVM options with --processes (default "-Xmx768m -XX:+UseG1GC", the compose stack's)
              --perf S             with --processes: record every CPU with Linux perf for S seconds from half the results and
                                   split each process's CPU per question by kind of code (Java, ONNX, DuckDB, JIT compiler,
                                   GC, kernel...), which JFR cannot (needs perf, and root or perf_event_paranoid -1)
              --out DIR            where timelines go (default $SQLOOP_HOME/.sqloop/bench/pipeline-<time>)
            """;

    private PipelineBenchmark() {}

    /**
     * @param cancelAt the fraction of the batch final when it is cancelled; 0: not cancelled
     * @param unique   each question's text made unique ({@link #text}): a batch of new questions, not the demo's 40 again
     */
    record Settings(int questions, Duration llmMedian, int concurrency, boolean lane, int agent, String regime, double cancelAt,
                    int idleSeconds, boolean unique, int perfSeconds) {}

    /**
     * This process's own {@code SQLOOP_*} settings for the pipeline a bench starts (not the LLM's, which the bench
     * points at its simulated one, nor {@code SQLOOP_HOME}). The question deadline keeps its default: it counts from
     * when the pipeline starts a question, so a batch longer than it loses nothing to the wait behind its own questions.
     */
    static void fromEnvironment(Map<String, String> settings) {
        System.getenv().forEach((k, v) -> {
            if (k.startsWith("SQLOOP_") && !k.startsWith("SQLOOP_LLM_") && !k.equals("SQLOOP_HOME")) settings.put(k, v);
        });
    }

    public static int run(Args args) throws Exception {
        int questions = args.integer("questions", 10_000);
        String regime = args.string("regime", "both");
        String lane = args.string("lane", "on");
        int concurrency = args.integer("concurrency", 256);
        Duration median = Duration.ofMillis(args.integer("llm-median-ms", 800));
        String home = System.getenv("SQLOOP_HOME");
        Path out = Path.of(args.string("out", (home == null || home.isBlank() ? "." : home) + "/.sqloop/bench/pipeline-"
                + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))));
        if (!List.of("llm", "cpu", "both").contains(regime)) throw new Args.UsageException("--regime is llm, cpu or both");
        if (!List.of("on", "off", "both").contains(lane)) throw new Args.UsageException("--lane is on, off or both");
        double cancelAt = Double.parseDouble(args.string("cancel-at", "0"));
        if (cancelAt < 0 || cancelAt >= 1) throw new Args.UsageException("--cancel-at is a fraction of the batch: 0 < F < 1");
        int idleSeconds = args.integer("idle-seconds", 10);
        boolean processes = args.flag("processes");
        boolean unique = args.flag("unique");
        List<String> jvmOpts = FleetBenchmark.jvmOpts(args.string("jvm-opts", null));
        if (processes && cancelAt > 0) throw new Args.UsageException("--cancel-at runs in one JVM: leave out --processes");
        if (idleSeconds < 0) throw new Args.UsageException("--idle-seconds is 0 or more");
        int perfSeconds = args.integer("perf", 0);
        if (perfSeconds < 0) throw new Args.UsageException("--perf is 0 or more seconds");
        if (perfSeconds > 0 && !processes) throw new Args.UsageException("--perf splits each service's process: add --processes");
        if (perfSeconds > 0 && !NativeProfile.available()) throw new Args.UsageException("--perf needs Linux perf on the PATH (apt-get install linux-perf)");
        Files.createDirectories(out);
        Path warehouse = DemoWarehouse.create(out.resolve("warehouse.duckdb"));
        System.out.printf("sqloop bench pipeline: %d questions per run, %d cores, JVM max heap %d MiB, out %s%n", questions,
                Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 20, out.toAbsolutePath());
        List<Settings> runs = new ArrayList<>();
        for (String r : regime.equals("both") ? List.of("llm", "cpu") : List.of(regime)) {
            Duration latency = r.equals("llm") ? median : Duration.ZERO;
            int agent = args.integer("agent", r.equals("llm") ? 30 : 300);
            for (String l : lane.equals("both") ? List.of("off", "on") : List.of(lane)) {
                runs.add(new Settings(questions, latency, concurrency, l.equals("on"), cancelAt > 0 ? 0 : agent, r, cancelAt, idleSeconds,
                        unique, perfSeconds));
            }
        }
        List<Report> reports = new ArrayList<>();
        for (Settings s : runs) {
            // harness work runs on a named thread, so the CPU profile does not count it as native library time
            Report[] holder = new Report[1];
            Exception[] failure = new Exception[1];
            Thread t = Thread.ofPlatform().name("bench-harness").start(() -> {
                try {
                    holder[0] = processes ? FleetBenchmark.runOnce(s, warehouse, out, jvmOpts) : runOnce(s, warehouse, out);
                } catch (Exception e) {
                    failure[0] = e;
                }
            });
            t.join();
            if (failure[0] != null) throw failure[0];
            reports.add(holder[0]);
            System.out.println(holder[0].text());
        }
        if (reports.size() > 1) System.out.println(comparison(reports));
        return 0;
    }

    /**
     * What the started pipeline burns with no work: every consumer's poll loop, heartbeats and commits, the Streams
     * threads, metrics, the broker. A batch pays it per wall second whatever its size, so in the LLM-bound regime (slow
     * calls, long wall time) it is a large part of the CPU per question.
     */
    record Idle(int seconds, Map<String, Long> cpu, Map<String, List<String>> hottest) {
        static Idle measure(int seconds, Path work) throws Exception {
            if (seconds == 0) return new Idle(0, Map.of(), Map.of());
            try (CpuProfile profile = CpuProfile.start(work.resolve("idle.jfr"))) {
                Thread.sleep(seconds * 1000L);
                Map<String, Long> cpu = profile.stop();
                Map<String, List<String>> hottest = new TreeMap<>();
                for (String part : cpu.keySet()) hottest.put(part, profile.hottest(part, 2));
                return new Idle(seconds, cpu, hottest);
            }
        }

        /** Percent of one core: of {@code part}, or of the whole process when null. */
        double share(String part) {
            return 100.0 * cpu.getOrDefault(part == null ? "total" : part, 0L) / 1e9 / seconds;
        }

        /** Percent of one core for everything but the broker, the simulated LLM and the JIT (start-up, not idling). */
        double sqloopShare() {
            return share(null) - share(CpuProfile.BROKER) - share(CpuProfile.LLM) - share(CpuProfile.JIT);
        }

        /** The biggest idle parts with their hottest code, one line. */
        String top(int n) {
            return cpu.entrySet().stream().filter(e -> !List.of("total", "samples").contains(e.getKey()))
                    .sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(n)
                    .map(e -> String.format(Locale.ROOT, "%s %.1f %% (%s)", e.getKey(), 100.0 * e.getValue() / 1e9 / seconds,
                            String.join(", ", hottest.getOrDefault(e.getKey(), List.of()))))
                    .reduce((a, b) -> a + "; " + b).orElse("");
        }
    }

    /** What one run measured, and its printout. */
    record Report(Settings settings, double throughput, long p50, long p95, long p99, Map<Integer, long[]> byAttempts, String text) {}

    static Report runOnce(Settings s, Path warehouse, Path out) throws Exception {
        String name = s.regime() + "-lane-" + (s.lane() ? "on" : "off");
        Path work = out.resolve(name);
        DemoBatch batch = DemoBatch.load();
        SimulatedLlm llm = SimulatedLlm.start(new OracleResponder(gold(batch, s), DemoBatch.faultMix(), "duckdb", 7), 7)
                .recording(false);
        if (!s.llmMedian().isZero()) llm.faults().latency(Latency.lognormal(s.llmMedian(), 0.5));
        Map<String, String> settings = new HashMap<>();
        fromEnvironment(settings);
        settings.put("SQLOOP_DATASOURCE_DEMO_DIALECT", "duckdb");
        settings.put("SQLOOP_DATASOURCE_DEMO_URL", "jdbc:duckdb:" + warehouse.toAbsolutePath());
        settings.put("SQLOOP_LLM_MAX_CONCURRENCY", Integer.toString(s.concurrency()));
        settings.put("SQLOOP_FEWSHOT_SHORTCUT_EXACT", "false"); // repeated questions must go to the LLM, not to a captured answer
        settings.put("SQLOOP_REPAIR_PRIORITY_LANE", Boolean.toString(s.lane()));
        try (EmbeddedPipeline pipeline = EmbeddedPipeline.start(work, settings, llm, false)) {
            pipeline.seed(DemoBatch.copyResource("/demo/seed.yaml", work.resolve("seed.yaml")), DATASOURCE, "duckdb");
            GatewayClient client = new GatewayClient(pipeline.gatewayUrl(), null);
            Idle idle = Idle.measure(s.idleSeconds(), work);
            Timeline timeline = new Timeline();
            ResultCollector results = new ResultCollector(pipeline.bootstrapServers(), s.questions());
            long llmCallsStart = llm.stats().calls();
            Slots slots = Slots.of(pipeline);
            Map<String, KafkaTraffic.Usage> trafficBefore = KafkaTraffic.snapshot(pipeline.bootstrapServers());
            CpuProfile profile = CpuProfile.start(work.resolve("profile.jfr"));
            long sentencesBefore = Embedder.sentences();
            long start = System.nanoTime();
            Thread sampler = timeline.sample(results::finished, () -> llm.stats().calls() - llmCallsStart, slots::busySince, start);
            try {
                Startup startup = Startup.follow(llm, results, start);
                List<String> batches = submit(client, batch, s, work);
                startup.accepted();
                Cancellation cancellation = s.cancelAt() > 0 ? Cancellation.when(s, results, llm, client, batches, start) : null;
                results.await(Duration.ofMinutes(30), start);
                double seconds = (System.nanoTime() - start) / 1e9;
                double captureTail = cancellation != null ? 0
                        : CaptureBacklog.awaitDrained(pipeline.bootstrapServers(), settings.getOrDefault("SQLOOP_GROUP_PREFIX", "sqloop"), Duration.ofMinutes(2));
                double slotSeconds = slots.busySince();
                Map<String, Long> cpu = profile.stop(startup.firstCallInstant());
                Embedding embedding = Embedding.measure(Embedder.sentences() - sentencesBefore,
                        batch.items().stream().map(DemoBatch.Item::question).toList(),
                        dev.sqloop.store.ExampleStoreConfig.fromEnv(new dev.sqloop.common.config.EnvConfig(settings)).embeddingModel());
                Map<String, KafkaTraffic.Usage> moved = KafkaTraffic.between(trafficBefore, KafkaTraffic.snapshot(pipeline.bootstrapServers()));
                List<String> traffic = KafkaTraffic.perQuestion(moved, results.finished());
                WarehouseCost engine = WarehouseCost.of(warehouse, batch, moved, results.finished());
                startup.before(profile.before(4));
                Map<String, List<String>> hottest = new TreeMap<>();
                for (String part : cpu.keySet()) hottest.put(part, profile.hottest(part, 4));
                profile.close();
                sampler.interrupt();
                SimulatedLlm.Stats llmStats = llm.stats();
                long llmCalls = llmStats.calls() - llmCallsStart;
                timeline.write(work.resolve("timeline.csv"), work.resolve("timeline.html"), name, s.concurrency());
                if (cancellation != null) return new Report(s, results.finished() / seconds, 0, 0, 0, Map.of(), cancellation.report(results, seconds));
                Agent.Result agent = Agent.run(pipeline, batch, Math.min(s.agent(), s.questions()), 3);
                return report(s, results, seconds, cpu, hottest, llmCalls, llmStats, slotSeconds, agent, timeline, work, idle, startup,
                        traffic, embedding, engine, captureTail);
            } finally {
                // a failed run (e.g. timed out) must not leave its sampler and recording running in this JVM: a `--regime
                // both` run would carry them into its next regime; after a good run this repeats what was done already
                sampler.interrupt();
                profile.close();
            }
        }
    }

    /**
     * The generator's LLM slots: slot-seconds held during the run ({@code sqloop.llm.slots.busy}, read from its
     * registry as Prometheus would), which split the ratio to the LLM-bound limit into how full the slots were kept and
     * how much longer than the LLM's latency each call held one.
     */
    record Slots(FunctionCounter counter, double before) {
        static Slots of(EmbeddedPipeline pipeline) {
            var counter = pipeline.registries().get(EmbeddedPipeline.GENERATOR).get(Metrics.LLM_SLOTS_BUSY)
                    .functionCounter();
            return new Slots(counter, counter.count());
        }

        double busySince() {
            return counter.count() - before;
        }
    }

    /**
     * The sentences the run embedded, and the CPU one costs: measured after the run on this platform thread, since
     * the embedding is native code (JFR cannot sample it) on virtual threads (no per-thread CPU clock).
     */
    record Embedding(long sentences, double cpuMillisEach, Embedder.Model model) {
        static Embedding measure(long sentences, List<String> questions, Embedder.Model model) {
            return new Embedding(sentences, sentences == 0 ? 0 : new Embedder(model).cpuMillisPerSentence(questions, 200), model);
        }
    }

    /**
     * The batch's first seconds: when the gateway accepted it (a batch is one Kafka transaction, so no stage sees a
     * question before that), when the first LLM call began and when the first question was final. Followed every 5 ms.
     */
    static final class Startup {
        private final long start;
        private volatile long accepted, firstCall, firstResult;
        private volatile Instant firstCallInstant = Instant.MAX;
        private List<String> before = List.of();

        private Startup(long start) {
            this.start = start;
        }

        static Startup follow(SimulatedLlm llm, ResultCollector results, long start) {
            Startup s = new Startup(start);
            long base = llm.stats().calls(); // counted when a call arrives, before its latency
            Thread.ofPlatform().daemon().name("bench-harness-startup").start(() -> {
                try {
                    while (s.firstCall == 0 || s.firstResult == 0) {
                        long now = System.nanoTime();
                        if (s.firstCall == 0 && llm.stats().calls() > base) {
                            s.firstCallInstant = Instant.now();
                            s.firstCall = now;
                        }
                        if (s.firstResult == 0 && results.finished() > 0) s.firstResult = now;
                        Thread.sleep(5);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            return s;
        }

        void accepted() {
            accepted = System.nanoTime();
        }

        Instant firstCallInstant() {
            return firstCallInstant;
        }

        /** Where the CPU went until the first LLM call. */
        void before(List<String> parts) {
            before = parts;
        }

        private String at(long t) {
            return t == 0 ? "never" : String.format(Locale.ROOT, "%.2f s", (t - start) / 1e9);
        }

        String line() {
            return String.format(Locale.ROOT, "  start                   batch accepted at %s; first LLM call at %s; first result at %s%n",
                    at(accepted), at(firstCall), at(firstResult))
                    + (before.isEmpty() ? "" : "                          CPU before the first LLM call: " + String.join("; ", before) + "\n");
        }
    }

    /**
     * Cancels the submitted batches once {@code cancelAt} of the questions are final, then follows the LLM's call count
     * every 20 ms: how many calls were made after the cancel (at most those already holding one of the C slots should
     * finish), when the last one started, and when the last question became final.
     */
    static final class Cancellation {
        private final long start;
        private volatile long cancelledAt;
        private volatile int finishedAtCancel;
        private volatile long callsAtCancel;
        private volatile long lastCallAt;
        private volatile long callsAfter;
        private final int concurrency;

        private Cancellation(long start, int concurrency) {
            this.start = start;
            this.concurrency = concurrency;
        }

        static Cancellation when(Settings s, ResultCollector results, SimulatedLlm llm, GatewayClient client, List<String> batches, long start) {
            Cancellation c = new Cancellation(start, s.concurrency());
            int threshold = (int) Math.ceil(s.cancelAt() * s.questions());
            Thread.ofPlatform().daemon().name("bench-harness-cancel").start(() -> {
                try {
                    while (results.finished() < threshold) Thread.sleep(20);
                    c.finishedAtCancel = results.finished();
                    c.callsAtCancel = llm.stats().calls();
                    c.cancelledAt = System.nanoTime();
                    c.lastCallAt = c.cancelledAt;
                    for (String b : batches) client.delete("/v1/batches/" + b, 202);
                    while (results.finished() < s.questions()) {
                        long calls = llm.stats().calls();
                        if (calls > c.callsAtCancel + c.callsAfter) {
                            c.callsAfter = calls - c.callsAtCancel;
                            c.lastCallAt = System.nanoTime();
                        }
                        Thread.sleep(20);
                    }
                } catch (Exception e) {
                    System.err.println("bench: cancelling failed: " + e);
                }
            });
            return c;
        }

        String report(ResultCollector r, double seconds) {
            long end = start + (long) (seconds * 1e9);
            return String.format(Locale.ROOT, """

                    == cancelled at %d of %d final (%.1f s into the batch) ==
                      LLM calls after the cancel   %d (the C = %d slots bound those already under way); the last began %.2f s after it
                      every question final         %.1f s after the cancel (%.0f questions/s ended)
                      outcomes                     %s
                    """, finishedAtCancel, r.finished(), (cancelledAt - start) / 1e9, callsAfter, concurrency,
                    (lastCallAt - cancelledAt) / 1e9, (end - cancelledAt) / 1e9,
                    (r.finished() - finishedAtCancel) / Math.max(1e-9, (end - cancelledAt) / 1e9), r.outcomes);
        }
    }

    /** The text of the batch's {@code i}-th question: the demo's, made unique with {@code unique}. */
    static String text(DemoBatch batch, int i, boolean unique) {
        String q = batch.items().get(i % batch.items().size()).question();
        return unique ? q + " (#" + i + ")" : q;
    }

    /** What the simulated LLM knows: each text the batch will send and its gold SQL. */
    static Map<String, String> gold(DemoBatch batch, Settings s) {
        if (!s.unique()) return batch.goldByQuestion();
        Map<String, String> gold = new HashMap<>();
        for (int i = 0; i < s.questions(); i++) gold.put(text(batch, i, true), batch.items().get(i % batch.items().size()).goldSql());
        return gold;
    }

    static List<String> submit(GatewayClient client, DemoBatch batch, Settings s, Path work) throws Exception {
        int n = s.questions();
        List<String> batches = new ArrayList<>();
        int chunk = 10_000;
        for (int from = 0; from < n; from += chunk) {
            Path file = work.resolve("batch-" + from + ".jsonl");
            try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
                for (int i = from; i < Math.min(n, from + chunk); i++) {
                    DemoBatch.Item item = batch.items().get(i % batch.items().size());
                    w.write(JsonCodec.encodeToString(Map.of("question", text(batch, i, s.unique()), "datasource", DATASOURCE,
                            "clientId", item.id() + "-" + i)));
                    w.write('\n');
                }
            }
            batches.add(client.submitBatchFile(file).get("batchId").asText());
            Files.delete(file);
        }
        return batches;
    }

    /**
     * The ratio to the LLM-bound limit ({@code calls × latency / (C × wall)}), split exactly: (slot-seconds / (C ×
     * wall)) × (calls × latency / slot-seconds), how full the C slots were kept times the latency's share of a slot's
     * time per call; the rest of that time is the simulator's handler (its own work) and the client's (HTTP, JSON,
     * waits for a CPU).
     */
    static String slotsLine(double ratio, int concurrency, double seconds, long calls, double slotSeconds, double latency,
                            double handling) {
        if (calls == 0 || slotSeconds <= 0) return "";
        double held = slotSeconds / calls;
        return String.format(Locale.ROOT, "  LLM slots               ratio %.2f = %.2f of the %d slots busy over the wall time × %.2f = latency / slot time"
                        + " per call (%.0f ms held per call: %.0f ms latency, %.0f ms more in the simulator's handler, %.0f ms in the client)%n",
                ratio, slotSeconds / (concurrency * seconds), concurrency, latency / held,
                held * 1000, latency * 1000, (handling - latency) * 1000, (held - handling) * 1000);
    }

    static Report report(Settings s, ResultCollector r, double seconds, Map<String, Long> cpu, Map<String, List<String>> hottest,
                         long llmCalls, SimulatedLlm.Stats llm, double slotSeconds, Agent.Result agent, Timeline timeline,
                         Path work, Idle idle, Startup startup, List<String> traffic, Embedding embedding, WarehouseCost engine,
                         double captureTail) {
        Duration llmMean = llm.meanLatency();
        int n = r.finished();
        double throughput = n / seconds;
        double callsPerQuestion = (double) llmCalls / n;
        double llmSeconds = llmMean.toNanos() / 1e9;
        double llmLimit = llmSeconds <= 0 ? Double.POSITIVE_INFINITY : s.concurrency() / (llmSeconds * callsPerQuestion);
        int cores = Runtime.getRuntime().availableProcessors();
        // the profile's own window: submission to the last result, not the parsing of its recording afterwards
        long cpuNanos = cpu.getOrDefault("total", 0L);
        double cpuMsPerQuestion = cpuNanos / 1e6 / n;
        long[] lat = r.latencies();
        long p50 = percentile(lat, 50), p95 = percentile(lat, 95), p99 = percentile(lat, 99);
        double meanE2e = Arrays.stream(lat).average().orElse(0);
        double llmPerQuestion = llmSeconds * 1000 * callsPerQuestion;
        double enginePerQuestion = (double) r.engineMillis / n;
        double overhead = meanE2e - llmPerQuestion - enginePerQuestion;
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "%n== %s regime, corrections lane %s: %d %squestions, C = %d, LLM latency %s ==%n",
                s.regime(), s.lane() ? "on" : "off", n, s.unique() ? "unique " : "", s.concurrency(),
                s.llmMedian().isZero() ? "0" : "lognormal median " + s.llmMedian().toMillis() + " ms, sigma 0.5"));
        b.append(String.format(Locale.ROOT, "  outcomes                %s; average attempts %.2f%n", r.outcomes, (double) r.attempts / n));
        b.append(String.format(Locale.ROOT, "  throughput              %.1f questions/s (%.1f s wall)%n", throughput, seconds));
        b.append(captureLine(captureTail));
        b.append(String.format(Locale.ROOT, "  end-to-end              p50 %d ms, p95 %d ms, p99 %d ms (batch wall %.0f ms: p50 is %.0f %% of it)%n",
                p50, p95, p99, seconds * 1000, 100.0 * p50 / (seconds * 1000)));
        b.append("  by attempts             ");
        r.byAttempts().forEach((a, l) -> b.append(String.format(Locale.ROOT, "%d: n=%d p50 %d ms p95 %d ms; ", a, l.length,
                percentile(l, 50), percentile(l, 95))));
        b.append('\n');
        b.append(startup.line());
        b.append(String.format(Locale.ROOT, "  LLM                     %d calls (%.2f per question), mean latency %.0f ms%n", llmCalls,
                callsPerQuestion, llmSeconds * 1000));
        if (Double.isFinite(llmLimit)) {
            double ratio = throughput / llmLimit;
            b.append(String.format(Locale.ROOT, "  LLM-bound limit         %.1f questions/s = %d / (%.3f s × %.2f); ratio %.2f%n", llmLimit,
                    s.concurrency(), llmSeconds, callsPerQuestion, ratio));
            b.append(slotsLine(ratio, s.concurrency(), seconds, llmCalls, slotSeconds, llmSeconds,
                    llm.meanHandling().toNanos() / 1e9));
        }
        double cpuSeconds = cpuWindow(seconds, captureTail);
        b.append(String.format(Locale.ROOT, "  CPU                     %.1f ms per question (process, %d cores busy %.0f %%); CPU-bound limit %.1f questions/s = %d cores / %.1f ms; ratio %.2f%n",
                cpuMsPerQuestion, cores, 100.0 * cpuNanos / 1e9 / cpuSeconds / cores, cores * 1000 / cpuMsPerQuestion, cores, cpuMsPerQuestion,
                n / cpuSeconds / (cores * 1000 / cpuMsPerQuestion)));
        b.append(String.format(Locale.ROOT, "                          %.2f questions/s per core%n", throughput / cores));
        b.append("  CPU per question by part (ms; JFR samples split the Java threads' CPU, the kernel gives GC/JIT/native):\n");
        double pipelineOnly = 0;
        List<Map.Entry<String, Long>> parts = cpu.entrySet().stream().filter(e -> !e.getKey().equals("total") && !e.getKey().equals("samples"))
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed()).toList();
        for (Map.Entry<String, Long> e : parts) {
            double ms = e.getValue() / 1e6 / n;
            if (!e.getKey().equals(CpuProfile.LLM) && !e.getKey().equals(CpuProfile.BROKER)) pipelineOnly += ms;
            b.append(String.format(Locale.ROOT, "    %-34s %7.2f  %5.1f %%  %s%n", e.getKey(), ms, cpuNanos == 0 ? 0 : 100.0 * e.getValue() / cpuNanos,
                    String.join(", ", hottest.getOrDefault(e.getKey(), List.of()))));
        }
        b.append(String.format(Locale.ROOT, "    %-34s %7.2f  (everything but the simulated LLM and the broker; %d samples)%n",
                "= sqloop itself", pipelineOnly, cpu.getOrDefault("samples", 0L)));
        if (embedding.sentences() > 0) {
            b.append(String.format(Locale.ROOT, "  embedding               %.2f sentences per question × %.2f ms of CPU each (%s, one thread, measured after the run) "
                            + "= %.1f ms per question of ONNX code, which JFR's samples cannot see, so the parts above carry it in proportion%n",
                    (double) embedding.sentences() / n, embedding.cpuMillisEach(), embedding.model().wireName(),
                    embedding.sentences() * embedding.cpuMillisEach() / n));
        }
        if (engine.queriesPerQuestion() > 0) b.append("  warehouse               ").append(engine.line(pipelineOnly)).append('\n');
        if (idle.seconds() > 0) {
            b.append(String.format(Locale.ROOT, "  idle cost               %.1f %% of a core with no work (%d s before the batch; JIT %.1f %%), sqloop itself %.1f %%: %.1f ms per question at this run's pace%n",
                    idle.share(null), idle.seconds(), idle.share(CpuProfile.JIT), idle.sqloopShare(),
                    idle.sqloopShare() / 100 * seconds * 1000 / n));
            b.append("                          ").append(idle.top(4)).append('\n');
        }
        b.append(String.format(Locale.ROOT, "  time per question       mean end-to-end %.0f ms = LLM %.0f ms + engine %.1f ms + pipeline overhead %.0f ms (%.0f %%: queueing for LLM slots and CPU, Kafka hops)%n",
                meanE2e, llmPerQuestion, enginePerQuestion, overhead, meanE2e == 0 ? 0 : 100 * overhead / meanE2e));
        for (int i = 0; i < traffic.size(); i++) {
            b.append(i == 0 ? "  Kafka                   " : "                            ").append(traffic.get(i)).append('\n');
        }
        b.append(String.format(Locale.ROOT, "  heap                    peak used %d MiB; old gen after GC: first quarter %d MiB, last quarter %d MiB%n",
                timeline.peakHeap() >> 20, timeline.oldGenAfterGc(0) >> 20, timeline.oldGenAfterGc(3) >> 20));
        if (agent.questions() == 0) {
            b.append("  sequential agent        not run (--agent 0)\n");
        } else {
            b.append(String.format(Locale.ROOT, "  sequential agent        %d questions in %.1f s = %.2f questions/s (%.2f average attempts, %d succeeded); pipeline speed-up %.1f×%n",
                    agent.questions(), agent.seconds(), agent.questions() / agent.seconds(), agent.averageAttempts(), agent.succeeded(),
                    throughput / (agent.questions() / agent.seconds())));
        }
        b.append("  timeline                ").append(work.resolve("timeline.html").toAbsolutePath()).append('\n');
        return new Report(s, throughput, p50, p95, p99, r.byAttempts(), b.toString());
    }

    /**
     * The seconds the CPU figures cover: the batch and capture's tail after it (2 minutes when it never caught up). The
     * ratio to the CPU-bound limit takes the questions over this window, since the CPU per question counts the tail.
     */
    static double cpuWindow(double seconds, double captureTail) {
        return seconds + (Double.isNaN(captureTail) ? 120 : captureTail);
    }

    /** When capture had learnt from every success, after the last result: its CPU until then is in the run's figures. */
    static String captureLine(double tail) {
        return Double.isNaN(tail) ? "  capture                 still behind 2 minutes after the last result: the CPU figures stop there\n"
                : String.format(Locale.ROOT, "  capture                 caught up %.1f s after the last result (its CPU until then is in the figures below)%n", tail);
    }

    static String comparison(List<Report> reports) {
        StringBuilder b = new StringBuilder("\n== comparison ==\n");
        b.append(String.format(Locale.ROOT, "  %-22s %10s %9s %9s %9s %22s%n", "run", "q/s", "p50 ms", "p95 ms", "p99 ms", "p50/p95 of 2+ attempts"));
        for (Report r : reports) {
            long[] corrected = r.byAttempts().entrySet().stream().filter(e -> e.getKey() > 1)
                    .flatMapToLong(e -> Arrays.stream(e.getValue())).toArray();
            Arrays.sort(corrected);
            b.append(String.format(Locale.ROOT, "  %-22s %10.1f %9d %9d %9d %10d / %d%n", r.settings().regime() + ", lane " + (r.settings().lane() ? "on" : "off"),
                    r.throughput(), r.p50(), r.p95(), r.p99(), percentile(corrected, 50), percentile(corrected, 95)));
        }
        return b.toString();
    }

    static long percentile(long[] sorted, double p) {
        if (sorted.length == 0) return 0;
        int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }

    /**
     * Reads {@code results} as the questions finish: the first final record of each question counts (a redelivered
     * one is a duplicate), with its end-to-end time, attempts, outcome and engine time. Only primitive arrays and a
     * hash set of 64-bit id hashes: about 24 bytes per question of harness state.
     */
    static final class ResultCollector {
        private final KafkaConsumer<byte[], byte[]> consumer;
        private final int expected;
        private final LongHashSet seen;
        private long[] latencies;
        private int[] attemptsOf;
        private volatile int finished;
        long attempts;
        long engineMillis;
        long duplicates;
        final Map<String, Integer> outcomes = new TreeMap<>();

        ResultCollector(String bootstrap, int expected) {
            Map<String, Object> p = new HashMap<>();
            p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
            p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2000);
            p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
            p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
            this.consumer = new KafkaConsumer<>(p);
            List<TopicPartition> parts = consumer.partitionsFor(Topics.RESULTS.name()).stream()
                    .map(i -> new TopicPartition(i.topic(), i.partition())).toList();
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            this.expected = expected;
            this.seen = new LongHashSet(expected * 2);
            this.latencies = new long[expected];
            this.attemptsOf = new int[expected];
        }

        int finished() {
            return finished;
        }

        void await(Duration stall, long startNanos) throws Exception {
            long lastProgress = System.nanoTime();
            try (consumer) {
                while (finished < expected) {
                    int before = finished;
                    for (ConsumerRecord<byte[], byte[]> rec : consumer.poll(Duration.ofMillis(200))) {
                        if (rec.value() == null) continue;
                        QuestionResult q = JsonCodec.decode(rec.value(), QuestionResult.class);
                        if (!seen.add(hash(q.questionId()))) {
                            duplicates++;
                            continue;
                        }
                        int i = finished;
                        latencies[i] = Duration.between(q.submittedAt(), q.completedAt()).toMillis();
                        attemptsOf[i] = q.attempts();
                        attempts += q.attempts();
                        engineMillis += q.timings() == null ? 0 : q.timings().getOrDefault("execute", 0L);
                        outcomes.merge(q.reason(), 1, Integer::sum);
                        finished = i + 1;
                    }
                    if (finished != before) lastProgress = System.nanoTime();
                    if (System.nanoTime() - lastProgress > stall.toNanos()) {
                        throw new IllegalStateException("no result for " + stall + ": " + finished + " of " + expected + " final");
                    }
                    if ((finished / 500) != (before / 500)) {
                        System.err.printf("\r  %d/%d final, %.1f s", finished, expected, (System.nanoTime() - startNanos) / 1e9);
                    }
                }
                System.err.println();
            }
        }

        long[] latencies() {
            long[] l = Arrays.copyOf(latencies, finished);
            Arrays.sort(l);
            return l;
        }

        Map<Integer, long[]> byAttempts() {
            Map<Integer, List<Long>> by = new TreeMap<>();
            for (int i = 0; i < finished; i++) by.computeIfAbsent(attemptsOf[i], k -> new ArrayList<>()).add(latencies[i]);
            Map<Integer, long[]> out = new LinkedHashMap<>();
            by.forEach((k, v) -> out.put(k, v.stream().mapToLong(Long::longValue).sorted().toArray()));
            return out;
        }

        static long hash(String s) {
            long h = 0xcbf29ce484222325L;
            for (int i = 0; i < s.length(); i++) {
                h ^= s.charAt(i);
                h *= 0x100000001b3L;
            }
            return h == 0 ? 1 : h;
        }
    }

    /** An open-addressing set of non-zero longs. */
    static final class LongHashSet {
        private long[] table;
        private int size;

        LongHashSet(int capacity) {
            table = new long[Integer.highestOneBit(Math.max(16, capacity) * 2)];
        }

        boolean add(long v) {
            if (size * 2 >= table.length) grow();
            int mask = table.length - 1;
            int i = (int) (v ^ (v >>> 32)) & mask;
            while (table[i] != 0) {
                if (table[i] == v) return false;
                i = (i + 1) & mask;
            }
            table[i] = v;
            size++;
            return true;
        }

        private void grow() {
            long[] old = table;
            table = new long[old.length * 2];
            size = 0;
            for (long v : old) if (v != 0) add(v);
        }
    }

    /**
     * Heap, CPU and progress once a second: flat memory is the proof that no stage keeps per-question state; the
     * post-GC old generation is the honest line (used heap saw-tooths with every young collection).
     */
    static final class Timeline {
        // seconds×1000, finished, heap used, old gen after GC, cpu ns, LLM calls, LLM slot-µs held
        private final List<long[]> rows = new ArrayList<>();
        private final AtomicBoolean stopped = new AtomicBoolean();

        Thread sample(java.util.function.IntSupplier finished, java.util.function.LongSupplier llmCalls,
                      java.util.function.DoubleSupplier slotSeconds, long startNanos) {
            MemoryPoolMXBean old = ManagementFactory.getMemoryPoolMXBeans().stream()
                    .filter(p -> p.getType() == MemoryType.HEAP && p.getName().contains("Old")).findFirst().orElse(null);
            return Thread.ofPlatform().daemon().name("bench-timeline").start(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    long used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
                    long oldAfterGc = old == null || old.getCollectionUsage() == null ? 0 : old.getCollectionUsage().getUsed();
                    synchronized (rows) {
                        rows.add(new long[] {(System.nanoTime() - startNanos) / 1_000_000, finished.getAsInt(), used, oldAfterGc,
                                CpuProfile.processCpuNanos(), llmCalls.getAsLong(), (long) (slotSeconds.getAsDouble() * 1e6)});
                    }
                    try {
                        Thread.sleep(1000);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
        }

        long peakHeap() {
            synchronized (rows) {
                return rows.stream().mapToLong(r -> r[2]).max().orElse(0);
            }
        }

        /** Mean post-GC old generation over quarter {@code q} (0–3) of the run. */
        long oldGenAfterGc(int q) {
            synchronized (rows) {
                int n = rows.size();
                if (n == 0) return 0;
                int from = n * q / 4, to = Math.max(from + 1, n * (q + 1) / 4);
                return (long) rows.subList(from, Math.min(n, to)).stream().mapToLong(r -> r[3]).average().orElse(0);
            }
        }

        /** @param concurrency the LLM's C: slot-seconds held per second over C is the share of its slots kept busy */
        void write(Path csv, Path html, String title, int concurrency) throws IOException {
            List<long[]> copy;
            synchronized (rows) {
                copy = List.copyOf(rows);
            }
            StringBuilder c = new StringBuilder(
                    "seconds,finished,questions_per_s,heap_used_mib,old_gen_after_gc_mib,cpu_cores,llm_calls_per_s,llm_slots_busy\n");
            double[] rate = new double[copy.size()], heap = new double[copy.size()], oldGen = new double[copy.size()], t = new double[copy.size()];
            double[] calls = new double[copy.size()], busy = new double[copy.size()];
            for (int i = 0; i < copy.size(); i++) {
                long[] r = copy.get(i);
                long[] p = i == 0 ? new long[] {0, 0, 0, 0, r[4], 0, r[6]} : copy.get(i - 1);
                double dt = Math.max(1, r[0] - p[0]) / 1000.0;
                t[i] = r[0] / 1000.0;
                rate[i] = (r[1] - p[1]) / dt;
                calls[i] = (r[5] - p[5]) / dt;
                busy[i] = (r[6] - p[6]) / 1e6 / dt / concurrency;
                heap[i] = r[2] / 1048576.0;
                oldGen[i] = r[3] / 1048576.0;
                double cores = i == 0 ? 0 : (r[4] - p[4]) / 1e9 / dt;
                c.append(String.format(Locale.ROOT, "%.1f,%d,%.1f,%.1f,%.1f,%.2f,%.1f,%.3f%n", t[i], r[1], rate[i], heap[i], oldGen[i],
                        cores, calls[i], busy[i]));
            }
            Files.writeString(csv, c);
            Files.writeString(html, "<!doctype html><html><head><meta charset=\"utf-8\"><title>" + title + "</title></head><body>"
                    + "<h1>sqloop bench pipeline: " + title + "</h1>"
                    + LineChart.svg("throughput (questions/s) and LLM calls begun per second", t,
                            series("questions/s", rate, "LLM calls/s", calls))
                    + LineChart.svg("% of the " + concurrency + " LLM slots busy", t,
                            Map.of("slots busy", Arrays.stream(busy).map(b -> 100 * b).toArray()))
                    + LineChart.svg("heap (MiB)", t, series("used", heap, "old gen after GC", oldGen))
                    + "</body></html>\n");
        }
    }

    private static Map<String, double[]> series(String name1, double[] values1, String name2, double[] values2) {
        Map<String, double[]> m = new LinkedHashMap<>();
        m.put(name1, values1);
        m.put(name2, values2);
        return m;
    }

    /** Questions one at a time through the pipeline's own stage instances, in order: a sequential self-correcting agent. */
    static final class Agent {
        record Result(int questions, double seconds, double averageAttempts, int succeeded) {}

        static Result run(EmbeddedPipeline pipeline, DemoBatch batch, int n, int maxAttempts) throws Exception {
            Map<String, Stage<?>> byTopic = new HashMap<>();
            for (StageRunner<?> r : pipeline.runners()) byTopic.put(r.inputTopic(), r.stage());
            List<String> path = List.of(Topics.RETRIEVE_EXAMPLES.name(), Topics.GENERATE.name(), Topics.REGENERATE.name(),
                    Topics.STATIC_VALIDATE.name(), Topics.EXECUTE.name(), Topics.REPAIR_FEEDBACK.name());
            long attempts = 0;
            int succeeded = 0;
            long start = System.nanoTime();
            for (int i = 0; i < n; i++) {
                DemoBatch.Item item = batch.items().get(i % batch.items().size());
                Message m = QuestionTask.create("agent-" + i, "bench", DATASOURCE, item.question(), maxAttempts, Instant.now());
                String topic = Topics.RETRIEVE_EXAMPLES.name();
                while (!(m instanceof QuestionResult)) {
                    Outcome o = process(byTopic.get(topic), m);
                    if (!(o instanceof Outcome.Send send)) throw new IllegalStateException("agent: " + topic + " dropped the question: " + o);
                    Outcome.Emission next = send.emissions().stream()
                            .filter(e -> e.topic().equals(Topics.RESULTS.name()) || path.contains(e.topic())).findFirst()
                            .orElseThrow(() -> new IllegalStateException("agent: nowhere to go from " + send));
                    topic = next.topic();
                    m = next.message();
                }
                QuestionResult result = (QuestionResult) m;
                attempts += result.attempts();
                if (result.succeeded()) succeeded++;
            }
            return new Result(n, (System.nanoTime() - start) / 1e9, (double) attempts / Math.max(1, n), succeeded);
        }

        @SuppressWarnings("unchecked")
        private static <I> Outcome process(Stage<I> stage, Message m) throws Exception {
            return stage.process((I) m);
        }
    }
}
