package dev.sqloop.fewshot.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.message.LinkedSchema;
import dev.sqloop.store.Embedder;
import dev.sqloop.fewshot.TestModel;
import dev.sqloop.fewshot.TestWarehouse;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Schema linking with the real embedding model on a real DuckDB schema. */
class SchemaLinkerTest {
    @TempDir
    static Path dir;
    static Path warehouse;
    static final Embedder embedder = TestModel.embedder();

    @BeforeAll
    static void createWarehouse() throws Exception {
        warehouse = TestWarehouse.create(dir);
    }

    /** Ranking only: a budget of 0 never gives a whole schema nor fills up with more tables. */
    static final SchemaLinker.Settings RANKED = new SchemaLinker.Settings(4, 25, 0.35, java.time.Duration.ofMinutes(10), 0);

    private static LinkedSchema link(SchemaLinker linker, String question) throws Exception {
        return linker.link("shop", question, embedder.embed(question));
    }

    @ParameterizedTest(name = "{0} → {1}")
    @CsvSource(delimiter = '|', textBlock = """
            How many orders were cancelled?                    | orders
            Which city has the most customers?                 | customers
            What is the average price of toys?                 | products
            List employees hired after 2020 with their salary  | employees
            What is the budget of each department?             | departments
            Which suppliers are based in Germany?              | suppliers
            Which order items have a quantity above 2?         | order_items
            """)
    void shouldRankTheRightTableFirst(String question, String table) throws Exception {
        SchemaLinker linker = new SchemaLinker(TestWarehouse.schemaSource(warehouse), embedder, RANKED, Clock.systemUTC());
        LinkedSchema linked = link(linker, question);
        assertEquals(table, linked.tables().getFirst().name(), "tables ranked: " + linked.tables().stream().map(LinkedSchema.Table::name).toList());
        assertTrue(linked.tables().size() <= SchemaLinker.Settings.DEFAULTS.maxTables());
    }

    @Test
    void shouldCarryColumnsTypesDescriptionsAndSampleValuesOfLowCardinalityColumns() throws Exception {
        SchemaLinker linker = new SchemaLinker(TestWarehouse.schemaSource(warehouse), embedder, RANKED, Clock.systemUTC());
        LinkedSchema.Table orders = link(linker, "How many orders are pending?").tables().getFirst();
        assertEquals("orders", orders.name());
        LinkedSchema.Column status = orders.columns().stream().filter(c -> c.name().equals("status")).findFirst().orElseThrow();
        assertEquals(List.of("cancelled", "pending", "shipped"), status.sampleValues());
        assertTrue(status.type().toUpperCase().contains("VARCHAR"), status.type());
        assertEquals("shipped, pending or cancelled", status.description());
        assertEquals("Purchases placed by customers", orders.description());
        LinkedSchema.Column amount = orders.columns().stream().filter(c -> c.name().equals("total_amount")).findFirst().orElseThrow();
        assertEquals(List.of(), amount.sampleValues(), "numbers get no samples");

        LinkedSchema.Table customers = link(linker, "How many customers live in Berlin?").tables().getFirst();
        LinkedSchema.Column city = customers.columns().stream().filter(c -> c.name().equals("city")).findFirst().orElseThrow();
        assertEquals(List.of(), city.sampleValues(), "seven distinct cities is not low cardinality");
    }

    @Test
    void shouldEmbedTheSchemaOncePerDatasource() throws Exception {
        AtomicInteger loads = new AtomicInteger();
        SchemaSource source = TestWarehouse.schemaSource(warehouse);
        SchemaLinker linker = new SchemaLinker(ds -> {
            loads.incrementAndGet();
            return source.tables(ds);
        }, embedder, SchemaLinker.Settings.DEFAULTS, Clock.systemUTC());
        link(linker, "How many orders?");
        link(linker, "Which products are toys?");
        assertEquals(1, loads.get());
    }

    /**
     * A table created in the warehouse after the schema was read reaches the prompt after the TTL, by a reload beside the
     * questions: until it has run they link against the schema in use, and while reloads fail they keep it (before,
     * a failed reload sent each question to the generator with no schema at all, each after its own failed read).
     */
    @Test
    void shouldReloadAfterTheTtlBesideTheQuestionsAndKeepTheSchemaInUseWhileReloadsFail() throws Exception {
        Path reloading = TestWarehouse.create(java.nio.file.Files.createDirectories(dir.resolve("reloading")));
        SchemaSource source = TestWarehouse.schemaSource(reloading);
        boolean[] down = {false};
        AtomicInteger reads = new AtomicInteger();
        dev.sqloop.testkit.ManualClock clock = new dev.sqloop.testkit.ManualClock("2026-11-27T10:00:00Z");
        List<Runnable> reloads = new java.util.ArrayList<>();
        java.time.Duration ttl = java.time.Duration.ofMinutes(10);
        SchemaLinker linker = new SchemaLinker(ds -> {
            reads.incrementAndGet();
            if (down[0]) throw new java.sql.SQLException("Connection refused");
            return source.tables(ds);
        }, embedder, new SchemaLinker.Settings(4, 25, 0.35, ttl, 100_000), clock, reloads::add);
        java.util.function.Supplier<List<String>> tables = () -> {
            try {
                return link(linker, "How many refunds were there?").tables().stream().map(LinkedSchema.Table::name).toList();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        };
        List<String> before = tables.get();
        assertTrue(before.contains("orders") && !before.contains("refunds"), before.toString());
        try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:duckdb:" + reloading);
             java.sql.Statement st = c.createStatement()) {
            st.execute("CREATE TABLE refunds (id INTEGER, order_id INTEGER, reason VARCHAR)");
        }
        down[0] = true;
        clock.advance(ttl);
        assertEquals(before, tables.get(), "the schema in use answers while it is reloaded");
        assertEquals(1, reloads.size(), "one reload");
        reloads.removeFirst().run();
        assertEquals(before, tables.get(), "a failed reload leaves the schema in use");
        assertEquals(before, tables.get());
        assertEquals(List.of(), reloads, "and is not retried by every question");
        assertEquals(2, reads.get());
        down[0] = false;
        clock.advance(SchemaLinker.RELOAD_RETRY_PAUSE);
        assertEquals(before, tables.get());
        reloads.removeFirst().run();
        List<String> after = tables.get();
        assertTrue(after.contains("refunds") && after.containsAll(before), after.toString());
        assertEquals(3, reads.get());
    }

    private static SchemaSource.TableInfo table(String name, String... columns) {
        return new SchemaSource.TableInfo(name, "", java.util.Arrays.stream(columns)
                .map(c -> new SchemaSource.ColumnInfo(c, "bigint", "", List.of())).toList());
    }

    private static final List<SchemaSource.TableInfo> SCHOLAR = List.of(
            table("author", "authorid", "authorname"), table("paper", "paperid", "title", "year", "venueid", "numcitedby"),
            table("writes", "paperid", "authorid"), table("venue", "venueid", "venuename"), table("keyphrase", "keyphraseid", "keyphrasename"),
            table("paperkeyphrase", "paperid", "keyphraseid"), table("cite", "citingpaperid", "citedpaperid"),
            table("dataset", "datasetid", "datasetname"), table("paperdataset", "paperid", "datasetid"), table("journal", "journalid", "journalname"));

    @Test
    void shouldGiveTheWholeSchemaWhenItFitsTheBudget() throws Exception {
        SchemaLinker linker = new SchemaLinker(ds -> SCHOLAR, embedder, SchemaLinker.Settings.DEFAULTS, Clock.systemUTC());
        LinkedSchema linked = link(linker, "How many papers did each author write?");
        assertEquals(SCHOLAR.size(), linked.tables().size());
        assertTrue(LinkedSchema.estimateTokens(linked.render()) <= SchemaLinker.Settings.DEFAULTS.tokenBudget());
        assertTrue(linked.whole(), "marked whole: the prompt may put it in the prefix every question of the datasource shares");
    }

    @Test
    void shouldAddTheBridgeTableBetweenTwoLinkedTables() throws Exception {
        SchemaLinker linker = new SchemaLinker(ds -> SCHOLAR, embedder,
                new SchemaLinker.Settings(2, 25, 1.0, java.time.Duration.ofMinutes(10), 0), Clock.systemUTC());
        LinkedSchema linked = link(linker, "Which author names wrote a paper titled Deep Learning?");
        List<String> names = linked.tables().stream().map(LinkedSchema.Table::name).toList();
        assertTrue(names.containsAll(List.of("author", "paper", "writes")), names.toString());
        assertFalse(linked.whole(), "a ranked subset is this question's own");
    }

    @Test
    void shouldFillTheBudgetWithJoinedTablesFirst() throws Exception {
        SchemaLinker linker = new SchemaLinker(ds -> SCHOLAR, embedder,
                new SchemaLinker.Settings(1, 25, 0.0, java.time.Duration.ofMinutes(10), 60), Clock.systemUTC());
        LinkedSchema linked = link(linker, "Which venue names exist?");
        assertTrue(LinkedSchema.estimateTokens(linked.render()) <= 60 || linked.tables().size() == 1, linked.render());
        assertEquals("venue", linked.tables().getFirst().name());
        assertEquals("paper", linked.tables().get(1).name(), "the table that joins the kept one comes next: " + linked.render());
    }

    @Test
    void shouldKeepKeyAndJoinColumnsOfAWideTable() throws Exception {
        List<SchemaSource.TableInfo> wide = List.of(table("flight", "flight_id", "airline_code", "from_airport", "to_airport",
                        "departure_time", "arrival_time", "stops", "meal_code", "aircraft_code_sequence", "connections"),
                table("airline", "airline_code", "airline_name", "note"));
        SchemaLinker linker = new SchemaLinker(ds -> wide, embedder,
                new SchemaLinker.Settings(2, 3, 1.0, java.time.Duration.ofMinutes(10), 0), Clock.systemUTC());
        LinkedSchema linked = link(linker, "Which airline names have flights departing after 8?");
        LinkedSchema.Table flight = linked.tables().stream().filter(t -> t.name().equals("flight")).findFirst().orElseThrow();
        List<String> cols = flight.columns().stream().map(LinkedSchema.Column::name).toList();
        assertTrue(cols.containsAll(List.of("flight_id", "airline_code")), cols.toString());
    }
}
