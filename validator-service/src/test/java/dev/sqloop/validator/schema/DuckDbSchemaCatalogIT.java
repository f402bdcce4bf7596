package dev.sqloop.validator.schema;

import dev.sqloop.testkit.TestDirs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.Issue;
import dev.sqloop.common.message.NlConstraints;
import dev.sqloop.parse.SqlCorpus;
import dev.sqloop.validator.StaticValidator;
import dev.sqloop.validator.ValidationTarget;
import dev.sqloop.parse.ObjectName;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Loads a real catalog from a real DuckDB file and validates queries against it. */
class DuckDbSchemaCatalogIT {
    private static Path dir;
    private static String url;
    private static SchemaCatalog catalog;
    private static ValidationTarget target;

    @BeforeAll
    static void createDatabase() throws Exception {
        dir = TestDirs.create("sqloop-validator-it");
        url = "jdbc:duckdb:" + dir.resolve("shop.duckdb");
        try (Connection c = DriverManager.getConnection(url); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE customers (id INTEGER, name VARCHAR, country VARCHAR)");
            st.execute("CREATE TABLE orders (id INTEGER, customer_id INTEGER, status VARCHAR, amount DOUBLE, order_date DATE, note VARCHAR,"
                    + " tags VARCHAR[])");
            st.execute("CREATE SCHEMA hidden");
            st.execute("CREATE TABLE hidden.secrets (id INTEGER, token VARCHAR)");
            st.execute("INSERT INTO customers VALUES (1, 'Ada', 'FR'), (2, 'Bob', 'DE'), (3, 'Cy', 'US')");
            st.execute("INSERT INTO orders SELECT i, 1 + i % 3, CASE i % 3 WHEN 0 THEN 'shipped' WHEN 1 THEN 'pending' ELSE 'cancelled' END,"
                    + " i * 10.5, DATE '2024-01-01' + CAST(i AS INTEGER), 'note ' || i, ['t' || (i % 4)] FROM range(200) t(i)");
        }
        catalog = load(new CatalogLoadOptions(List.of(), Set.of("main"), Set.of(), 50, 200));
        target = new ValidationTarget(Dialect.DUCKDB, catalog);
    }

    private static SchemaCatalog load(CatalogLoadOptions options) throws SQLException {
        Properties ro = new Properties();
        ro.setProperty("duckdb.read_only", "true");
        try (Connection c = DriverManager.getConnection(url, ro)) {
            return new JdbcSchemaCatalogLoader(Dialect.DUCKDB, options).load(c);
        }
    }

    @AfterAll
    static void deleteDatabase() throws Exception {
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /**
     * Hive's way to the values (DistinctValues.readSmallTable: the rows as they are, no DISTINCT job), on DuckDB's
     * data: every distinct value of a table that fits, none of one that does not (a part would pass for the whole).
     */
    @Test
    void shouldReadValuesFromTheRowsOnlyWhenTheWholeTableFits() throws SQLException {
        try (Connection c = DriverManager.getConnection(url)) {
            var values = dev.sqloop.common.datasource.DistinctValues.readSmallTable(c, "orders", List.of("status", "note"), 51, 200,
                    Dialect.DUCKDB::quote, 0);
            assertEquals(Set.of("shipped", "pending", "cancelled"), Set.copyOf(values.get("status")));
            assertEquals(51, values.get("note").size(), "capped at the limit: the caller sees more than its maximum and drops it");
            assertEquals(java.util.Map.of(), dev.sqloop.common.datasource.DistinctValues.readSmallTable(c, "orders", List.of("status"), 51,
                    199, Dialect.DUCKDB::quote, 0), "200 rows are more than 199: none");
            assertEquals(java.util.Map.of(), dev.sqloop.common.datasource.DistinctValues.readSmallTable(c, "nowhere", List.of("status"), 51,
                    199, Dialect.DUCKDB::quote, 0), "a refused query gives none, it does not throw");
        }
    }

    @Test
    void shouldLoadTablesColumnsAndTypesFromInformationSchema() {
        TableSchema orders = catalog.resolve(ObjectName.of("orders")).orElseThrow();
        assertEquals("main.orders", orders.qualifiedName());
        assertEquals(List.of("id", "customer_id", "status", "amount", "order_date", "note", "tags"),
                List.copyOf(orders.columns().keySet()));
        assertEquals("DOUBLE", orders.columns().get("amount"));
    }

    @Test
    void shouldLeaveOutTablesOutsideTheAllowedSchemas() {
        assertTrue(catalog.resolve(ObjectName.of("hidden", "secrets")).isEmpty());
    }

    @Test
    void shouldLoadTheEnginesFunctions() {
        assertTrue(catalog.functions().containsAll(Set.of("count", "sum", "date_trunc", "strftime", "list_transform")),
                () -> "functions: " + catalog.functions().size());
    }

    @Test
    void shouldIndexOnlyLowCardinalityTextColumns() {
        TableSchema orders = catalog.resolve(ObjectName.of("orders")).orElseThrow();
        assertEquals(Set.of("shipped", "pending", "cancelled"), Set.copyOf(catalog.values(orders, "status").orElseThrow()));
        assertTrue(catalog.values(orders, "note").isEmpty(), "200 distinct notes exceed the index limit");
    }

    @Test
    void shouldReportAMissingColumnWithCandidates() {
        Issue issue = single(StaticValidator.validate("SELECT o.id, o.ammount FROM orders o", target, null));
        assertEquals(ErrorCategory.COLUMN_NOT_FOUND, issue.category());
        assertEquals("o.ammount", issue.identifier());
        assertEquals(List.of("amount"), issue.candidates());
    }

    @Test
    void shouldReportAMissingTableWithCandidates() {
        Issue issue = single(StaticValidator.validate("SELECT * FROM customer", target, null));
        assertEquals(ErrorCategory.TABLE_NOT_FOUND, issue.category());
        assertEquals(List.of("main.customers"), issue.candidates());
    }

    @Test
    void shouldReportATableOutsideTheAllowList() {
        Issue issue = single(StaticValidator.validate("SELECT token FROM hidden.secrets", target, null));
        assertEquals(ErrorCategory.TABLE_NOT_FOUND, issue.category());
        assertEquals("hidden.secrets", issue.identifier());
    }

    @Test
    void shouldReportAWrongLiteralValueWithCandidates() {
        Issue issue = single(StaticValidator.validate("SELECT count(*) FROM orders WHERE status = 'shiped'", target, null));
        assertEquals(ErrorCategory.CONSTRAINT_VIOLATION, issue.category());
        assertEquals("shiped", issue.identifier());
        assertEquals(List.of("shipped"), issue.candidates());
    }

    @Test
    void shouldReportAFunctionDuckDbDoesNotHave() {
        Issue issue = single(StaticValidator.validate("SELECT format_datetime(order_date, 'yyyy') FROM orders", target, null));
        assertEquals(ErrorCategory.UNSUPPORTED_FUNCTION, issue.category());
        assertEquals("format_datetime", issue.identifier());
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "SELECT c.name, sum(o.amount) AS total FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY c.name ORDER BY total DESC LIMIT 5",
        "SELECT status, count(*) FROM orders WHERE status IN ('shipped', 'pending') GROUP BY ALL",
        "SELECT id, amount FROM orders QUALIFY row_number() OVER (PARTITION BY customer_id ORDER BY amount DESC) = 1",
        "SELECT strftime(order_date, '%Y-%m') AS month, avg(amount) FROM orders GROUP BY 1 ORDER BY 1",
        "WITH r AS (SELECT customer_id, count(*) AS n FROM orders GROUP BY customer_id) SELECT c.*, r.n FROM customers c LEFT JOIN r ON r.customer_id = c.id",
        "SELECT coalesce(note, '-') AS n, date_trunc('month', order_date) AS m FROM orders WHERE amount > 100",
        "SELECT list_sum([1, 2, 3]) AS s, list_contains([1, 2], 1) AS c",
        "SELECT * FROM range(5) t(i) WHERE i > 2",
        "SELECT name FROM customers WHERE country = 'FR' AND name LIKE 'A%'",
    })
    void shouldPassCorrectQueriesThatDuckDbItselfAccepts(String sql) throws SQLException {
        assertEquals(List.of(), StaticValidator.validate(sql, target, NlConstraints.NONE));
        Properties ro = new Properties();
        ro.setProperty("duckdb.read_only", "true");
        try (Connection c = DriverManager.getConnection(url, ro)) {
            c.prepareStatement(sql).getMetaData(); // DuckDB binds eagerly: proves the query is really valid
        }
    }

    static java.util.stream.Stream<String> duckDbCorpus() {
        return SqlCorpus.load(SqlCorpus.LEGITIMATE).stream().filter(c -> c.dialect() == Dialect.DUCKDB).map(SqlCorpus.Case::sql);
    }

    /**
     * The value index's column budget goes to the connection's own schema first: a warehouse's other schemas (read
     * whole when no allow-list scopes the datasource, as one Trino datasource per schema of a catalog is) come
     * before it in name order and would otherwise spend the budget on tables its questions never name.
     */
    @Test
    void shouldIndexTheValuesOfTheConnectionsOwnSchemaBeforeOthers() throws Exception {
        SchemaCatalog twoSchemas = twoSchemas(new CatalogLoadOptions(List.of(), Set.of(), Set.of(), 50, 2));
        TableSchema orders = twoSchemas.resolve(ObjectName.of("orders")).orElseThrow();
        TableSchema old = twoSchemas.resolve(ObjectName.of("archive", "old_orders")).orElseThrow();
        assertEquals(List.of("pending", "shipped"), twoSchemas.values(orders, "status").orElseThrow().stream().sorted().toList(),
                "the default schema's column is indexed although 'archive' sorts first");
        assertEquals(List.of("north", "south"), twoSchemas.values(old, "region").orElseThrow().stream().sorted().toList(),
                "what the budget leaves goes to the other schemas, in order");
        assertTrue(twoSchemas.values(old, "channel").isEmpty(), "two columns of budget: no third");
    }

    /**
     * DuckDB looks a bare table name up in {@code main} only ("Table with name old_orders does not exist! Did you mean
     * archive.old_orders?"): the validator says the same before the engine has to, with the qualified name to use.
     */
    @Test
    void shouldResolveABareTableNameInTheDefaultSchemaOnly() throws Exception {
        ValidationTarget twoSchemas = new ValidationTarget(Dialect.DUCKDB, twoSchemas(CatalogLoadOptions.DEFAULTS));
        Issue issue = single(StaticValidator.validate("SELECT region FROM old_orders", twoSchemas, NlConstraints.NONE));
        assertEquals(ErrorCategory.TABLE_NOT_FOUND, issue.category());
        assertEquals(List.of("archive.old_orders"), issue.candidates());
        assertEquals(List.of(), StaticValidator.validate("SELECT region FROM archive.old_orders", twoSchemas, NlConstraints.NONE));
        assertEquals(List.of(), StaticValidator.validate("SELECT status FROM orders", twoSchemas, NlConstraints.NONE));
    }

    /** A DuckDB file with a second schema that sorts before {@code main}, loaded with {@code options}. */
    private static SchemaCatalog twoSchemas(CatalogLoadOptions options) throws SQLException {
        Path file = dir.resolve("two-schemas.duckdb");
        synchronized (DuckDbSchemaCatalogIT.class) {
            if (!Files.exists(file)) {
                try (Connection c = DriverManager.getConnection("jdbc:duckdb:" + file); Statement st = c.createStatement()) {
                    st.execute("CREATE SCHEMA archive");
                    st.execute("CREATE TABLE archive.old_orders (region VARCHAR, channel VARCHAR, currency VARCHAR)");
                    st.execute("INSERT INTO archive.old_orders VALUES ('north', 'web', 'EUR'), ('south', 'shop', 'USD')");
                    st.execute("CREATE TABLE orders (id INTEGER, status VARCHAR)");
                    st.execute("INSERT INTO orders VALUES (1, 'shipped'), (2, 'pending')");
                }
            }
        }
        Properties ro = new Properties();
        ro.setProperty("duckdb.read_only", "true");
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:" + file, ro)) {
            return new JdbcSchemaCatalogLoader(Dialect.DUCKDB, options).load(c);
        }
    }

    /** Every DuckDB query of the shipped corpus binds on the real engine and passes validation (no value index). */
    @ParameterizedTest
    @MethodSource("duckDbCorpus")
    void shouldPassEveryLegitimateCorpusQueryThatDuckDbBinds(String sql) throws SQLException {
        ValidationTarget noValueIndex = new ValidationTarget(Dialect.DUCKDB,
                load(new CatalogLoadOptions(List.of(), Set.of("main"), Set.of(), 0, 0)));
        Properties ro = new Properties();
        ro.setProperty("duckdb.read_only", "true");
        try (Connection c = DriverManager.getConnection(url, ro)) {
            c.prepareStatement(sql).getMetaData();
        }
        assertEquals(List.of(), StaticValidator.validate(sql, noValueIndex, NlConstraints.NONE));
    }

    /**
     * A table created after the first load reaches the catalog only after its TTL, by a reload that runs beside the
     * callers: until it has run they get the catalog in use (a reload of a large warehouse must not stall validation).
     */
    @Test
    void shouldReloadTheCatalogAfterItsTtlWhileTheOneInUseServes() throws SQLException {
        AtomicInteger loads = new AtomicInteger();
        dev.sqloop.testkit.ManualClock clock = new dev.sqloop.testkit.ManualClock("2026-11-22T10:00:00Z");
        List<Runnable> reloads = new java.util.ArrayList<>();
        CachedSchemaCatalog cached = new CachedSchemaCatalog(() -> {
            loads.incrementAndGet();
            return load(CatalogLoadOptions.DEFAULTS);
        }, Duration.ofMinutes(5), clock, reloads::add);
        SchemaCatalog first = cached.get();
        ObjectName added = ObjectName.of("later", "added");
        assertTrue(first.resolve(added).isEmpty());
        try (Connection c = DriverManager.getConnection(url); Statement st = c.createStatement()) {
            st.execute("CREATE SCHEMA later");
            st.execute("CREATE TABLE later.added (id INTEGER)");
        }
        try {
            clock.advance(Duration.ofSeconds(60));
            assertTrue(cached.get() == first && reloads.isEmpty() && loads.get() == 1, "within its TTL: no reload");
            clock.advance(Duration.ofSeconds(300));
            assertTrue(cached.get() == first && cached.get() == first, "the catalog in use serves while it is reloaded");
            assertEquals(1, reloads.size(), "one reload at a time");
            reloads.removeFirst().run();
            assertEquals(2, loads.get());
            assertTrue(cached.get().resolve(added).isPresent(), "the reload's catalog has the new table");
            assertTrue(reloads.isEmpty());
        } finally {
            try (Connection c = DriverManager.getConnection(url); Statement st = c.createStatement()) {
                st.execute("DROP SCHEMA later CASCADE");
            }
        }
    }

    private static Issue single(List<Issue> issues) {
        assertEquals(1, issues.size(), issues::toString);
        return issues.getFirst();
    }
}
