package dev.sqloop.lab;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.message.Example;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.message.TokenUsage;
import dev.sqloop.embedded.pipeline.DemoBatch;
import dev.sqloop.parse.DialectParser;
import dev.sqloop.parse.DialectParsers;
import dev.sqloop.parse.SqlRejection;
import dev.sqloop.store.Embedder;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.IntSupplier;

/**
 * How fast this machine is at a given moment: a fixed piece of sqloop's own kinds of work on one thread, timed by that
 * thread's CPU clock — JSON round trips of the demo's questions as the stages carry them, the validator's parse of
 * their gold SQL, the embedding of their text. On the VM the README's figures come from, the probe moved between 349
 * and 559 ms within minutes with nothing else running (and no steal time: the host shares its caches and memory). A
 * run of {@code bench pipeline --processes} takes a tenth of it every few seconds ({@link #during}) and prints the mean
 * over its steady state, as context for the run's figures.
 *
 * @param jsonMs  CPU of {@value #JSON_ROUND_TRIPS} encode + decode round trips of a question's task
 * @param parseMs CPU of {@value #PARSES} parses of the batch's gold SQL (DuckDB's parser family)
 * @param embedMs CPU of {@value #EMBEDDINGS} embeddings of the batch's questions (the default int8 model, one thread)
 */
public record MachineSpeed(double jsonMs, double parseMs, double embedMs) {
    static final int JSON_ROUND_TRIPS = 20_000;
    static final int PARSES = 3_000;
    static final int EMBEDDINGS = 80;
    /** A run's samples are a tenth of the probe each (~45 ms of CPU), so taking them costs the run little. */
    static final int SLICES = 10;
    private static final int WARM_UP_ROUNDS = 4;
    private static final int TIMED_ROUNDS = 5;

    public double totalMs() {
        return jsonMs + parseMs + embedMs;
    }

    /** {@code ./sqloop bench probe [N]}: the probe N times (default 1), one line each. */
    public static void main(String[] args) {
        int times = dev.sqloop.cli.Args.count(args, 0, 1, "bench probe [N]: N, how many probes to take,");
        Probe probe = new Probe(DemoBatch.load());
        for (int i = 0; i < times; i++) {
            MachineSpeed m = probe.measure();
            System.out.printf(Locale.ROOT, "%s  probe %.0f ms (JSON %.0f, parse %.0f, embedding %.0f; CPU of one thread, median of %d rounds)%n",
                    java.time.LocalTime.now().withNano(0), m.totalMs(), m.jsonMs, m.parseMs, m.embedMs, TIMED_ROUNDS);
        }
    }

    /** The probe's inputs, made once: the demo's tasks, its gold SQL and questions, a parser and an embedder. */
    static final class Probe {
        private final List<QuestionTask> tasks;
        private final List<String> sqls;
        private final List<String> questions;
        private final DialectParser parser = DialectParsers.forDialect(Dialect.DUCKDB);
        private final Embedder embedder = new Embedder();

        Probe(DemoBatch batch) {
            this.tasks = tasks(batch);
            this.sqls = batch.items().stream().map(DemoBatch.Item::goldSql).toList();
            this.questions = batch.items().stream().map(DemoBatch.Item::question).toList();
        }

        /** The median of {@value #TIMED_ROUNDS} timed rounds per part after {@value #WARM_UP_ROUNDS} to compile it. */
        MachineSpeed measure() {
            double[][] rounds = new double[3][TIMED_ROUNDS];
            for (int round = -WARM_UP_ROUNDS; round < TIMED_ROUNDS; round++) {
                MachineSpeed m = run(1);
                if (round >= 0) {
                    rounds[0][round] = m.jsonMs;
                    rounds[1][round] = m.parseMs;
                    rounds[2][round] = m.embedMs;
                }
            }
            return new MachineSpeed(median(rounds[0]), median(rounds[1]), median(rounds[2]));
        }

        /** One {@code 1/fraction} of the probe's work, scaled back to the whole probe's milliseconds. */
        MachineSpeed run(int fraction) {
            double json = cpuMillis(() -> {
                for (int i = 0; i < JSON_ROUND_TRIPS / fraction; i++) {
                    try {
                        JsonCodec.decode(JsonCodec.encode(tasks.get(i % tasks.size())), QuestionTask.class);
                    } catch (JsonCodec.DecodeException e) {
                        throw new IllegalStateException(e);
                    }
                }
            });
            double parse = cpuMillis(() -> {
                for (int i = 0; i < PARSES / fraction; i++) {
                    try {
                        parser.parse(sqls.get(i % sqls.size()));
                    } catch (SqlRejection e) {
                        throw new IllegalStateException("a gold query of the demo is refused: " + e.getMessage(), e);
                    }
                }
            });
            double embed = cpuMillis(() -> {
                for (int i = 0; i < EMBEDDINGS / fraction; i++) embedder.embed(questions.get(i % questions.size()));
            });
            return new MachineSpeed(json * fraction, parse * fraction, embed * fraction);
        }

        /**
         * Takes a tenth of the probe every {@code everyMillis} until interrupted, each with the results final at that
         * moment; warmed up first, so the samples time compiled code.
         */
        Sampler during(IntSupplier finished, long everyMillis) {
            for (int round = 0; round < WARM_UP_ROUNDS; round++) run(1);
            Sampler sampler = new Sampler();
            sampler.thread = Thread.ofPlatform().daemon().name("bench-speed-probe").start(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    int before = finished.getAsInt();
                    MachineSpeed m;
                    try {
                        m = run(SLICES);
                    } catch (RuntimeException e) {
                        if (sampler.stopped) return; // stopped mid-slice: the parser reports the interrupt as a rejection
                        throw e;
                    }
                    sampler.add(before, m.totalMs());
                    try {
                        Thread.sleep(everyMillis);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
            return sampler;
        }
    }

    /** Probe samples taken during a run: the results final when each was taken, and its probe-equivalent milliseconds. */
    static final class Sampler {
        private final List<double[]> samples = new ArrayList<>();
        private Thread thread;
        private volatile boolean stopped;

        private synchronized void add(int finished, double ms) {
            samples.add(new double[] {finished, ms});
        }

        void stop() throws InterruptedException {
            stopped = true;
            thread.interrupt();
            thread.join(10_000);
        }

        /** The samples taken while the results final were at least {@code from} and at most {@code to}; empty if none. */
        synchronized double[] between(long from, long to) {
            return samples.stream().filter(s -> s[0] >= from && s[0] <= to).mapToDouble(s -> s[1]).toArray();
        }

        /** The samples taken once {@code from} results were final (the steady state's window); empty if none. */
        double[] from(int from) {
            return between(from, Long.MAX_VALUE);
        }
    }

    /**
     * The report's line: how fast the machine ran the probe during the steady state, under the run's load. Context for
     * the run's figures, not a divisor for them: in three 20,000-question runs within an hour the probe did not follow
     * the steady CPU per question (14.90 ms at a 635 ms probe, 17.01 ms at 602 ms), so it does not put runs of different
     * hours on one scale. Null without samples in the window.
     */
    static String line(double[] steadySamples) {
        if (steadySamples.length == 0) return null;
        double[] sorted = steadySamples.clone();
        Arrays.sort(sorted);
        double mean = Arrays.stream(sorted).average().orElseThrow();
        return String.format(Locale.ROOT, "probe %.0f ms mean over the steady state (%d samples, %.0f-%.0f): the fixed work of `./sqloop "
                + "bench probe` on one thread of this JVM, under the run's load (idle, it read 350-560 ms on the machine the README's "
                + "figures come from while its parses ran on JSqlParser's executor thread; since they run on its own, ~0.15 s more)",
                mean, sorted.length, sorted[0], sorted[sorted.length - 1]);
    }

    /** The demo's questions as a stage carries them: three examples, the SQL, timings, a batch. */
    private static List<QuestionTask> tasks(DemoBatch batch) {
        List<DemoBatch.Item> items = batch.items();
        List<QuestionTask> tasks = new ArrayList<>(items.size());
        Instant at = Instant.parse("2026-11-27T00:00:00Z");
        for (int i = 0; i < items.size(); i++) {
            DemoBatch.Item item = items.get(i);
            List<Example> examples = new ArrayList<>();
            for (int k = 1; k <= 3; k++) {
                DemoBatch.Item other = items.get((i + k) % items.size());
                examples.add(new Example(other.question(), other.goldSql(), 0.8 - 0.1 * k, "seed"));
            }
            tasks.add(QuestionTask.create("q-" + i, "default", "demo", item.question(), 3, at)
                    .withBatch("b-1", at.plusSeconds(3600), java.util.Map.of())
                    .withDialect(Dialect.DUCKDB)
                    .withContext(examples, null, null)
                    .withSql(item.goldSql(), TokenUsage.ZERO)
                    .withTiming("retrieve-examples", 3)
                    .withTiming("generate", 1));
        }
        return tasks;
    }

    private static double cpuMillis(Runnable work) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long start = threads.getCurrentThreadCpuTime();
        work.run();
        return (threads.getCurrentThreadCpuTime() - start) / 1e6;
    }

    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
