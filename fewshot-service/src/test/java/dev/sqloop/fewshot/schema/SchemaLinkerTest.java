package dev.sqloop.fewshot.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
        SchemaLinker linker = new SchemaLinker(TestWarehouse.schemaSource(warehouse), embedder, SchemaLinker.Settings.DEFAULTS, Clock.systemUTC());
        LinkedSchema linked = link(linker, question);
        assertEquals(table, linked.tables().getFirst().name(), "tables ranked: " + linked.tables().stream().map(LinkedSchema.Table::name).toList());
        assertTrue(linked.tables().size() <= SchemaLinker.Settings.DEFAULTS.maxTables());
    }

    @Test
    void shouldCarryColumnsTypesDescriptionsAndSampleValuesOfLowCardinalityColumns() throws Exception {
        SchemaLinker linker = new SchemaLinker(TestWarehouse.schemaSource(warehouse), embedder, SchemaLinker.Settings.DEFAULTS, Clock.systemUTC());
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
}
