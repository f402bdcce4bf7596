package dev.sqloop.validator.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.chdb.Chdb;
import dev.sqloop.chdb.ChdbSession;
import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.datasource.Datasources;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.Issue;
import dev.sqloop.parse.ObjectName;
import dev.sqloop.testkit.engines.ChdbLibrary;
import dev.sqloop.validator.ConfiguredDatasourceCatalogs;
import dev.sqloop.validator.StaticValidator;
import dev.sqloop.validator.ValidationTarget;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A ClickHouse datasource on chDB ({@code jdbc:chdb:DIR?database=shop}) gets its validator catalog from the engine's own
 * {@code system.columns} and {@code system.functions}, through the same wiring the service uses
 * ({@link ConfiguredDatasourceCatalogs}), and names are checked against it as on the other engines. One chDB per test JVM.
 */
class ChdbSchemaCatalogIT {
    private static SchemaCatalog catalog;
    private static ValidationTarget target;

    @BeforeAll
    static void createDatabase() throws Exception {
        Path dir = ChdbLibrary.jvmDatabaseDir();
        try (ChdbSession writer = Chdb.open(dir).session(Map.of())) {
            writer.execute("CREATE DATABASE IF NOT EXISTS catalog_shop");
            writer.execute("CREATE DATABASE IF NOT EXISTS catalog_hidden");
            writer.execute("CREATE OR REPLACE TABLE catalog_shop.customers (id UInt32, name String, country LowCardinality(String))"
                    + " ENGINE = MergeTree ORDER BY id");
            writer.execute("CREATE OR REPLACE TABLE catalog_shop.orders (id UInt32, customer_id UInt32, status Nullable(String),"
                    + " amount Decimal(10, 2), order_date Date, note String) ENGINE = MergeTree ORDER BY id");
            writer.execute("CREATE OR REPLACE TABLE catalog_hidden.secrets (id UInt32, token String) ENGINE = Memory");
            writer.execute("INSERT INTO catalog_shop.customers VALUES (1, 'Ada', 'FR'), (2, 'Bob', 'DE'), (3, 'Cy', 'US')");
            writer.execute("INSERT INTO catalog_shop.orders SELECT number, 1 + number % 3, ['shipped', 'pending', 'cancelled'][1 + number % 3],"
                    + " number * 10.5, toDate('2024-01-01') + number, concat('note ', toString(number)) FROM numbers(200)");
        }
        DatasourceConfig ds = DatasourceConfig.of("shop", Dialect.CLICKHOUSE, "jdbc:chdb:" + dir + "?database=catalog_shop", null, null);
        long t0 = System.nanoTime();
        target = ConfiguredDatasourceCatalogs.fromDatasources(new Datasources(List.of(ds)), CatalogLoadOptions.DEFAULTS,
                Duration.ofHours(1), Clock.systemUTC()).find("shop").orElseThrow();
        catalog = target.catalog();
        System.out.printf("chDB catalog: %d tables, %d functions, loaded in %d ms%n", catalog.tables().size(), catalog.functions().size(),
                (System.nanoTime() - t0) / 1_000_000);
    }

    @Test
    void shouldLoadTheDatabasesTablesAndColumnsWithTheirTypes() {
        assertEquals(Dialect.CLICKHOUSE, target.dialect());
        assertEquals(Set.of("catalog_shop.customers", "catalog_shop.orders"),
                Set.copyOf(catalog.tables().stream().map(TableSchema::qualifiedName).toList()), "the URL's database alone");
        TableSchema orders = catalog.resolve(ObjectName.of("orders")).orElseThrow();
        assertEquals(List.of("id", "customer_id", "status", "amount", "order_date", "note"), List.copyOf(orders.columns().keySet()));
        assertEquals("Nullable(String)", orders.columns().get("status"));
        assertEquals("Decimal(10, 2)", orders.columns().get("amount"));
        assertEquals("catalog_shop", catalog.defaultSchema());
    }

    @Test
    void shouldLoadTheEnginesFunctions() {
        assertTrue(catalog.functions().size() > 1_000, () -> "functions: " + catalog.functions().size());
        assertTrue(catalog.functions().containsAll(Set.of("count", "countif", "tostartofmonth", "laginframe", "groupuniqarray", "sumornull")),
                "ClickHouse's own names, lower case as the validator reads a query's; aggregates under a combinator");
        assertTrue(!catalog.functions().contains("lowerif"), "a combinator only after an aggregate");
    }

    @Test
    void shouldIndexOnlyLowCardinalityTextColumns() {
        TableSchema orders = catalog.resolve(ObjectName.of("orders")).orElseThrow();
        assertEquals(List.of("cancelled", "pending", "shipped"), catalog.values(orders, "status").orElseThrow(), "Nullable(String)");
        assertTrue(catalog.values(orders, "note").isEmpty(), "200 distinct notes exceed the index limit");
        TableSchema customers = catalog.resolve(ObjectName.of("customers")).orElseThrow();
        assertEquals(List.of("DE", "FR", "US"), catalog.values(customers, "country").orElseThrow(), "LowCardinality(String)");
    }

    @Test
    void shouldReportAMissingColumnWithCandidates() {
        Issue issue = single(StaticValidator.validate("SELECT o.id, o.ammount FROM orders o", target, null));
        assertEquals(ErrorCategory.COLUMN_NOT_FOUND, issue.category());
        assertEquals("o.ammount", issue.identifier());
        assertEquals(List.of("amount"), issue.candidates());
    }

    @Test
    void shouldReportAMissingTableAndOneOfAnotherDatabase() {
        Issue missing = single(StaticValidator.validate("SELECT * FROM customer", target, null));
        assertEquals(ErrorCategory.TABLE_NOT_FOUND, missing.category());
        assertEquals(List.of("catalog_shop.customers"), missing.candidates());
        Issue other = single(StaticValidator.validate("SELECT token FROM catalog_hidden.secrets", target, null));
        assertEquals(ErrorCategory.TABLE_NOT_FOUND, other.category());
    }

    @Test
    void shouldReportAWrongLiteralValueWithCandidates() {
        Issue issue = single(StaticValidator.validate("SELECT count() FROM orders WHERE status = 'shiped'", target, null));
        assertEquals(ErrorCategory.CONSTRAINT_VIOLATION, issue.category());
        assertEquals(List.of("shipped"), issue.candidates());
    }

    @Test
    void shouldPassClickHouseSqlOverTheLoadedNames() {
        for (String sql : List.of(
                "SELECT c.name, sum(o.amount) AS total FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY c.name ORDER BY total DESC LIMIT 5",
                "SELECT toStartOfMonth(order_date) AS month, countIf(status = 'shipped') FROM orders GROUP BY month ORDER BY month",
                "SELECT id, lagInFrame(amount) OVER (PARTITION BY customer_id ORDER BY order_date) FROM catalog_shop.orders")) {
            assertEquals(List.of(), StaticValidator.validate(sql, target, null), sql);
        }
    }

    private static Issue single(List<Issue> issues) {
        assertEquals(1, issues.stream().filter(Issue::error).count(), issues.toString());
        return issues.stream().filter(Issue::error).findFirst().orElseThrow();
    }
}
