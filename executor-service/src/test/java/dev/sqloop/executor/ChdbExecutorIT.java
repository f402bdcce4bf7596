package dev.sqloop.executor;

import static dev.sqloop.executor.ExecutorAssertions.fail;
import static dev.sqloop.executor.ExecutorAssertions.failOnEngine;
import static dev.sqloop.executor.ExecutorAssertions.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.chdb.Chdb;
import dev.sqloop.chdb.ChdbSession;
import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.CostBudget;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.datasource.Safeguards;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.Execution;
import dev.sqloop.testkit.Ports;
import dev.sqloop.testkit.engines.ChdbLibrary;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * ClickHouse in-process (chDB, {@code jdbc:chdb:DIR?database=…}) behind the executor: a small table, queries, each cap
 * tripping in the engine with its category, {@code readonly=1} refusing writes at the engine, and the engine's own
 * messages classified. One chDB per test JVM ({@link ChdbLibrary#jvmDatabaseDir()}).
 */
class ChdbExecutorIT {
    private static Chdb engine;
    private static DatasourceConfig ds;
    private static ReadOnlyExecutor executor;

    @BeforeAll
    static void createWarehouse() throws Exception {
        Path dir = ChdbLibrary.jvmDatabaseDir();
        engine = Chdb.open(dir);
        System.out.printf("chDB %s: library load %d ms, engine boot %d ms%n", engine.version(), engine.loadMillis(), engine.bootMillis());
        try (ChdbSession writer = engine.session(Map.of())) {
            writer.execute("CREATE DATABASE IF NOT EXISTS shop");
            writer.execute("CREATE OR REPLACE TABLE shop.orders (id UInt32, customer String, amount Decimal(10, 2), placed Date)"
                    + " ENGINE = MergeTree ORDER BY id");
            writer.execute("INSERT INTO shop.orders SELECT number, concat('c', toString(number % 7)), (number % 100) / 4,"
                    + " toDate('2024-01-01') + number % 365 FROM numbers(10000)");
        }
        ds = DatasourceConfig.of("shop", Dialect.CLICKHOUSE, "jdbc:chdb:" + dir + "?database=shop", null, null)
                .withLimits(100, Duration.ofSeconds(3)).withPool(2, Duration.ofSeconds(5))
                .withSafeguards(new Safeguards("256MB", 1, null, "checked"));
        executor = new ReadOnlyExecutor();
    }

    @AfterAll
    static void close() {
        if (executor != null) executor.close();
    }

    @Test
    void shouldAnswerAQueryWithColumnsTypesAndPreview() {
        String sql = "SELECT customer, countIf(amount > 10) AS big, toStartOfMonth(min(placed)) AS first_month"
                + " FROM orders GROUP BY customer ORDER BY customer";
        Execution e = ok(executor, ds, sql);
        assertEquals(List.of("customer", "big", "first_month"), e.columns());
        assertEquals(List.of("String", "UInt64", "Date"), e.types());
        assertEquals(7, e.rowCount());
        assertEquals("c0", e.preview().getFirst().get(0));
        assertEquals("2024-01-01", e.preview().getFirst().get(2));
        List<Long> micros = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            long t = System.nanoTime();
            ok(executor, ds, sql);
            micros.add((System.nanoTime() - t) / 1000);
        }
        micros.sort(null);
        System.out.printf("chDB query through the executor (7 groups over 10,000 rows): p50 %.2f ms, p90 %.2f ms%n",
                micros.get(15) / 1000.0, micros.get(27) / 1000.0);
    }

    @Test
    void shouldOpenEverySessionReadOnlyWithTheDatasourcesCaps() throws Exception {
        ChdbSessions.Rows r = assertInstanceOf(ChdbSessions.Rows.class, executor.onChdb(ds, "SELECT getSetting('readonly'),"
                + " getSetting('max_execution_time'), getSetting('max_memory_usage'), getSetting('max_result_rows'), currentDatabase()"));
        assertEquals("[1, 3, 256000000, 100, shop]", r.result().rows().getFirst().toString());
    }

    /**
     * ClickHouse SQL JSqlParser cannot read (or reads into a wrong tree) is parsed by ClickHouse's own EXPLAIN AST, as
     * the validator parses it, and runs; the same forms reading outside the warehouse are still refused before the engine.
     */
    @Test
    void shouldRunClickHouseSqlOnlyTheEnginesParserReads() {
        for (String sql : List.of("WITH 10 AS threshold SELECT count() AS n FROM orders WHERE amount > threshold",
                "SELECT id, x FROM orders ARRAY JOIN [1, 2] AS x ORDER BY id, x LIMIT 4",
                "SELECT arrayMap(v -> v * 2, [id, 1]) AS doubled FROM orders ORDER BY id LIMIT 2",
                "SELECT customer, sum(amount) AS total FROM orders GROUP BY customer WITH TOTALS ORDER BY customer")) {
            assertTrue(ok(executor, ds, sql).rowCount() > 0, sql);
        }
        for (String sql : List.of("SELECT x FROM system.users ARRAY JOIN [1] AS x",
                "SELECT id FROM orders ARRAY JOIN [1] AS x WHERE id IN system.one",
                "WITH 1 AS one SELECT count() FROM orders WHERE id IN (SELECT dummy FROM system.one)")) {
            QueryRunner.Failed f = assertInstanceOf(QueryRunner.Failed.class, executor.run(ds, sql), sql);
            assertTrue(!f.sent(), sql + " reached the engine: " + f.error());
            assertEquals(ErrorCategory.READ_ONLY_VIOLATION, f.error().category(), sql + ": " + f.error());
        }
    }

    /**
     * The 60 ClickHouse idioms the validator passes (ClickHouseIdiomsIT) through the executor's own checks and onto chDB:
     * every one must run, its false refusals printed.
     */
    @Test
    void shouldRunEveryClickHouseIdiom() throws Exception {
        try (ChdbSession writer = engine.session(Map.of())) {
            for (String statement : dev.sqloop.parse.SqlCorpus.clickHouseIdiomsSchema()) writer.execute(statement);
        }
        DatasourceConfig idioms = DatasourceConfig.of("idioms", Dialect.CLICKHOUSE, "jdbc:chdb:" + ChdbLibrary.jvmDatabaseDir()
                + "?database=idioms", null, null).withLimits(100, Duration.ofSeconds(10));
        Map<String, String> refused = new java.util.LinkedHashMap<>();
        List<dev.sqloop.parse.SqlCorpus.Idiom> all = dev.sqloop.parse.SqlCorpus.clickHouseIdioms();
        for (dev.sqloop.parse.SqlCorpus.Idiom i : all) {
            if (executor.run(idioms, i.sql()) instanceof QueryRunner.Failed f) refused.put(i.name(), f.error().category() + ": " + f.error().message());
        }
        refused.forEach((name, why) -> System.out.println("clickhouse idiom refused by the executor: " + name + " -> " + why));
        System.out.printf("clickhouse idioms through the executor on chDB: %d/%d run, %d refused%n", all.size() - refused.size(),
                all.size(), refused.size());
        assertEquals(Map.of(), refused);
    }

    @Test
    void shouldRefuseWritesAndSettingChangesInTheEngine() throws Exception {
        for (String sql : List.of("INSERT INTO orders (id) VALUES (1)", "CREATE TABLE t (x Int32) ENGINE = Memory",
                "SET max_execution_time = 0", "SELECT count() FROM orders SETTINGS max_execution_time = 0", "DROP TABLE orders")) {
            ChdbSessions.Failure f = assertInstanceOf(ChdbSessions.Failure.class, executor.onChdb(ds, sql), sql);
            EngineError e = ClickHouseErrors.classify(f.error().code(), f.error().name(), f.error().getMessage());
            assertEquals(ErrorCategory.READ_ONLY_VIOLATION, e.category(), sql + ": " + e.message());
        }
        assertEquals(10000L, assertInstanceOf(ChdbSessions.Rows.class, executor.onChdb(ds, "SELECT count() FROM orders"))
                .result().rows().getFirst().getFirst(), "nothing was written");
        // sqloop's own checks refuse the same before the engine
        for (String sql : List.of("SELECT 1 SETTINGS readonly = 0", "SELECT * FROM url('http://127.0.0.1:1/x', CSV)",
                "SELECT * FROM file('/etc/hostname', 'LineAsString')", "SELECT name FROM system.tables",
                "SELECT dictGet('d', 'x', 1)", "SELECT 1 FORMAT CSV", "SELECT 1 INTO OUTFILE '/tmp/x'")) {
            QueryRunner.Failed f = assertInstanceOf(QueryRunner.Failed.class, executor.run(ds, sql), sql);
            assertTrue(!f.sent(), sql + " reached the engine: " + f.error());
        }
    }

    @Test
    void shouldStopARunawayQueryAtTheTimeLimit() {
        long t = System.nanoTime();
        EngineError e = fail(executor, ds, "SELECT sum(sipHash64(rand())) FROM numbers(100000000000000)");
        long ms = (System.nanoTime() - t) / 1_000_000;
        assertEquals(ErrorCategory.TIMEOUT, e.category(), e.message());
        assertTrue(e.message().contains("TIMEOUT_EXCEEDED"), e.message());
        assertTrue(ms < 3000 + ChdbSessions.GRACE.toMillis(), "stopped by the engine at its limit, took " + ms + " ms");
        System.out.printf("chDB runaway query stopped after %d ms (limit 3 s)%n", ms);
    }

    @Test
    void shouldStopAQueryAtTheMemoryLimit() {
        EngineError e = fail(executor, ds, "SELECT length(groupArray(range(10000))) FROM numbers(100000)");
        assertEquals(ErrorCategory.TIMEOUT, e.category(), e.message());
        assertTrue(e.message().contains("MEMORY_LIMIT_EXCEEDED"), e.message());
    }

    @Test
    void shouldStopAQueryOverTheScanBudgetWhileItReads() {
        DatasourceConfig budget = new DatasourceConfig("shop_budget", Dialect.CLICKHOUSE, ds.jdbcUrl(), null, null,
                java.util.Set.of(), java.util.Set.of(), java.util.Set.of(), 100, Duration.ofSeconds(3), Duration.ofSeconds(5), null,
                1, Map.of(), ds.safeguards().withCost(new CostBudget(1000L, null, null)));
        EngineError e = fail(executor, budget, "SELECT sum(amount) FROM orders");
        assertEquals(ErrorCategory.TOO_EXPENSIVE, e.category(), e.message());
        assertTrue(e.message().contains("TOO_MANY_ROWS"), e.message());
        assertEquals(1, ok(executor, budget, "SELECT count() FROM orders").rowCount(), "count() reads no rows: within budget");
    }

    @Test
    void shouldBoundTheResultInTheEngineToo() throws Exception {
        ChdbSessions.Failure f = assertInstanceOf(ChdbSessions.Failure.class, executor.onChdb(ds, "SELECT id FROM orders"));
        EngineError e = ClickHouseErrors.classify(f.error().code(), f.error().name(), f.error().getMessage());
        assertEquals(ErrorCategory.TOO_EXPENSIVE, e.category(), e.message());
        assertEquals(100, ok(executor, ds, "SELECT id FROM orders ORDER BY id").rowCount(), "the LIMIT wrapper keeps to the row limit");
    }

    /** The engine's own messages, as the repair loop gets them (printed for the README and ClickHouseErrorsTest). */
    @Test
    void shouldClassifyTheEnginesErrors() {
        Map<String, ErrorCategory> cases = new java.util.LinkedHashMap<>();
        cases.put("SELECT t2.rn FROM (SELECT 1 AS x) t1", ErrorCategory.COLUMN_NOT_FOUND);
        cases.put("SELECT amout FROM orders", ErrorCategory.COLUMN_NOT_FOUND);
        cases.put("SELECT * FROM order_lines", ErrorCategory.TABLE_NOT_FOUND);
        cases.put("SELECT toStartOfMonthh(placed) FROM orders", ErrorCategory.UNSUPPORTED_FUNCTION);
        cases.put("SELEC 1", ErrorCategory.SYNTAX_ERROR);
        cases.put("SELECT customer, count() FROM orders GROUP BY id", ErrorCategory.AGGREGATION_ERROR);
        cases.put("SELECT 1 + 'a'", ErrorCategory.TYPE_MISMATCH);
        cases.put("SELECT CAST('abc' AS UInt8)", ErrorCategory.TYPE_MISMATCH);
        cases.put("SELECT o.id FROM orders o FULL OUTER JOIN orders p ON o.id < p.id", ErrorCategory.JOIN_ERROR);
        for (Map.Entry<String, ErrorCategory> c : cases.entrySet()) {
            EngineError e = failOnEngine(executor, ds, c.getKey());
            System.out.printf("ClickHouse error %s -> %s: %s%n", c.getKey(), e.category().wireName(), e.message().replace('\n', ' '));
            assertEquals(c.getValue(), e.category(), c.getKey() + ": " + e.message());
        }
    }

    @Test
    void shouldReportAnUnreachableServerAsInfrastructure() throws Exception {
        int port = Ports.free();
        DatasourceConfig server = DatasourceConfig.of("ch_down", Dialect.CLICKHOUSE, "jdbc:clickhouse://127.0.0.1:" + port + "/default",
                "default", "").withPool(1, Duration.ofMillis(500));
        ExecutorAssertions.assertInfrastructureWithin(executor, server, Duration.ofSeconds(30));
    }
}
