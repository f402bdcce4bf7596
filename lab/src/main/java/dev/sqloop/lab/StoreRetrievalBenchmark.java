package dev.sqloop.lab;

import dev.sqloop.store.ChromaExampleStore;
import dev.sqloop.store.Embedder;
import dev.sqloop.store.ExampleStore;
import dev.sqloop.store.LuceneExampleStore;
import dev.sqloop.store.StoredExample;
import dev.sqloop.testkit.Dirs;
import dev.sqloop.testkit.engines.ChromaServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * The same 1k really embedded examples (a tenth of them one tenant's own) in the embedded Lucene store and in a real
 * Chroma server (testkit's {@link ChromaServer}, loopback HTTP): load time, then top-10 search latency p50/p99 for the
 * shared examples and for a tenant (the visibility filter inside the search), over the same query vectors. The question
 * embedding is the same CPU whichever store; {@code bench retrieval} measures it. Args: {@code [Q]}, queries timed.
 */
public final class StoreRetrievalBenchmark {
    private static final String[] SUBJECTS = {"orders", "customers", "products", "flights", "authors", "papers", "restaurants",
            "employees", "departments", "suppliers", "invoices", "payments", "cars", "students", "courses"};
    private static final String[] ASKS = {"How many %s were created in %d?", "List the top %2$d %1$s by revenue",
            "What is the average price of %s in %d?", "Which %s changed in the last %d days?", "Show %s per region for %d",
            "Count the distinct %s with more than %d items"};

    private StoreRetrievalBenchmark() {}

    public static void main(String[] args) throws Exception {
        int queries = dev.sqloop.cli.Args.count(args, 0, 500, "bench retrieval-stores [Q]: Q, the queries timed,");
        Embedder embedder = new Embedder(Embedder.Model.DEFAULT);
        Random random = new Random(42);
        List<StoredExample> examples = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            String q = String.format(ASKS[i % ASKS.length], SUBJECTS[random.nextInt(SUBJECTS.length)], 1990 + i);
            examples.add(new StoredExample("bench", q, "SELECT " + i, "duckdb", StoredExample.SEED, Instant.EPOCH,
                    i % 10 == 0 ? "tenant-a" : null, null, List.of()));
        }
        List<float[]> vectors = embedder.embedAll(examples.stream().map(StoredExample::question).toList());
        List<float[]> asked = new ArrayList<>();
        for (int i = 0; i < queries; i++) asked.add(embedder.embed(examples.get(random.nextInt(examples.size())).question() + " today"));
        System.out.printf("1,000 examples (%s), %d queries, top 10; %d cores%n", embedder.model().wireName(), queries,
                Runtime.getRuntime().availableProcessors());

        Path dir = Files.createTempDirectory("sqloop-store-bench-");
        try (ChromaServer chroma = ChromaServer.start()) {
            try (LuceneExampleStore lucene = LuceneExampleStore.open(dir.resolve("lucene"))) {
                measure("Lucene (embedded)", lucene, examples, vectors, asked);
            }
            try (ChromaExampleStore store = ChromaExampleStore.connect(chroma.url(), "default_tenant", "default_database", "bench", Embedder.DIMENSION)) {
                measure("Chroma " + ChromaServer.SERVER_VERSION + " (HTTP, loopback)", store, examples, vectors, asked);
            }
        } finally {
            Dirs.deleteQuietly(dir);
        }
    }

    private static void measure(String label, ExampleStore store, List<StoredExample> examples, List<float[]> vectors, List<float[]> asked) {
        long load = System.nanoTime();
        for (int i = 0; i < examples.size(); i += 100) store.upsertAll(examples.subList(i, i + 100), vectors.subList(i, i + 100));
        System.out.printf("%-32s load 1,000 in batches of 100: %.2f s%n", label, (System.nanoTime() - load) / 1e9);
        for (int i = 0; i < 50; i++) store.search("bench", asked.get(i % asked.size()), 10, -1); // warm up
        long[] shared = new long[asked.size()];
        long[] tenant = new long[asked.size()];
        for (int i = 0; i < asked.size(); i++) {
            long t = System.nanoTime();
            store.search("bench", asked.get(i), 10, -1);
            shared[i] = System.nanoTime() - t;
            t = System.nanoTime();
            store.search("bench", "tenant-a", asked.get(i), 10, -1);
            tenant[i] = System.nanoTime() - t;
        }
        report(label + ", search shared", shared);
        report(label + ", search as tenant-a", tenant);
    }

    private static void report(String what, long[] nanos) {
        long[] s = nanos.clone();
        Arrays.sort(s);
        System.out.printf("%-55s p50 %7.2f ms   p99 %7.2f ms   (n=%d)%n", what,
                s[s.length / 2] / 1e6, s[Math.min(s.length - 1, (int) Math.ceil(s.length * 0.99) - 1)] / 1e6, s.length);
    }
}
