package dev.sqloop.lab;

import dev.sqloop.fewshot.schema.SchemaLinker;
import dev.sqloop.fewshot.schema.SchemaSource;
import dev.sqloop.store.Embedder;
import dev.sqloop.store.LuceneExampleStore;
import dev.sqloop.store.StoredExample;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.stream.Stream;

/**
 * Prints retrieval latency (embed, search, embed + search; p50/p99) with 1k real-embedded and 100k synthetic
 * stored examples in the Lucene store, and schema-linking latency. Args: {@code [largeCount] [queries]}.
 */
public final class RetrievalBenchmark {
    private static final String[] SUBJECTS = {"orders", "customers", "products", "flights", "authors", "papers", "restaurants",
            "employees", "departments", "suppliers", "invoices", "payments", "cars", "students", "courses"};
    private static final String[] ASKS = {"How many %s were created in %d?", "List the top %2$d %1$s by revenue",
            "What is the average price of %s in %d?", "Which %s changed in the last %d days?", "Show %s per region for %d",
            "Count the distinct %s with more than %d items"};

    private RetrievalBenchmark() {}

    /**
     * CPU per embedding of sqloop's session (one intra-op thread, no spinning) against ONNX Runtime's default session
     * (every core, spinning), both in this process over the same sentences: one caller, and as many callers as cores,
     * the way a pipeline embeds many questions at once.
     */
    private static void compareSessions(Embedder ours, List<String> sentences, int count) throws Exception {
        Embedder stock = new Embedder(Embedder.Model.ALL_MINILM_L6_V2, 0);
        stock.embed("warm up");
        int cores = Runtime.getRuntime().availableProcessors();
        for (int callers : new int[] {1, cores}) {
            double[] base = embeddingCost(stock, sentences, count, callers);
            double[] now = embeddingCost(ours, sentences, count, callers);
            System.out.printf("embedding CPU, %d caller(s): %.2f ms per text (%.2f ms wall) with %d intra-op thread(s), "
                            + "%.2f ms (%.2f ms wall) with ONNX Runtime's default session: %.2f× the CPU%n",
                    callers, now[0], now[1], Embedder.THREADS, base[0], base[1], base[0] / now[0]);
        }
    }

    /**
     * The int8 build of the model against the float one, both on sqloop's session in this process over the same
     * sentences: CPU per sentence (one caller), and how close the vectors of the same sentence are.
     */
    private static void compareModels(Embedder full, List<String> sentences, int count) throws Exception {
        Embedder quantized = new Embedder(Embedder.Model.ALL_MINILM_L6_V2_Q);
        quantized.embed("warm up");
        double[] f = embeddingCost(full, sentences, count, 1);
        double[] q = embeddingCost(quantized, sentences, count, 1);
        double sum = 0, min = 1;
        int n = Math.min(count, sentences.size());
        for (int i = 0; i < n; i++) {
            double c = Embedder.cosine(full.embed(sentences.get(i)), quantized.embed(sentences.get(i)));
            sum += c;
            min = Math.min(min, c);
        }
        System.out.printf("embedding CPU by model, 1 caller: %.2f ms per text with %s, %.2f ms with %s: %.2f× less; "
                        + "the same text's vectors at cosine %.4f on average (min %.4f, %d texts)%n",
                f[0], Embedder.Model.ALL_MINILM_L6_V2.wireName(), q[0], Embedder.Model.ALL_MINILM_L6_V2_Q.wireName(), f[0] / q[0],
                sum / n, min, n);
    }

    /**
     * sqloop's single pass (one tokenization, pooling straight from the output buffer) against langchain4j's encoder on
     * the same session, per model: CPU per sentence, one caller, in this process.
     */
    private static void compareEncoders(List<String> sentences, int count) throws Exception {
        for (Embedder.Model model : Embedder.Model.values()) {
            Embedder ours = new Embedder(model);
            Embedder langchain4j = Embedder.throughLangchain4jEncoder(model);
            // five rounds each, alternating, so that the machine's drift falls on both; the medians compared
            double[] one = new double[5], theirs = new double[5];
            for (int round = 0; round < 5; round++) {
                theirs[round] = embeddingCost(langchain4j, sentences, count, 1)[0];
                one[round] = embeddingCost(ours, sentences, count, 1)[0];
            }
            Arrays.sort(one);
            Arrays.sort(theirs);
            System.out.printf("embedding CPU by encoder, %s, 1 caller, median of 5 alternating rounds of %d texts: %.2f ms per text "
                    + "in one pass, %.2f ms through langchain4j's encoder: %.2f× less%n", model.wireName(), count, one[2], theirs[2], theirs[2] / one[2]);
        }
    }

    /**
     * Several sentences through the model in one run (padded to the longest, masked mean pooling) against one at a
     * time, on the same one-thread session, per model: CPU per sentence on this thread, and how far a sentence's vector
     * moves when it shares a run. The int8 build quantizes its activations per run (dynamic quantization over the
     * whole input), so a vector depends on the other sentences of its batch; the float build's does not.
     */
    private static void compareBatches(List<String> sentences, int count) {
        com.sun.management.ThreadMXBean bean = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        int n = Math.min(count, sentences.size());
        for (Embedder.Model model : Embedder.Model.values()) {
            Embedder embedder = new Embedder(model);
            List<float[]> single = null;
            StringBuilder line = new StringBuilder("embedding CPU by batch, " + model.wireName() + ", 1 thread:");
            for (int batch : new int[] {1, 1, 4, 8, 16}) {
                long cpu = bean.getCurrentThreadCpuTime();
                List<float[]> vectors = new ArrayList<>(n);
                for (int i = 0; i < n; i += batch) vectors.addAll(embedder.embedInOneRun(sentences.subList(i, Math.min(n, i + batch))));
                double ms = (bean.getCurrentThreadCpuTime() - cpu) / 1e6 / n;
                if (single == null) {
                    single = vectors; // the first pass of batch 1 warms the session up
                    continue;
                }
                double min = 1;
                for (int i = 0; i < n; i++) min = Math.min(min, Embedder.cosine(single.get(i), vectors.get(i)));
                line.append(String.format(Locale.ROOT, " %d a run %.2f ms per sentence (min cosine to alone %.4f);", batch, ms, min));
            }
            System.out.println(line.substring(0, line.length() - 1));
        }
    }

    /** {process CPU ms per text, wall ms per text} for {@code count} texts embedded by {@code callers} threads. */
    private static double[] embeddingCost(Embedder embedder, List<String> sentences, int count, int callers) throws Exception {
        for (int i = 0; i < 50; i++) embedder.embed(sentences.get(i));
        long cpu = CpuProfile.processCpuNanos();
        long wall = System.nanoTime();
        java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < callers; t++) {
            threads.add(Thread.ofPlatform().start(() -> {
                for (int i = next.getAndIncrement(); i < count; i = next.getAndIncrement()) {
                    embedder.embed(sentences.get(i % sentences.size()) + " today");
                }
            }));
        }
        for (Thread t : threads) t.join();
        return new double[] {(CpuProfile.processCpuNanos() - cpu) / 1e6 / count, (System.nanoTime() - wall) / 1e6 / count};
    }

    public static void main(String[] args) throws Exception {
        int large = dev.sqloop.cli.Args.count(args, 0, 100_000, "bench retrieval [N] [Q]: N, the examples stored,");
        int queries = dev.sqloop.cli.Args.count(args, 1, 500, "bench retrieval [N] [Q]: Q, the queries timed,");
        Path dir = Files.createTempDirectory("sqloop-retrieval-bench");
        Embedder embedder = new Embedder(Embedder.Model.ALL_MINILM_L6_V2);
        Random random = new Random(42);
        List<String> sentences = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            sentences.add(String.format(ASKS[i % ASKS.length], SUBJECTS[random.nextInt(SUBJECTS.length)], 1990 + i));
        }
        embedder.embed("warm up");

        long[] embed = new long[queries];
        for (int i = 0; i < queries; i++) {
            long t = System.nanoTime();
            embedder.embed(sentences.get(random.nextInt(sentences.size())) + " please");
            embed[i] = System.nanoTime() - t;
        }
        report("embed one question", embed);
        compareSessions(embedder, sentences, queries);
        compareModels(embedder, sentences, queries);
        compareEncoders(sentences, queries);
        compareBatches(sentences, queries);

        try (LuceneExampleStore store = LuceneExampleStore.open(dir.resolve("small"))) {
            List<StoredExample> examples = sentences.stream()
                    .map(s -> new StoredExample("bench", s, "SELECT 1", "duckdb", StoredExample.SEED, null)).toList();
            for (int i = 0; i < examples.size(); i += 100) {
                List<StoredExample> batch = examples.subList(i, i + 100);
                store.upsertAll(batch, embedder.embedAll(batch.stream().map(StoredExample::question).toList()));
            }
            store.optimize();
            measureSearch(store, embedder, sentences, random, queries, "1k real");
        }

        try (LuceneExampleStore store = LuceneExampleStore.open(dir.resolve("large"))) {
            long load = System.nanoTime();
            int batchSize = 10_000;
            for (int i = 0; i < large; i += batchSize) {
                List<StoredExample> batch = new ArrayList<>();
                List<float[]> vectors = new ArrayList<>();
                for (int j = i; j < Math.min(large, i + batchSize); j++) {
                    batch.add(new StoredExample("bench", "synthetic question " + j, "SELECT " + j, "duckdb", StoredExample.SEED, null));
                    vectors.add(randomUnit(random));
                }
                store.upsertAll(batch, vectors);
            }
            store.optimize();
            System.out.printf("loaded %,d synthetic examples (HNSW build + merge) in %.1f s%n", store.count(), (System.nanoTime() - load) / 1e9);
            measureSearch(store, embedder, sentences, random, queries, String.format("%,d synthetic", large));
        }

        SchemaSource schema = ds -> syntheticSchema(24, 10);
        SchemaLinker linker = new SchemaLinker(schema, embedder, SchemaLinker.Settings.DEFAULTS, Clock.systemUTC()); // the benchmark times ranking, not whole-schema prompts
        long first = System.nanoTime();
        linker.link("bench", "How many orders per customer?", embedder.embed("How many orders per customer?"));
        System.out.printf("schema linking, first call (24 tables x 10 columns embedded): %.1f ms%n", (System.nanoTime() - first) / 1e6);
        float[][] vectors = new float[50][];
        for (int i = 0; i < vectors.length; i++) vectors[i] = embedder.embed(sentences.get(i));
        long[] link = new long[queries];
        for (int i = 0; i < queries; i++) {
            long t = System.nanoTime();
            linker.link("bench", sentences.get(i % vectors.length), vectors[i % vectors.length]);
            link[i] = System.nanoTime() - t;
        }
        report("schema linking, cached (question vector given)", link);
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private static void measureSearch(LuceneExampleStore store, Embedder embedder, List<String> sentences, Random random,
                                      int queries, String label) {
        for (int i = 0; i < 50; i++) store.search("bench", randomUnit(random), 10, 0.0);
        long[] search = new long[queries];
        long[] both = new long[queries];
        for (int i = 0; i < queries; i++) {
            float[] v = randomUnit(random);
            long t = System.nanoTime();
            store.search("bench", v, 10, -1);
            search[i] = System.nanoTime() - t;
            t = System.nanoTime();
            store.search("bench", embedder.embed(sentences.get(random.nextInt(sentences.size())) + " today"), 10, 0.5);
            both[i] = System.nanoTime() - t;
        }
        report("search top-10 (k*2 of 5), " + label, search);
        report("embed + search, " + label, both);
    }

    private static float[] randomUnit(Random r) {
        float[] v = new float[Embedder.DIMENSION];
        double n = 0;
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) r.nextGaussian();
            n += v[i] * v[i];
        }
        float s = (float) (1 / Math.sqrt(n));
        for (int i = 0; i < v.length; i++) v[i] *= s;
        return v;
    }

    private static List<SchemaSource.TableInfo> syntheticSchema(int tables, int columns) {
        List<SchemaSource.TableInfo> out = new ArrayList<>();
        for (int t = 0; t < tables; t++) {
            String name = SUBJECTS[t % SUBJECTS.length] + (t >= SUBJECTS.length ? "_archive" : "");
            List<SchemaSource.ColumnInfo> cols = new ArrayList<>();
            for (int c = 0; c < columns; c++) {
                cols.add(new SchemaSource.ColumnInfo(name + "_attr_" + c, c % 2 == 0 ? "VARCHAR" : "INTEGER",
                        "attribute " + c + " of " + name, c == 0 ? List.of("a", "b") : List.of()));
            }
            out.add(new SchemaSource.TableInfo(name, "the " + name + " table", cols));
        }
        return out;
    }

    private static void report(String what, long[] nanos) {
        long[] s = nanos.clone();
        Arrays.sort(s);
        System.out.printf("%-55s p50 %7.2f ms   p99 %7.2f ms   (n=%d)%n", what,
                s[s.length / 2] / 1e6, s[Math.min(s.length - 1, (int) Math.ceil(s.length * 0.99) - 1)] / 1e6, s.length);
    }
}
