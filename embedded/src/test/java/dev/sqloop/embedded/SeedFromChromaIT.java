package dev.sqloop.embedded;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.cli.CommandFailure;
import dev.sqloop.cli.SeedCommand;
import dev.sqloop.store.ChromaClient;
import dev.sqloop.store.ChromaExampleStore;
import dev.sqloop.store.Embedder;
import dev.sqloop.store.StoredExample;
import dev.sqloop.testkit.engines.ChromaServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Migrating from an agent that kept its question→SQL examples in Chroma: {@code ./sqloop seed --from-chroma URL
 * --chroma-collection NAME --datasource D --store} against a real Chroma server (testkit's {@link ChromaServer}), a
 * collection made with Chroma's API as such an agent makes it (questions as documents, SQL and other fields in
 * metadata, its own 384-d vectors), imported into sqloop's Chroma store on the same server. Read-only queries become
 * seeds; a DROP TABLE and a query that does not parse are refused with their reasons and never stored; a second run
 * changes nothing.
 */
class SeedFromChromaIT {
    private static ChromaServer chroma;
    private static String legacy;

    @BeforeAll
    static void start() {
        chroma = ChromaServer.start();
        legacy = "legacy-examples-" + UUID.randomUUID().toString().substring(0, 8);
        try (ChromaClient client = new ChromaClient(chroma.url(), "default_tenant", "default_database")) {
            // as the seed agent's ExampleStore.add(question, sql, metric_name, dialect) leaves it: l2 distance, its own vectors
            ChromaClient.Collection c = client.create(legacy);
            List<String> ids = List.of("q-customers", "q-top-products", "q-orders-month", "q-drop", "q-broken", "q-no-sql");
            List<String> questions = List.of("How many customers are there?", "Top 5 products by revenue", "Orders per month",
                    "Remove the customers table", "Customer names", "What is our churn?");
            List<Map<String, Object>> metadata = List.of(
                    Map.of("sql", "SELECT count(*) FROM customers", "metric_name", "customers", "dialect", "presto"),
                    Map.of("sql", "SELECT product_id, sum(amount) AS revenue FROM sales GROUP BY product_id ORDER BY revenue DESC LIMIT 5",
                            "metric_name", "revenue", "dialect", "presto"),
                    Map.of("sql", "SELECT date_trunc('month', order_date) AS month, count(*) FROM orders GROUP BY 1 ORDER BY 1",
                            "metric_name", "", "dialect", "presto"),
                    Map.of("sql", "DROP TABLE customers", "metric_name", "", "dialect", "presto"),
                    Map.of("sql", "SELEC name FROM customers WHERE", "metric_name", "", "dialect", "presto"),
                    Map.of("metric_name", "churn", "dialect", "presto"));
            List<float[]> vectors = new ArrayList<>();
            Random r = new Random(7);
            for (int i = 0; i < ids.size(); i++) {
                float[] v = new float[Embedder.DIMENSION];
                for (int j = 0; j < v.length; j++) v[j] = (float) r.nextGaussian();
                vectors.add(v);
            }
            client.upsert(c.id(), ids, vectors, questions, metadata);
        }
    }

    @AfterAll
    static void stop() {
        if (chroma != null) chroma.close();
    }

    /** What one run printed and threw. */
    private record Run(String out, String err, CommandFailure failure) {}

    private static Run seed(Map<String, String> env, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CommandFailure failure = null;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8); PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            SeedCommand.run(List.of(args), env, o, e);
        } catch (CommandFailure f) {
            failure = f;
        } catch (Exception e) {
            throw new AssertionError("seed failed: " + e, e);
        }
        return new Run(out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8), failure);
    }

    @Test
    void shouldImportTheReadOnlyQueriesAsSeedsRefuseTheRestAndChangeNothingTheSecondTime() {
        String prefix = "imported" + UUID.randomUUID().toString().replace("-", "");
        Map<String, String> env = Map.of("SQLOOP_FEWSHOT_STORE", "chroma", "SQLOOP_FEWSHOT_CHROMA_URL", chroma.url(),
                "SQLOOP_FEWSHOT_CHROMA_COLLECTION_PREFIX", prefix);
        String[] args = {"--from-chroma", chroma.url(), "--chroma-collection", legacy, "--datasource", "shop", "--store"};

        Run first = seed(env, args);
        System.out.print(first.out() + first.err()); // what a user sees, in the test's log
        assertTrue(first.failure() != null && first.failure().getMessage().contains("2 pairs were refused"),
                "refusals make the run fail (exit 1) after storing the others: " + first);
        assertTrue(first.out().contains("read 6 from Chroma collection " + legacy + " at " + chroma.url()
                + ": 3 added or changed, 0 already there, 1 skipped"), first.out());
        assertTrue(first.out().contains("2 refused; 3 examples stored in Chroma at " + chroma.url()), first.out());
        String[] refusals = first.err().lines().filter(l -> l.contains("refused:")).toArray(String[]::new);
        assertEquals(2, refusals.length, first.err());
        assertTrue(refusals[0].contains("record q-drop (\"Remove the customers table\"): the sql is not one read-only DuckDB query"),
                refusals[0]);
        assertTrue(refusals[1].contains("record q-broken (\"Customer names\"): the sql is not one read-only DuckDB query"), refusals[1]);

        StoredExample customers;
        try (ChromaExampleStore store = ChromaExampleStore.connect(chroma.url(), "default_tenant", "default_database", prefix, Embedder.DIMENSION)) {
            assertEquals(3, store.count("shop"));
            customers = store.find("shop", "how many customers are there").orElseThrow();
            assertEquals("SELECT count(*) FROM customers", customers.sql());
            assertEquals(StoredExample.SEED, customers.source());
            assertEquals("duckdb", customers.dialect(), "the datasource's dialect (SQLOOP_FEWSHOT_DIALECT's default here)");
            assertTrue(customers.shared());
            assertTrue(store.find("shop", "Remove the customers table").isEmpty(), "a refused pair is never stored");
            assertTrue(store.find("shop", "Customer names").isEmpty(), "a refused pair is never stored");
            // sqloop's own vectors (all-MiniLM-L6-v2 of the question), not the other agent's: its own question finds it first
            float[] q = new Embedder(Embedder.Model.DEFAULT).embed("How many customers are there?");
            assertEquals("How many customers are there?", store.search("shop", q, 1, 0.5).getFirst().value().question());
        }

        Run second = seed(env, args);
        assertTrue(second.out().contains("0 added or changed, 3 already there, 1 skipped"), second.out());
        assertTrue(second.failure() != null && second.err().lines().filter(l -> l.contains("refused:")).count() == 2, second.toString());
        try (ChromaExampleStore store = ChromaExampleStore.connect(chroma.url(), "default_tenant", "default_database", prefix, Embedder.DIMENSION)) {
            assertEquals(3, store.count());
            assertEquals(customers, store.find("shop", "How many customers are there?").orElseThrow(), "left as it was, not rewritten");
        }
    }

    @Test
    void shouldNameACollectionThatIsNotThere() {
        Map<String, String> env = Map.of("SQLOOP_FEWSHOT_STORE", "chroma", "SQLOOP_FEWSHOT_CHROMA_URL", chroma.url(),
                "SQLOOP_FEWSHOT_CHROMA_COLLECTION_PREFIX", "missing" + UUID.randomUUID().toString().replace("-", ""));
        Run run = seed(env, "--from-chroma", chroma.url(), "--chroma-collection", "no-such-collection", "--datasource", "shop", "--store");
        assertTrue(run.failure() != null && run.failure().getMessage().contains("no collection no-such-collection"), run.toString());
    }
}
