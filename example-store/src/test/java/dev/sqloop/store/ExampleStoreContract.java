package dev.sqloop.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link ExampleStore} must do, on synthetic vectors of the real dimension. Subclasses supply a fresh,
 * empty store per test.
 */
abstract class ExampleStoreContract {
    static final int DIM = 384;
    protected ExampleStore store;

    protected abstract ExampleStore newStore() throws Exception;

    @BeforeEach
    void open() throws Exception {
        store = newStore();
    }

    @AfterEach
    void close() {
        if (store != null) store.close();
    }

    static float[] randomVector(long seed) {
        Random r = new Random(seed);
        float[] v = new float[DIM];
        for (int i = 0; i < DIM; i++) v[i] = (float) r.nextGaussian();
        return v;
    }

    /** {@code base} moved a little: cosine to base stays high, falling with {@code amount}. */
    static float[] near(float[] base, long seed, double amount) {
        float[] noise = randomVector(seed);
        float[] v = new float[DIM];
        for (int i = 0; i < DIM; i++) v[i] = (float) (base[i] + amount * noise[i]);
        return v;
    }

    static StoredExample example(String ds, String question, String sql) {
        return new StoredExample(ds, question, sql, "duckdb", StoredExample.SEED, Instant.parse("2026-01-01T00:00:00Z"));
    }

    @Test
    void shouldReplaceTheExampleOfTheSameNormalizedQuestion() {
        store.upsert(example("shop", "How many orders?", "SELECT 1"), randomVector(1));
        store.upsert(example("shop", "  how many ORDERS ", "SELECT count(*) FROM orders"), randomVector(1));
        assertEquals(1, store.count());
        assertEquals("SELECT count(*) FROM orders", store.find("shop", "How many orders").orElseThrow().sql());
    }

    @Test
    void shouldSearchOnlyTheGivenDatasourceBestFirstAboveTheThreshold() {
        float[] q = randomVector(7);
        store.upsert(example("shop", "close", "SELECT 'close'"), near(q, 11, 0.1));
        store.upsert(example("shop", "closer", "SELECT 'closer'"), near(q, 12, 0.02));
        store.upsert(example("shop", "unrelated", "SELECT 'far'"), randomVector(99));
        store.upsert(example("hr", "other datasource", "SELECT 'hr'"), q);

        List<Scored<StoredExample>> hits = store.search("shop", q, 5, 0.5);
        assertEquals(List.of("closer", "close"), hits.stream().map(h -> h.value().question()).toList());
        assertTrue(hits.get(0).score() > hits.get(1).score());
        assertTrue(hits.get(0).score() > 0.99 && hits.get(0).score() <= 1.0001, "cosine, not a store-specific scale: " + hits.get(0).score());
        StoredExample e = hits.get(0).value();
        assertEquals("shop", e.datasource());
        assertEquals("duckdb", e.dialect());
        assertEquals(StoredExample.SEED, e.source());
        assertEquals(Instant.parse("2026-01-01T00:00:00Z"), e.createdAt());
        assertEquals(List.of("other datasource"), store.search("hr", q, 5, 0.5).stream().map(h -> h.value().question()).toList());
        assertEquals(1, store.search("shop", q, 1, 0.5).size());
    }

    @Test
    void shouldListEveryExampleWithItsOwnerNotesAndTagsButNoFixesOrMarks() {
        StoredExample curated = new StoredExample("shop", "Top customers", "SELECT name FROM customers LIMIT 5", "duckdb",
                StoredExample.MANUAL, Instant.parse("2026-01-03T00:00:00Z"), "acme", "revenue, not order count", List.of("kpi", "customers"));
        store.upsert(curated, randomVector(20));
        store.upsert(example("hr", "How many employees?", "SELECT count(*) FROM employees"), randomVector(21));
        store.upsert(example("shop", "Gone", "SELECT 0"), randomVector(22));
        store.delete("shop", "Gone");
        store.markWrong("shop", "Wrong one");
        store.upsertFix(new ErrorFix("shop", "err", "syntax_error", "SELEC 1", "SELECT 1", "duckdb", "q", Instant.now()), randomVector(23));

        List<StoredExample> all = new java.util.ArrayList<>();
        store.forEachExample(all::add);
        assertEquals(2, all.size(), "deleted examples, wrong marks and fixes are not examples: " + all);
        assertEquals(curated, all.stream().filter(e -> e.datasource().equals("shop")).findFirst().orElseThrow());
        StoredExample seed = all.stream().filter(e -> e.datasource().equals("hr")).findFirst().orElseThrow();
        assertEquals(null, seed.tenant());
        assertEquals(List.of(), seed.tags());
        assertEquals(1, store.count("shop"), "a tenant's own example counts; deleted ones, marks and fixes do not");
        assertEquals(1, store.count("hr"));
        assertEquals(0, store.count("nowhere"));
    }

    @Test
    void shouldListAndCountEveryExampleOfALargeStore() {
        // more than one page of whatever paging the store uses to list (Qdrant scrolls 256 at a time)
        int n = 600;
        List<StoredExample> examples = new java.util.ArrayList<>();
        List<float[]> vectors = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            examples.add(example(i % 2 == 0 ? "shop" : "hr", "question number " + i, "SELECT " + i));
            vectors.add(randomVector(1000 + i));
        }
        store.upsertAll(examples, vectors);
        assertEquals(n, store.count());
        java.util.Set<String> seen = new java.util.HashSet<>();
        store.forEachExample(e -> assertTrue(seen.add(e.question()), "listed twice: " + e.question()));
        assertEquals(n, seen.size());
        assertEquals("SELECT 599", store.find("hr", "Question number 599").orElseThrow().sql());
        List<Scored<StoredExample>> hits = store.search("shop", vectors.get(42), 3, -1);
        assertEquals("question number 42", hits.get(0).value().question(), "a vector finds its own example first");
        assertEquals(3, hits.size());
        assertTrue(hits.stream().allMatch(h -> h.value().datasource().equals("shop")));
    }

    @Test
    void shouldNeverReturnADeletedExample() {
        float[] v = randomVector(3);
        store.upsert(example("shop", "How many orders?", "SELECT 1"), v);
        assertTrue(store.delete("shop", "how many orders"));
        assertFalse(store.delete("shop", "how many orders"), "second delete finds nothing");
        assertEquals(0, store.count());
        assertTrue(store.find("shop", "How many orders?").isEmpty());
        assertTrue(store.search("shop", v, 5, -1).isEmpty());
    }

    @Test
    void shouldKeepErrorFixPairsApartFromExamples() {
        float[] err = randomVector(5);
        store.upsert(example("shop", "How many orders?", "SELECT 1"), err);
        ErrorFix fix = new ErrorFix("shop", "Column \"ordr_id\" not found", "column_not_found", "SELECT ordr_id FROM orders",
                "SELECT order_id FROM orders", "duckdb", "list order ids", Instant.parse("2026-01-02T00:00:00Z"));
        assertFalse(store.hasFix("shop", fix.errorText(), fix.fixedSql()));
        store.upsertFix(fix, err);
        store.upsertFix(fix, err);
        assertEquals(1, store.countFixes(), "same error fixed the same way is stored once");
        assertTrue(store.hasFix("shop", fix.errorText(), fix.fixedSql()));
        assertFalse(store.hasFix("hr", fix.errorText(), fix.fixedSql()), "another datasource's");
        assertFalse(store.hasFix("shop", fix.errorText(), "SELECT order_id FROM orders LIMIT 1"), "another fix of the same error");
        assertEquals(1, store.count());
        List<Scored<ErrorFix>> hits = store.searchFixes("shop", near(err, 6, 0.05), 3, 0.5);
        assertEquals(List.of(fix), hits.stream().map(Scored::value).toList());
        assertTrue(store.searchFixes("hr", err, 3, 0.5).isEmpty());
        assertEquals(1, store.search("shop", err, 5, 0.5).size(), "examples do not see fixes");
    }

    @Test
    void shouldRememberAndForgetWrongMarks() {
        store.upsert(example("shop", "How many orders?", "SELECT 1"), randomVector(8));
        assertFalse(store.isMarkedWrong("shop", "How many orders?"));
        store.markWrong("shop", "How many orders?");
        assertTrue(store.find("shop", "How many orders?").isEmpty(), "marking deletes the example");
        assertTrue(store.isMarkedWrong("shop", "how many orders"));
        assertFalse(store.isMarkedWrong("hr", "How many orders?"));
        assertEquals(0, store.count(), "a mark is not an example");
        store.clearWrong("shop", "HOW MANY ORDERS?");
        assertFalse(store.isMarkedWrong("shop", "How many orders?"));
    }

    // ------------------------------------------------------------------ tenants

    static StoredExample owned(String ds, String question, String sql, String tenant) {
        return new StoredExample(ds, question, sql, "duckdb", StoredExample.AUTO, Instant.parse("2026-01-04T00:00:00Z"), tenant, null, List.of());
    }

    private static List<String> sqls(List<Scored<StoredExample>> hits) {
        return hits.stream().map(h -> h.value().sql()).toList();
    }

    @Test
    void shouldKeepEachTenantsExampleOfTheSameQuestionApartFromTheSharedOne() {
        float[] v = randomVector(30);
        store.upsert(example("shop", "Which region has the most suppliers?", "SELECT 'seed'"), v);
        store.upsert(owned("shop", "Which region has the most suppliers?", "SELECT 'a'", "tenant-a"), v);
        store.upsert(owned("shop", "which region has the most SUPPLIERS", "SELECT 'b'", "tenant-b"), v);
        assertEquals(3, store.count(), "one example per owner, none replaced another's");
        assertEquals("SELECT 'seed'", store.find("shop", "Which region has the most suppliers?").orElseThrow().sql());
        assertEquals("SELECT 'a'", store.find("shop", "Which region has the most suppliers?", "tenant-a").orElseThrow().sql());
        assertEquals("SELECT 'b'", store.find("shop", "Which region has the most suppliers?", "tenant-b").orElseThrow().sql());
        assertTrue(store.find("shop", "Which region has the most suppliers?", "tenant-c").isEmpty());

        StoredExample a = store.find("shop", "Which region has the most suppliers?", "tenant-a").orElseThrow();
        assertEquals("tenant-a", a.tenant());
        assertFalse(a.shared());
        assertTrue(store.find("shop", "Which region has the most suppliers?").orElseThrow().shared(), "a seed is shared");

        assertFalse(store.delete("shop", "Which region has the most suppliers?", "tenant-c"), "nothing of tenant-c's to delete");
        assertTrue(store.delete("shop", "Which region has the most suppliers?", "tenant-a"));
        assertEquals("SELECT 'b'", store.find("shop", "Which region has the most suppliers?", "tenant-b").orElseThrow().sql(), "b's stays");
        assertTrue(store.find("shop", "Which region has the most suppliers?").isPresent(), "the shared one stays");
        assertEquals(2, store.count());
    }

    @Test
    void shouldSearchOnlyTheExamplesTheTenantMaySee() {
        float[] q = randomVector(40);
        store.upsert(example("shop", "seeded", "SELECT 'seed'"), near(q, 41, 0.3));
        store.upsert(owned("shop", "a's", "SELECT 'a'", "tenant-a"), near(q, 42, 0.1));
        store.upsert(owned("shop", "b's", "SELECT 'b'", "tenant-b"), near(q, 43, 0.2));
        StoredExample promoted = new StoredExample("shop", "promoted", "SELECT 'promoted'", "duckdb", StoredExample.MANUAL,
                Instant.parse("2026-01-05T00:00:00Z"), "data-team", "checked", List.of("kpi"), true);
        store.upsert(promoted, near(q, 44, 0.4));
        store.upsert(owned("hr", "a's elsewhere", "SELECT 'a-hr'", "tenant-a"), q);

        assertEquals(List.of("SELECT 'a'", "SELECT 'seed'", "SELECT 'promoted'"), sqls(store.search("shop", "tenant-a", q, 5, -1)));
        assertEquals(List.of("SELECT 'b'", "SELECT 'seed'", "SELECT 'promoted'"), sqls(store.search("shop", "tenant-b", q, 5, -1)));
        assertEquals(List.of("SELECT 'seed'", "SELECT 'promoted'"), sqls(store.search("shop", "tenant-c", q, 5, -1)));
        assertEquals(List.of("SELECT 'seed'", "SELECT 'promoted'"), sqls(store.search("shop", q, 5, -1)), "no tenant: shared only");
        assertEquals(List.of("SELECT 'a-hr'"), sqls(store.search("hr", "tenant-a", q, 5, -1)));
        assertTrue(store.search("hr", "tenant-b", q, 5, -1).isEmpty());
        StoredExample found = store.search("shop", "tenant-c", q, 5, -1).get(1).value();
        assertEquals(promoted, found, "a promoted example keeps its creator and is shared");
    }

    @Test
    void shouldFillTheTopKWithVisibleExamplesWhateverOtherTenantsStore() {
        float[] q = randomVector(50);
        // tenant-a's examples are all closer to the question than tenant-b's only one
        for (int i = 0; i < 40; i++) store.upsert(owned("shop", "a's question " + i, "SELECT 'a" + i + "'", "tenant-a"), near(q, 100 + i, 0.05));
        store.upsert(owned("shop", "b's question", "SELECT 'b'", "tenant-b"), near(q, 51, 0.8));
        store.upsert(example("shop", "the seed", "SELECT 'seed'"), near(q, 52, 0.9));
        assertEquals(List.of("SELECT 'b'", "SELECT 'seed'"), sqls(store.search("shop", "tenant-b", q, 2, -1)),
                "filtered in the search, not after the top k");
        assertEquals(3, store.search("shop", "tenant-a", q, 3, -1).size());
        assertTrue(sqls(store.search("shop", "tenant-a", q, 3, -1)).stream().allMatch(s -> s.startsWith("SELECT 'a")));
    }

    @Test
    void shouldKeepWrongMarksPerOwner() {
        store.upsert(owned("shop", "How many orders?", "SELECT 'a'", "tenant-a"), randomVector(60));
        store.upsert(owned("shop", "How many orders?", "SELECT 'b'", "tenant-b"), randomVector(60));
        store.upsert(example("shop", "How many orders?", "SELECT 'seed'"), randomVector(60));
        store.markWrong("shop", "How many orders?", "tenant-a");
        assertTrue(store.isMarkedWrong("shop", "how many orders", "tenant-a"));
        assertFalse(store.isMarkedWrong("shop", "How many orders?", "tenant-b"));
        assertFalse(store.isMarkedWrong("shop", "How many orders?"), "not a mark for every tenant");
        assertTrue(store.find("shop", "How many orders?", "tenant-a").isEmpty(), "a's example deleted");
        assertTrue(store.find("shop", "How many orders?", "tenant-b").isPresent(), "b's kept");
        assertTrue(store.find("shop", "How many orders?").isPresent(), "the shared one kept");
        store.clearWrong("shop", "How many orders?", "tenant-a");
        assertFalse(store.isMarkedWrong("shop", "How many orders?", "tenant-a"));
    }
}
