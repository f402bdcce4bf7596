package dev.sqloop.fewshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.store.LuceneExampleStore;
import dev.sqloop.store.StoredExample;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExampleSeederTest {
    /** The defog questions vendored in the repository ({@code datasets/defog}), found as every other test finds them. */
    static final Path DEFOG = dev.sqloop.testkit.engines.DefogDatasets.questionsCsv();

    @TempDir
    Path dir;

    @Test
    void shouldSeedYamlCasesIdempotentlyAndSkipEmptySql() throws Exception {
        Path yaml = dir.resolve("benchmark.yaml");
        Files.writeString(yaml, """
                cases:
                  - id: case1
                    question: ID DAU in Nov 2025
                    expected_sql: SELECT avg(a1) FROM t WHERE region = 'ID'
                    tags: [dau]
                  - id: case2
                    question: TH GMV in Dec 2025
                    expected_sql: "SELECT sum(gmv) FROM t WHERE region = 'TH'"
                    tags: [gmv]
                  - id: edge_case
                    question: What is revenue?
                    expected_sql: ""
                    tags: [edge]
                """);
        try (LuceneExampleStore store = LuceneExampleStore.open(dir.resolve("index"))) {
            ExampleSeeder seeder = new ExampleSeeder(TestModel.embedder(), store, Clock.systemUTC());
            for (int i = 0; i < 3; i++) {
                ExampleSeeder.Report r = seeder.seed(yaml, "metrics", "trino");
                assertEquals(new ExampleSeeder.Report(3, 2, 1), r);
                assertEquals(2, store.count(), "run " + (i + 1) + " leaves the count unchanged");
            }
            StoredExample e = store.find("metrics", "th gmv in dec 2025").orElseThrow();
            assertEquals("SELECT sum(gmv) FROM t WHERE region = 'TH'", e.sql());
            assertEquals(StoredExample.SEED, e.source());
            assertEquals("trino", e.dialect());
        }
    }

    /**
     * An import from another system's store: the validator's parser decides what may become an example, the rest is
     * refused with its reason; a second import changes nothing; a curated example and a repeated question are kept.
     */
    @Test
    void shouldImportOnlyReadOnlyQueriesAndChangeNothingTheSecondTime() {
        java.util.List<ExampleSeeder.Row> rows = java.util.List.of(
                new ExampleSeeder.Row("shop", "How many orders?", "SELECT count(*) FROM orders"),
                new ExampleSeeder.Row("shop", "Drop them", "DROP TABLE orders"),
                new ExampleSeeder.Row("shop", "Two at once", "SELECT 1; DELETE FROM orders"),
                new ExampleSeeder.Row("shop", "Broken", "SELEC * FROM"),
                new ExampleSeeder.Row("shop", "HOW MANY ORDERS", "SELECT 2"),
                new ExampleSeeder.Row("shop", "Top customers", "SELECT name FROM customers LIMIT 5"),
                new ExampleSeeder.Row("hr", "Headcount", "SELECT count(*) FROM employees"),
                new ExampleSeeder.Row("shop", "No SQL", null));
        java.util.List<String> labels = java.util.stream.IntStream.range(0, rows.size()).mapToObj(i -> "record r" + i).toList();
        try (LuceneExampleStore store = LuceneExampleStore.open(dir.resolve("index"))) {
            store.upsert(new StoredExample("shop", "Top customers", "SELECT name FROM customers ORDER BY revenue DESC LIMIT 5",
                    "duckdb", StoredExample.MANUAL, null, "acme", "curated", java.util.List.of(), true), TestModel.embedder().embed("Top customers"));
            ExampleSeeder seeder = new ExampleSeeder(TestModel.embedder(), store, Clock.systemUTC());
            ExampleSeeder.Import first = seeder.importPairs(rows, labels, ds -> "duckdb");
            assertEquals(8, first.read());
            assertEquals(2, first.added(), first.toString());
            assertEquals(0, first.unchanged());
            assertEquals(3, first.skipped(), "the repeated question, the curated one, the one without SQL: " + first);
            assertEquals(3, first.refused().size(), first.toString());
            assertTrue(first.refused().get(0).startsWith("record r1 (\"Drop them\"): the sql is not one read-only DuckDB query"), first.refused().get(0));
            assertTrue(first.refused().get(1).startsWith("record r2 (\"Two at once\")"), first.refused().get(1));
            assertTrue(first.refused().get(2).startsWith("record r3 (\"Broken\")"), first.refused().get(2));
            assertEquals("SELECT count(*) FROM orders", store.find("shop", "how many orders").orElseThrow().sql(), "the first of a repeated question");
            assertEquals("curated", store.find("shop", "Top customers").orElseThrow().notes(), "a curated example stays");
            assertTrue(store.find("shop", "Drop them").isEmpty());
            assertEquals(3, store.count());

            ExampleSeeder.Import second = seeder.importPairs(rows, labels, ds -> "duckdb");
            assertEquals(new ExampleSeeder.Import(8, 0, 2, 3, first.refused()), second);
            assertEquals(3, store.count());
        }
    }

    @Test
    void shouldSeedTheDefogCsvPerDatabaseWithTheFirstGoldAlternative() throws Exception {
        try (LuceneExampleStore store = LuceneExampleStore.open(dir.resolve("index"))) {
            ExampleSeeder seeder = new ExampleSeeder(TestModel.embedder(), store, Clock.systemUTC());
            ExampleSeeder.Report first = seeder.seed(DEFOG, "unused", "postgres");
            long count = store.count();
            assertTrue(count >= 100 && count <= first.seeded(), "count " + count + " report " + first);
            seeder.seed(DEFOG, "unused", "postgres");
            seeder.seed(DEFOG, "unused", "postgres");
            assertEquals(count, store.count(), "seeding three times leaves the count unchanged");
            StoredExample e = store.find("academic", "What is the total number of publications published in each year?").orElseThrow();
            assertEquals("SELECT publication.year, COUNT(DISTINCT publication.pid) AS total_publications FROM publication GROUP BY publication.year ORDER BY publication.year", e.sql());
            StoredExample alt = store.find("academic", "What is the total number of citations received by each author?").orElseThrow();
            assertEquals("SELECT author.name, sum(publication.citation_num) AS total_citations FROM author JOIN writes ON author.aid = writes.aid "
                    + "JOIN publication ON writes.pid = publication.pid GROUP BY author.name ORDER BY total_citations DESC NULLS LAST", alt.sql());
        }
    }

    @Test
    void shouldNotOverwriteACuratedExampleWhenReseeding() throws Exception {
        Path jsonl = dir.resolve("cases.jsonl");
        Files.writeString(jsonl, """
                {"question": "How many orders?", "sql": "SELECT count(*) FROM orders", "datasource": "shop"}
                {"question": "Best product?", "sql": "SELECT name FROM products LIMIT 1", "datasource": "shop"}
                """);
        try (LuceneExampleStore store = LuceneExampleStore.open(dir.resolve("index"))) {
            ExampleSeeder seeder = new ExampleSeeder(TestModel.embedder(), store, Clock.systemUTC());
            assertEquals(new ExampleSeeder.Report(2, 2, 0), seeder.seed(jsonl, "x", "duckdb"));
            StoredExample curated = new StoredExample("shop", "Best product?", "SELECT name FROM products ORDER BY sales DESC LIMIT 1",
                    "duckdb", StoredExample.MANUAL, java.time.Instant.now(), "acme", "by revenue, not by name", java.util.List.of("kpi"),
                    true); // a curator's shared example: seeds and it are the same (shared) example of the question
            store.upsert(curated, TestModel.embedder().embed(curated.question()));

            assertEquals(new ExampleSeeder.Report(2, 1, 1), seeder.seed(jsonl, "x", "duckdb"), "the curated one is skipped");
            StoredExample kept = store.find("shop", "Best product?").orElseThrow();
            assertEquals(curated.sql(), kept.sql());
            assertEquals("acme", kept.tenant());
            assertEquals("by revenue, not by name", kept.notes());
            assertEquals(java.util.List.of("kpi"), kept.tags());
        }
    }

    @Test
    void shouldSeedJsonlAndSkipQuestionsMarkedWrong() throws Exception {
        Path jsonl = dir.resolve("cases.jsonl");
        Files.writeString(jsonl, """
                {"question": "How many orders?", "sql": "SELECT count(*) FROM orders", "datasource": "shop"}
                {"question": "Best product?", "query": "SELECT name FROM products LIMIT 1", "db_name": "shop"}

                {"question": "No SQL here", "datasource": "shop"}
                """);
        try (LuceneExampleStore store = LuceneExampleStore.open(dir.resolve("index"))) {
            store.markWrong("shop", "best product");
            ExampleSeeder.Report r = new ExampleSeeder(TestModel.embedder(), store, Clock.systemUTC()).seed(jsonl, "x", "duckdb");
            assertEquals(new ExampleSeeder.Report(3, 1, 2), r);
            assertTrue(store.find("shop", "How many orders?").isPresent());
        }
    }

    @Test
    void shouldTakeTheFirstGoldAlternative() {
        assertEquals("SELECT a.name FROM a GROUP BY a.name", ExampleSeeder.firstAlternative("SELECT {a.name, a.id} FROM a GROUP BY {};SELECT 2"));
        assertEquals("SELECT 'x;y' FROM t", ExampleSeeder.firstAlternative("SELECT 'x;y' FROM t; SELECT 1;"));
        assertEquals("SELECT 1", ExampleSeeder.firstAlternative("SELECT 1"));
    }
}
