package dev.sqloop.lab;

import dev.sqloop.cli.GatewayClient;
import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.config.KafkaSettings;
import dev.sqloop.common.runtime.KafkaClients;
import dev.sqloop.embedded.pipeline.DemoBatch;
import dev.sqloop.embedded.ServiceFleet;
import dev.sqloop.lab.PipelineBenchmark.ResultCollector;
import dev.sqloop.lab.PipelineBenchmark.Settings;
import dev.sqloop.testkit.EmbeddedKafka;
import dev.sqloop.testkit.Ports;
import dev.sqloop.testkit.ServiceJvm;
import dev.sqloop.testkit.llm.Latency;
import dev.sqloop.testkit.llm.OracleResponder;
import dev.sqloop.testkit.llm.SimulatedLlm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code ./sqloop bench pipeline --processes}: the same batch as the one-JVM run, with every service in its own JVM
 * as a deployment runs it ({@link ServiceFleet}: {@code ./sqloop run SERVICE} on cli's classpath, generate and repair
 * apart) and this JVM holding only the broker, the simulated LLM and the harness. Each process's CPU comes from the
 * kernel's clock for it (no sampling, nothing to apportion), its heap from its own {@code /metrics} along the run: the
 * CPU per question per service, and whether any service's memory grows with the batch.
 */
final class FleetBenchmark {
    static final String PREFIX = "bench";
    /** This JVM's part of the run: the broker, the simulated LLM and the harness that submits and reads results. */
    static final String HOST = "broker + simulated LLM (this JVM)";
    /** What the compose stack gives each service. */
    static final String DEFAULT_JVM_OPTS = "-Xmx768m -XX:+UseG1GC";
    /** How often the harness takes a tenth of the {@link MachineSpeed} probe during a run (~1 % of a core). */
    static final long PROBE_EVERY_MS = 5_000;

    private FleetBenchmark() {}

    static PipelineBenchmark.Report runOnce(Settings s, Path warehouse, Path out, List<String> jvmOpts) throws Exception {
        String name = s.regime() + "-processes";
        Path work = out.resolve(name);
        Files.createDirectories(work);
        List<String> classpath = ServiceFleet.cliClasspath();
        DemoBatch batch = DemoBatch.load();
        SimulatedLlm llm = SimulatedLlm.start(new OracleResponder(PipelineBenchmark.gold(batch, s), DemoBatch.faultMix(), "duckdb", 7), 7)
                .recording(false);
        if (!s.llmMedian().isZero()) llm.faults().latency(Latency.lognormal(s.llmMedian(), 0.5));
        List<String> jvmArgs = new ArrayList<>(jvmOpts);
        jvmArgs.addAll(List.of("--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector"));
        try (llm; EmbeddedKafka broker = EmbeddedKafka.start()) {
            KafkaClients.ensureTopics(KafkaSettings.of(broker.bootstrapServers()), Topics.ALL, Duration.ofSeconds(60));
            int gatewayPort = Ports.free();
            Map<String, String> env = ServiceFleet.baseEnvironment(broker.bootstrapServers(), PREFIX, gatewayPort, work);
            PipelineBenchmark.fromEnvironment(env);
            env.put("SQLOOP_DATASOURCE_DEMO_DIALECT", "duckdb");
            env.put("SQLOOP_DATASOURCE_DEMO_URL", "jdbc:duckdb:" + warehouse.toAbsolutePath());
            env.put("SQLOOP_LLM_BASE_URL", llm.openAiBaseUrl());
            env.put("SQLOOP_LLM_MODEL", "simulated");
            env.put("SQLOOP_LLM_MAX_CONCURRENCY", Integer.toString(s.concurrency()));
            env.put("SQLOOP_FEWSHOT_SHORTCUT_EXACT", "false"); // repeated questions must go to the LLM, not to a captured answer
            env.put("SQLOOP_REPAIR_PRIORITY_LANE", Boolean.toString(s.lane()));
            seed(classpath, jvmArgs, env, DemoBatch.copyResource("/demo/seed.yaml", work.resolve("seed.yaml")), work);
            System.err.println("  starting the six services, each in its own JVM ...");
            try (ServiceFleet fleet = ServiceFleet.start(PREFIX, work, classpath, jvmArgs, env, Map.of())) {
                GatewayClient client = new GatewayClient("http://127.0.0.1:" + gatewayPort, null);
                Processes processes = new Processes(fleet);
                Map<String, Long> idle = idle(processes, s.idleSeconds());
                ResultCollector results = new ResultCollector(broker.bootstrapServers(), s.questions());
                long callsBefore = llm.stats().calls();
                Map<String, KafkaTraffic.Usage> trafficBefore = KafkaTraffic.snapshot(broker.bootstrapServers());
                // warmed up here, before the batch: its samples are taken while the batch runs
                MachineSpeed.Sampler speed = new MachineSpeed.Probe(batch).during(results::finished, PROBE_EVERY_MS);
                Map<String, Long> cpuBefore = processes.cpu();
                long start = System.nanoTime();
                Thread sampler = processes.sample(results::finished, start, s.questions(), speed::between);
                NativeProfile.Recording[] perf = new NativeProfile.Recording[1];
                Thread perfStarter = null;
                try {
                    perfStarter = s.perfSeconds() == 0 ? null : Thread.ofPlatform().daemon().name("bench-perf").start(() -> {
                        try {
                            while (results.finished() < s.questions() / 2) Thread.sleep(100);
                            perf[0] = NativeProfile.start(work, s.perfSeconds(), results::finished);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt(); // the run ended before half its results: nothing recorded
                        } catch (IOException e) {
                            System.err.println("  perf record did not start: " + e.getMessage());
                        }
                    });
                    PipelineBenchmark.submit(client, batch, s, work);
                    results.await(Duration.ofMinutes(30), start);
                    double seconds = (System.nanoTime() - start) / 1e9;
                    double captureTail = CaptureBacklog.awaitDrained(broker.bootstrapServers(), PREFIX, Duration.ofMinutes(2));
                    Map<String, Long> cpu = minus(processes.cpu(), cpuBefore);
                    speed.stop();
                    sampler.interrupt();
                    sampler.join(30_000);
                    if (!sampler.isAlive()) processes.last();
                    long calls = llm.stats().calls() - callsBefore;
                    Map<String, KafkaTraffic.Usage> moved = KafkaTraffic.between(trafficBefore, KafkaTraffic.snapshot(broker.bootstrapServers()));
                    List<String> traffic = KafkaTraffic.perQuestion(moved, results.finished());
                    WarehouseCost engine = WarehouseCost.of(warehouse, batch, moved, results.finished());
                    processes.write(work.resolve("timeline.csv"), work.resolve("timeline.html"), name);
                    List<String> byCode = List.of();
                    if (perfStarter != null) {
                        perfStarter.interrupt(); // still waiting only if the run never reached half its results
                        perfStarter.join();
                        Map<Long, String> pids = new LinkedHashMap<>();
                        fleet.running().forEach((kind, jvm) -> pids.put(jvm.pid(), kind));
                        pids.put(ProcessHandle.current().pid(), HOST);
                        byCode = perf[0] == null ? List.of("perf recorded nothing (the run ended before half its results)")
                                : perf[0].report(pids, List.copyOf(fleet.running().keySet()));
                    }
                    return report(s, results, seconds, captureTail, cpu, idle, calls, llm.stats(), processes, traffic, jvmOpts, work, engine, byCode,
                            speed.from(results.finished() / 2));
                } finally {
                    // a run that failed (e.g. timed out) must not leave its samplers running in this JVM (a
                    // `--regime both` run would carry them into its next regime); after a good run this repeats
                    // what was done already
                    speed.stop();
                    sampler.interrupt();
                    if (perfStarter != null) perfStarter.interrupt();
                }
            }
        }
    }

    /**
     * {@code ./sqloop seed FILE --datasource demo --store} in a JVM of its own, before the services start: straight
     * into the store (no gateway is up yet; {@code seed} without {@code --store} goes through one).
     */
    private static void seed(List<String> classpath, List<String> jvmArgs, Map<String, String> env, Path file, Path work) throws Exception {
        ServiceJvm seed = ServiceJvm.start("seed", classpath, jvmArgs, "dev.sqloop.cli.Main",
                List.of("seed", file.toString(), "--datasource", PipelineBenchmark.DATASOURCE, "--store"), env, work.resolve("seed.log"));
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (seed.alive() && System.nanoTime() < deadline) Thread.sleep(100);
        if (seed.alive()) {
            seed.kill9();
            throw new IllegalStateException("seeding the examples took over 3 minutes:\n" + seed.output());
        }
        // the command prints its counts when it has seeded ("read N, seeded N, skipped N"), an error otherwise
        if (!seed.output().contains(" seeded ")) throw new IllegalStateException("seeding the examples failed:\n" + seed.output());
    }

    /** CPU nanoseconds per process over {@code seconds} with no work. */
    private static Map<String, Long> idle(Processes processes, int seconds) throws InterruptedException {
        if (seconds == 0) return Map.of();
        Map<String, Long> before = processes.cpu();
        Thread.sleep(seconds * 1000L);
        return minus(processes.cpu(), before);
    }

    private static Map<String, Long> minus(Map<String, Long> after, Map<String, Long> before) {
        Map<String, Long> out = new LinkedHashMap<>();
        after.forEach((k, v) -> out.put(k, v - before.getOrDefault(k, 0L)));
        return out;
    }

    /**
     * The fleet's processes and this one: CPU from the kernel (ProcessHandle's total CPU time, this JVM's own process CPU
     * clock), heap from each service's {@code /metrics} ({@code jvm_memory_used_bytes} over the heap's pools, and
     * {@code jvm_gc_live_data_size_bytes}, the old generation after the last collection), sampled along the run.
     */
    static final class Processes {
        private final ServiceFleet fleet;
        // per sample: seconds×1000, finished, then per part (services in start order, then this JVM): cpu ns, heap used, old gen
        // after GC, JIT compilers' cpu ns
        private final List<long[]> rows = new ArrayList<>();
        private final CompilerThreads compilers = new CompilerThreads();
        private final List<String> parts = new ArrayList<>();
        private final List<String> tenths = new ArrayList<>();
        // the sampler's state: set by sample(), then used by its thread and, after it stopped, by last()
        private final long[] lastHeap;
        private java.util.function.IntSupplier finished;
        private long startNanos;
        private int questions;
        private java.util.function.BiFunction<Long, Long, double[]> probes;
        private long[] stretchStart;
        private int nextTenth = 1;

        Processes(ServiceFleet fleet) {
            this.fleet = fleet;
            parts.addAll(fleet.running().keySet());
            parts.add(HOST);
            lastHeap = new long[parts.size() * 2];
        }

        List<String> parts() {
            return parts;
        }

        /** The columns of a part in a sample row, after the time and the results final. */
        static final int CPU = 0, HEAP = 1, OLD_GEN = 2, JIT = 3, COLUMNS = 4;

        static int at(int part, int column) {
            return 2 + COLUMNS * part + column;
        }

        private long pid(String part) {
            return part.equals(HOST) ? ProcessHandle.current().pid() : fleet.running().get(part).pid();
        }

        /** CPU nanoseconds so far per part. */
        Map<String, Long> cpu() {
            Map<String, Long> out = new LinkedHashMap<>();
            fleet.running().forEach((kind, jvm) -> out.put(kind, ProcessHandle.of(jvm.pid())
                    .flatMap(p -> p.info().totalCpuDuration()).map(Duration::toNanos).orElse(0L)));
            out.put(HOST, CpuProfile.processCpuNanos());
            return out;
        }

        /** {heap used, old generation after the last GC} of a part, in bytes. */
        long[] heap(String part) {
            if (part.equals(HOST)) {
                var old = java.lang.management.ManagementFactory.getMemoryPoolMXBeans().stream()
                        .filter(p -> p.getType() == java.lang.management.MemoryType.HEAP && p.getName().contains("Old")).findFirst();
                return new long[] {java.lang.management.ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed(),
                        old.map(p -> p.getCollectionUsage() == null ? 0L : p.getCollectionUsage().getUsed()).orElse(0L)};
            }
            try {
                String text = fleet.metrics(part);
                return new long[] {(long) ServiceFleet.sum(text, "jvm_memory_used_bytes", "area=\"heap\""),
                        (long) ServiceFleet.sum(text, "jvm_gc_live_data_size_bytes")};
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // the sampler is being stopped: keep the request
                return new long[] {-1, -1};
            } catch (Exception e) {
                return new long[] {-1, -1}; // a service between scrapes' reach (restarting): no sample this time
            }
        }

        /**
         * Samples every part once a second (CPU) and every five seconds (heap, scraped as Prometheus would), and prints a
         * line ({@link #tenth}) each time another tenth of the {@code questions} is final.
         *
         * @param probes the machine-speed samples taken while the results final went from the first to the second count
         */
        Thread sample(java.util.function.IntSupplier finished, long startNanos, int questions,
                      java.util.function.BiFunction<Long, Long, double[]> probes) {
            this.finished = finished;
            this.startNanos = startNanos;
            this.questions = questions;
            this.probes = probes;
            return Thread.ofPlatform().daemon().name("bench-fleet-sampler").start(() -> {
                for (int tick = 0; !Thread.currentThread().isInterrupted(); tick++) {
                    if (tick % 5 == 0) {
                        for (int i = 0; i < parts.size() && !Thread.currentThread().isInterrupted(); i++) {
                            long[] h = heap(parts.get(i));
                            lastHeap[2 * i] = h[0];
                            lastHeap[2 * i + 1] = h[1];
                        }
                    }
                    take();
                    try {
                        Thread.sleep(1000);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
        }

        /**
         * One more sample once the sampler thread has stopped (joined): the end of the run, which closes the last tenth
         * (the thread sleeps or scrapes between its samples and may have stopped before it).
         */
        void last() {
            if (finished != null) take();
        }

        /**
         * A sample row, and a tenth's line when it closes one. The clocks, the time and the results final are read
         * together, after the heap scrapes: a service slow to answer {@code /metrics} under load (4–16 s seen) must not
         * put one moment's CPU beside another moment's results.
         */
        private void take() {
            Map<String, Long> cpu = cpu();
            long[] row = new long[2 + COLUMNS * parts.size()];
            row[0] = (System.nanoTime() - startNanos) / 1_000_000;
            row[1] = finished.getAsInt();
            for (int i = 0; i < parts.size(); i++) {
                row[at(i, CPU)] = cpu.getOrDefault(parts.get(i), 0L);
                row[at(i, HEAP)] = lastHeap[2 * i];
                row[at(i, OLD_GEN)] = lastHeap[2 * i + 1];
                row[at(i, JIT)] = compilers.nanos(pid(parts.get(i)));
            }
            synchronized (rows) {
                rows.add(row);
            }
            if (stretchStart == null) stretchStart = row;
            int reached = nextTenth;
            while (reached <= 10 && row[1] >= (long) questions * reached / 10) reached++;
            if (reached > nextTenth && row[1] > stretchStart[1]) {
                String line = tenth(reached - 1, stretchStart, row, parts, probes.apply(stretchStart[1], row[1]));
                synchronized (tenths) {
                    tenths.add(line);
                }
                System.err.println("\n  " + line);
                stretchStart = row;
            }
            nextTenth = reached;
        }

        private List<long[]> rows() {
            synchronized (rows) {
                return List.copyOf(rows);
            }
        }

        /**
         * CPU per question of each part over the second half of the results (from the sample where half the batch was
         * final to the one where all was): the JIT mostly done and the batch submitted, what a long run settles to.
         * Null when the run was too short to have samples on both sides.
         */
        Steady steady(int questions) {
            return steady(rows(), parts, questions);
        }

        /** As {@link #steady(int)}, over sampled rows (seconds×1000, finished, then cpu ns, heap, old gen per part). */
        static Steady steady(List<long[]> all, List<String> parts, int questions) {
            int from = -1, to = -1;
            for (int r = 0; r < all.size(); r++) {
                if (from < 0 && all.get(r)[1] >= questions / 2) from = r;
                if (all.get(r)[1] >= questions) {
                    to = r;
                    break;
                }
            }
            if (to < 0) to = all.size() - 1;
            if (from < 0 || to <= from || all.get(to)[1] <= all.get(from)[1]) return null;
            return between(all.get(from), all.get(to), parts);
        }

        /** The rate and the CPU per question of each part between two sample rows ({@code z} with more results final than {@code a}). */
        static Steady between(long[] a, long[] z, List<String> parts) {
            double finished = z[1] - a[1];
            Map<String, Double> cpuMs = new LinkedHashMap<>(), jitMs = new LinkedHashMap<>();
            for (int i = 0; i < parts.size(); i++) {
                cpuMs.put(parts.get(i), (z[at(i, CPU)] - a[at(i, CPU)]) / 1e6 / finished);
                jitMs.put(parts.get(i), (z[at(i, JIT)] - a[at(i, JIT)]) / 1e6 / finished);
            }
            return new Steady(finished / Math.max(1, z[0] - a[0]) * 1000, cpuMs, jitMs);
        }

        /**
         * The line for the results final between two sample rows, as a tenth of the batch closes: a run stopped half way
         * (or a million-question run read while it goes) still has its figures per stretch, not only at the end.
         *
         * @param probes the {@link MachineSpeed} samples taken in the stretch (context: how fast the host ran it)
         */
        static String tenth(int tenth, long[] a, long[] z, List<String> parts, double[] probes) {
            Steady w = between(a, z, parts);
            StringBuilder each = new StringBuilder();
            w.cpuMs().forEach((part, ms) -> {
                if (!part.equals(HOST)) each.append(each.isEmpty() ? "" : ", ").append(String.format(Locale.ROOT, "%s %.2f", part, ms));
            });
            String probe = probes.length == 0 ? "" : String.format(Locale.ROOT, "; probe %.0f ms", Arrays.stream(probes).average().orElseThrow());
            return String.format(Locale.ROOT, "tenth %2d  results %d-%d final in %.0f s, %.1f questions/s; ms of CPU per question: the six "
                            + "services %.2f (JIT %.2f; %s), broker + LLM %.2f%s", tenth, a[1], z[1], (z[0] - a[0]) / 1000.0,
                    w.questionsPerSecond(), w.services(), w.servicesJit(), each, w.cpuMs().getOrDefault(HOST, 0.0), probe);
        }

        /** The tenths' lines so far. */
        List<String> tenths() {
            synchronized (tenths) {
                return List.copyOf(tenths);
            }
        }

        /** The highest heap used sampled for part {@code i}. */
        long peakHeap(int i) {
            return rows().stream().mapToLong(r -> r[at(i, HEAP)]).max().orElse(0);
        }

        /**
         * Mean old generation after GC of part {@code i} over quarter {@code q} (0–3) of the run, in MiB, as text: "-"
         * where the quarter had no value yet (a service reports it once a collection has reached its old generation).
         */
        String oldGenAfterGc(int i, int q) {
            List<long[]> all = rows();
            int n = all.size();
            if (n == 0) return "-";
            int from = n * q / 4, to = Math.max(from + 1, n * (q + 1) / 4);
            var mean = all.subList(from, Math.min(n, to)).stream().mapToLong(r -> r[at(i, OLD_GEN)]).filter(v -> v > 0).average();
            return mean.isPresent() ? Long.toString((long) mean.getAsDouble() >> 20) : "-";
        }

        void write(Path csv, Path html, String title) throws IOException {
            List<long[]> all = rows();
            StringBuilder c = new StringBuilder("seconds,finished,questions_per_s");
            for (String p : parts) {
                String k = p.equals(HOST) ? "host" : p;
                c.append(',').append(k).append("_cpu_cores,").append(k).append("_heap_used_mib,").append(k).append("_old_gen_after_gc_mib,")
                        .append(k).append("_jit_cpu_cores");
            }
            c.append('\n');
            int n = all.size();
            double[] t = new double[n], rate = new double[n];
            double[][] cores = new double[parts.size()][n], heap = new double[parts.size()][n];
            for (int r = 0; r < n; r++) {
                long[] row = all.get(r);
                long[] prev = r == 0 ? row : all.get(r - 1);
                double dt = Math.max(1, row[0] - prev[0]) / 1000.0;
                t[r] = row[0] / 1000.0;
                rate[r] = r == 0 ? 0 : (row[1] - prev[1]) / dt;
                c.append(String.format(Locale.ROOT, "%.1f,%d,%.1f", t[r], row[1], rate[r]));
                for (int i = 0; i < parts.size(); i++) {
                    cores[i][r] = r == 0 ? 0 : (row[at(i, CPU)] - prev[at(i, CPU)]) / 1e9 / dt;
                    heap[i][r] = row[at(i, HEAP)] / 1048576.0;
                    c.append(String.format(Locale.ROOT, ",%.2f,%.1f,%.1f,%.2f", cores[i][r], heap[i][r], row[at(i, OLD_GEN)] / 1048576.0,
                            r == 0 ? 0 : (row[at(i, JIT)] - prev[at(i, JIT)]) / 1e9 / dt));
                }
                c.append('\n');
            }
            Files.writeString(csv, c);
            Map<String, double[]> cpuSeries = new LinkedHashMap<>(), heapSeries = new LinkedHashMap<>();
            for (int i = 0; i < parts.size(); i++) {
                String label = parts.get(i).equals(HOST) ? "broker + LLM" : parts.get(i);
                cpuSeries.put(label, cores[i]);
                heapSeries.put(label, heap[i]);
            }
            Files.writeString(html, "<!doctype html><html><head><meta charset=\"utf-8\"><title>" + title + "</title></head><body>"
                    + "<h1>sqloop bench pipeline --processes: " + title + "</h1>"
                    + LineChart.svg("throughput (questions/s)", t, Map.of("questions/s", rate))
                    + LineChart.svg("CPU per process (cores)", t, cpuSeries)
                    + LineChart.svg("heap used per process (MiB, scraped every 5 s)", t, heapSeries)
                    + "</body></html>\n");
        }
    }

    static PipelineBenchmark.Report report(Settings s, ResultCollector r, double seconds, double captureTail, Map<String, Long> cpu,
                                           Map<String, Long> idle,
                                           long llmCalls, SimulatedLlm.Stats llm, Processes processes, List<String> traffic,
                                           List<String> jvmOpts, Path work, WarehouseCost engine, List<String> byCode,
                                           double[] steadyProbes) {
        int n = r.finished();
        double throughput = n / seconds;
        double callsPerQuestion = (double) llmCalls / n;
        double llmSeconds = llm.meanLatency().toNanos() / 1e9;
        int cores = Runtime.getRuntime().availableProcessors();
        long total = cpu.values().stream().mapToLong(Long::longValue).sum();
        double cpuMs = total / 1e6 / n;
        long[] lat = r.latencies();
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "%n== %s regime, each service in its own JVM (%s): %d %squestions, C = %d, LLM latency %s ==%n",
                s.regime(), String.join(" ", jvmOpts), n, s.unique() ? "unique " : "", s.concurrency(),
                s.llmMedian().isZero() ? "0" : "lognormal median " + s.llmMedian().toMillis() + " ms, sigma 0.5"));
        b.append(String.format(Locale.ROOT, "  outcomes                %s; average attempts %.2f%n", r.outcomes, (double) r.attempts / n));
        b.append(String.format(Locale.ROOT, "  throughput              %.1f questions/s (%.1f s wall)%n", throughput, seconds));
        b.append(PipelineBenchmark.captureLine(captureTail));
        b.append(String.format(Locale.ROOT, "  end-to-end              p50 %d ms, p95 %d ms, p99 %d ms%n", PipelineBenchmark.percentile(lat, 50),
                PipelineBenchmark.percentile(lat, 95), PipelineBenchmark.percentile(lat, 99)));
        b.append(String.format(Locale.ROOT, "  LLM                     %d calls (%.2f per question), mean latency %.0f ms%n", llmCalls, callsPerQuestion,
                llmSeconds * 1000));
        if (llmSeconds > 0) {
            double limit = s.concurrency() / (llmSeconds * callsPerQuestion);
            b.append(String.format(Locale.ROOT, "  LLM-bound limit         %.1f questions/s = %d / (%.3f s × %.2f); ratio %.2f%n", limit, s.concurrency(),
                    llmSeconds, callsPerQuestion, throughput / limit));
        }
        b.append(String.format(Locale.ROOT, "  CPU                     %.1f ms per question (all processes, %d cores busy %.0f %%); CPU-bound limit %.1f questions/s"
                        + " = %d cores / %.1f ms; ratio %.2f%n", cpuMs, cores,
                100.0 * total / 1e9 / PipelineBenchmark.cpuWindow(seconds, captureTail) / cores, cores * 1000 / cpuMs, cores, cpuMs,
                n / PipelineBenchmark.cpuWindow(seconds, captureTail) / (cores * 1000 / cpuMs)));
        b.append("  CPU per question by process (ms, from each process's kernel CPU clock), idle share of a core, heap:\n");
        b.append(String.format(Locale.ROOT, "    %-34s %8s %7s %9s %12s %22s%n", "process", "ms/q", "share", "idle", "peak heap", "old gen after GC 1st/4th"));
        double services = 0;
        List<String> parts = processes.parts();
        for (int i = 0; i < parts.size(); i++) {
            String p = parts.get(i);
            long ns = cpu.getOrDefault(p, 0L);
            if (!p.equals(HOST)) services += ns / 1e6 / n;
            String idleShare = idle.isEmpty() ? "-" : String.format(Locale.ROOT, "%.1f %%", 100.0 * idle.getOrDefault(p, 0L) / 1e9 / s.idleSeconds());
            b.append(String.format(Locale.ROOT, "    %-34s %8.2f %6.1f%% %9s %8d MiB %10s / %s MiB%n", p, ns / 1e6 / n, total == 0 ? 0 : 100.0 * ns / total,
                    idleShare, processes.peakHeap(i) >> 20, processes.oldGenAfterGc(i, 0), processes.oldGenAfterGc(i, 3)));
        }
        b.append(String.format(Locale.ROOT, "    %-34s %8.2f  (the six services: everything but the simulated LLM, the broker and the harness)%n",
                "= sqloop itself", services));
        Steady steady = processes.steady(n);
        if (steady != null) {
            StringBuilder line = new StringBuilder();
            steady.cpuMs().forEach((part, ms) ->
                    line.append(String.format(Locale.ROOT, "%s %.2f, ", part.equals(HOST) ? "broker + LLM" : part, ms)));
            b.append(String.format(Locale.ROOT, "  steady state            the second half of the results, %.1f questions/s: ms of CPU per question %s"
                    + "the six services %.2f; of these the JIT compilers' threads %.2f (warm-up each service does once: without it %.2f)%n",
                    steady.questionsPerSecond(), line, steady.services(), steady.servicesJit(), steady.services() - steady.servicesJit()));
            String probe = MachineSpeed.line(steadyProbes);
            if (probe != null) b.append("  machine speed           ").append(probe).append('\n');
        }
        List<String> tenths = processes.tenths();
        for (int i = 0; i < tenths.size(); i++) {
            b.append(i == 0 ? "  per tenth of the batch  " : "                          ").append(tenths.get(i)).append('\n');
        }
        if (engine.queriesPerQuestion() > 0) b.append("  warehouse               ").append(engine.line(services)).append('\n');
        for (int i = 0; i < byCode.size(); i++) {
            b.append(i == 0 ? "  CPU by code             " : "    ").append(byCode.get(i)).append('\n');
        }
        for (int i = 0; i < traffic.size(); i++) {
            b.append(i == 0 ? "  Kafka                   " : "                            ").append(traffic.get(i)).append('\n');
        }
        b.append("  sequential agent        not run with --processes (it calls the stages in this JVM; run without --processes)\n");
        b.append("  timeline                ").append(work.resolve("timeline.html").toAbsolutePath()).append('\n');
        return new PipelineBenchmark.Report(s, throughput, PipelineBenchmark.percentile(lat, 50), PipelineBenchmark.percentile(lat, 95),
                PipelineBenchmark.percentile(lat, 99), r.byAttempts(), b.toString());
    }

    /** A run's second half: its rate, and the CPU per question of each part (the services, then {@link #HOST}), in ms. */
    record Steady(double questionsPerSecond, Map<String, Double> cpuMs, Map<String, Double> jitMs) {
        /** The six services' sum: everything but the broker, the simulated LLM and the harness. */
        double services() {
            return servicesOf(cpuMs);
        }

        /** Of {@link #services()}, what their JIT compilers' threads spent: warm-up a long-lived service does once. */
        double servicesJit() {
            return servicesOf(jitMs);
        }

        private static double servicesOf(Map<String, Double> msByPart) {
            return msByPart.entrySet().stream().filter(e -> !e.getKey().equals(HOST)).mapToDouble(Map.Entry::getValue).sum();
        }
    }

    /** {@code --jvm-opts "…"} split on whitespace, or the compose stack's. */
    static List<String> jvmOpts(String value) {
        String v = value == null || value.isBlank() ? DEFAULT_JVM_OPTS : value;
        return Arrays.stream(v.strip().split("\\s+")).toList();
    }
}
