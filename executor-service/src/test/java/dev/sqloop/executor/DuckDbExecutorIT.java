package dev.sqloop.executor;

import static dev.sqloop.executor.ExecutorAssertions.assertInfrastructureWithin;
import static dev.sqloop.executor.ExecutorAssertions.assertRefusedBeforeTheEngine;
import static dev.sqloop.executor.ExecutorAssertions.fail;
import static dev.sqloop.executor.ExecutorAssertions.ok;
import static dev.sqloop.executor.ExecutorAssertions.rowCounts;
import static dev.sqloop.executor.ExecutorAssertions.scalar;
import static dev.sqloop.executor.ExecutorAssertions.writesOn;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.datasource.DuckDbReadOnly;
import dev.sqloop.common.datasource.Safeguards;
import dev.sqloop.common.datasource.ValidationMode;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.Execution;
import dev.sqloop.common.runtime.InfrastructureException;
import dev.sqloop.testkit.engines.DemoWarehouse;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The executor on a real DuckDB file (the TPC-H tiny demo warehouse), opened read-only by the executor's DuckDB processes
 * (the default isolation); {@link DuckDbIsolationIT} covers what the processes themselves guarantee.
 */
class DuckDbExecutorIT {
    @TempDir
    static Path dir;
    private static Path file;
    private static DatasourceConfig ds;
    private static ReadOnlyExecutor executor;

    @BeforeAll
    static void createWarehouse() throws Exception {
        file = DemoWarehouse.create(dir.resolve("demo.duckdb"));
        ds = DatasourceConfig.of("demo", Dialect.DUCKDB, "jdbc:duckdb:" + file, null, null)
                .withLimits(100, Duration.ofSeconds(2)).withPool(1, Duration.ofSeconds(2));
        executor = new ReadOnlyExecutor();
    }

    @AfterAll
    static void close() {
        executor.close();
    }

    @Test
    void shouldReturnShapeRowCountAndABoundedPreview() {
        Execution e = ok(executor, ds, "SELECT o_orderkey, o_orderdate, o_totalprice, o_comment FROM orders ORDER BY o_orderkey;");
        assertEquals(List.of("o_orderkey", "o_orderdate", "o_totalprice", "o_comment"), e.columns());
        assertEquals(4, e.types().size());
        assertEquals(100, e.rowCount(), "the datasource's row limit");
        assertEquals(ReadOnlyExecutor.PREVIEW_ROWS, e.preview().size());
        List<Object> first = e.preview().get(0);
        assertEquals(1L, first.get(0));
        assertInstanceOf(String.class, first.get(1), "dates travel as ISO text");
        assertTrue(first.get(1).toString().matches("\\d{4}-\\d{2}-\\d{2}"), first.get(1).toString());
        assertInstanceOf(java.math.BigDecimal.class, first.get(2));
    }

    @Test
    void shouldRunATrailingCommentAndCte() {
        Execution e = ok(executor, ds, "WITH s AS (SELECT o_orderstatus, count(*) AS n FROM orders GROUP BY 1) SELECT * FROM s ORDER BY n DESC -- biggest first");
        assertEquals(3, e.rowCount());
    }

    /** Each DuckDB error class of ../shared/facts/engine-errors.md, produced by the real engine. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "SELECT foo FROM orders|COLUMN_NOT_FOUND",
            "SELECT * FROM nosuch|TABLE_NOT_FOUND",
            "SELECT * FROM nosuch.orders|TABLE_NOT_FOUND",
            "SELECT * FROM order|SYNTAX_ERROR",
            "SELECT o_orderstatus, count(*) FROM orders|AGGREGATION_ERROR",
            "SELECT * FROM orders WHERE o_orderdate = 5|TYPE_MISMATCH",
            "SELECT o_orderstatus + 1 FROM orders|TYPE_MISMATCH",
            "SELECT format_datetime(o_orderdate, 'yyyy') FROM orders|UNSUPPORTED_FUNCTION",
            "SELECT date_trunc('month', 5)|TYPE_MISMATCH",
            "SELECT * FROM orders WHERE|SYNTAX_ERROR",
            "SELECT o_orderkey FROM orders a JOIN orders b ON a.o_orderkey = b.o_orderkey|JOIN_ERROR",
            "SELECT 1 // 0|UNKNOWN",
            "SELECT CAST('abc' AS integer)|TYPE_MISMATCH",
            "SELEC * FROM orders|SYNTAX_ERROR"})
    void shouldClassifyTheEnginesOwnErrors(String sql, ErrorCategory expected) {
        EngineError e = fail(executor, ds, sql);
        assertEquals(expected, e.category(), e.message());
        assertFalse(e.infrastructure());
    }

    @Test
    void shouldKeepTheEnginesSuggestions() {
        EngineError col = fail(executor, ds, "SELECT o_orderstat FROM orders");
        assertEquals("o_orderstat", col.identifier());
        assertTrue(col.candidates().contains("o_orderstatus"), col.candidates().toString());
        EngineError table = fail(executor, ds, "SELECT * FROM order_s");
        assertEquals(ErrorCategory.TABLE_NOT_FOUND, table.category());
        assertTrue(table.candidates().contains("orders"), table.message());
        EngineError fn = ExecutorAssertions.failOnEngine(executor, ds, "SELECT strftim(o_orderdate, '%Y') FROM orders");
        assertEquals(ErrorCategory.UNSUPPORTED_FUNCTION, fn.category());
        assertTrue(fn.candidates().contains("strftime"), fn.message());
        EngineError unlisted = fail(executor, ds, "SELECT strftim(o_orderdate, '%Y') FROM orders");
        assertEquals(ErrorCategory.UNSUPPORTED_FUNCTION, unlisted.category(), "refused before the engine: not on the allow-list");
    }

    @Test
    void shouldRefuseWritesWithoutTouchingTheWarehouse() throws Exception {
        Map<String, Long> before = counts();
        assertRefusedBeforeTheEngine(executor, ds, writesOn("orders"));
        assertRefusedBeforeTheEngine(executor, ds, ExecutorAssertions.evasionCorpus(Dialect.DUCKDB));
        assertEquals(before, counts());
    }

    @Test
    void shouldHaveTheEngineRefuseWritesAndFileAccessOnItsOwn() throws Exception {
        Map<String, Long> before = counts();
        // defense in depth: the executor refuses file functions itself now, and the pool's own connection refuses them too
        assertEquals(ErrorCategory.READ_ONLY_VIOLATION, fail(executor, ds, "SELECT * FROM read_csv('/etc/passwd')").category());
        try (Connection c = executor.borrow(ds)) {
            for (String read : List.of("SELECT * FROM read_csv('/etc/passwd')", "SELECT * FROM read_text('/etc/hostname')")) {
                try (Statement st = c.createStatement()) {
                    SQLException e = assertThrows(SQLException.class, () -> st.executeQuery(read), read);
                    assertEquals(ErrorCategory.PERMISSION_DENIED, new DuckDbErrors().classify(e).category(), e.getMessage());
                }
            }
        }
        try (Connection c = executor.borrow(ds)) {
            for (String write : List.of("CREATE TABLE x AS SELECT 1", "DELETE FROM orders", "COPY orders TO '" + dir.resolve("leak.csv") + "'",
                    "SET enable_external_access = true", "ATTACH '" + dir.resolve("other.duckdb") + "' AS other")) {
                try (Statement st = c.createStatement()) {
                    SQLException e = assertThrows(SQLException.class, () -> st.execute(write), write);
                    assertNotEquals(ErrorCategory.UNKNOWN, new DuckDbErrors().classify(e).category(), e.getMessage());
                }
            }
        }
        assertFalse(Files.exists(dir.resolve("leak.csv")));
        assertFalse(Files.exists(dir.resolve("other.duckdb")));
        assertEquals(before, counts());
    }

    @Test
    void shouldStopALongQueryAtTheTimeoutAndFreeTheEngine() {
        long t0 = System.nanoTime();
        EngineError e = fail(executor, ds, "SELECT sum(a.range * b.range) FROM range(200000) a, range(200000) b");
        long tookMs = (System.nanoTime() - t0) / 1_000_000;
        assertEquals(ErrorCategory.TIMEOUT, e.category(), e.message());
        assertTrue(tookMs >= 1500 && tookMs < 8000, "stopped at the 2 s timeout, took " + tookMs + " ms");
        // the engine is not left running it: the process goes idle, and the only pooled connection answers at once
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpu0 = os.getProcessCpuTime();
        sleep(1000);
        long cpuMs = (os.getProcessCpuTime() - cpu0) / 1_000_000;
        assertTrue(cpuMs < 600, "process CPU in the second after the timeout: " + cpuMs + " ms");
        long t1 = System.nanoTime();
        ok(executor, ds, "SELECT count(*) FROM nation");
        assertTrue((System.nanoTime() - t1) / 1_000_000 < 1000, "the pool's only connection is free again");
    }

    @Test
    void shouldValidateWithoutRunningInExplainMode() {
        DatasourceConfig explain = ds.withValidationMode(ValidationMode.EXPLAIN);
        Execution e = ok(executor, explain, "SELECT o_orderkey, o_totalprice FROM orders");
        assertEquals(List.of("o_orderkey", "o_totalprice"), e.columns());
        assertEquals(0, e.rowCount());
        assertEquals(ErrorCategory.COLUMN_NOT_FOUND, fail(executor, explain, "SELECT nope FROM orders").category());
    }

    @Test
    void shouldCallAMissingDatabaseFileInfrastructure() {
        DatasourceConfig missing = DatasourceConfig.of("missing", Dialect.DUCKDB, "jdbc:duckdb:" + dir.resolve("nope.duckdb"), null, null)
                .withPool(1, Duration.ofSeconds(1));
        assertInfrastructureWithin(executor, missing, Duration.ofSeconds(5));
        assertFalse(Files.exists(dir.resolve("nope.duckdb")), "read-only never creates the file");
    }

    /** The pool of DuckDB processes (the default) and the in-process connection pool alike. */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {Safeguards.PROCESS, Safeguards.IN_PROCESS})
    void shouldCallAnExhaustedPoolInfrastructure(String isolation) throws Exception {
        DatasourceConfig one = DatasourceConfig.of("single", Dialect.DUCKDB, "jdbc:duckdb:" + file, null, null)
                .withPool(1, Duration.ofMillis(500));
        DatasourceConfig single = one.withSafeguards(one.safeguards().withIsolation(isolation, null));
        try (ReadOnlyExecutor local = new ReadOnlyExecutor();
             AutoCloseable held = isolation.equals(Safeguards.PROCESS) ? local.child(single) : local.borrow(single)) {
            long t0 = System.nanoTime();
            InfrastructureException e = assertThrows(InfrastructureException.class, () -> local.run(single, "SELECT 1"));
            long tookMs = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(tookMs >= 400 && tookMs < 3000, "waited the pool's connect timeout, took " + tookMs + " ms");
            assertTrue(e.getMessage().contains("single"), e.getMessage());
            held.close();
            assertInstanceOf(QueryRunner.Succeeded.class, local.run(single, "SELECT 1"), "free again once returned");
        }
    }

    @Test
    void shouldShareTheFileOnlyWithTheSameReadOnlyProperties() throws Exception {
        // an executor running DuckDB in this JVM (in-process) next to the validator's catalog loader, as _ISOLATION=in-process does
        ok(executor, ds.withSafeguards(ds.safeguards().withIsolation(Safeguards.IN_PROCESS, null)), "SELECT 1");
        // what the validator does in the same JVM (embedded demo): the shared property set works alongside the pool
        try (Connection c = java.sql.DriverManager.getConnection("jdbc:duckdb:" + file, DuckDbReadOnly.properties());
             Statement st = c.createStatement()) {
            assertEquals(5, scalar(st, "SELECT count(*) FROM region"));
        }
        java.util.Properties plain = new java.util.Properties();
        plain.setProperty("duckdb.read_only", "true");
        SQLException e = assertThrows(SQLException.class, () -> java.sql.DriverManager.getConnection("jdbc:duckdb:" + file, plain).close());
        assertTrue(e.getMessage().contains("different configuration"), e.getMessage());
    }

    private static Map<String, Long> counts() throws SQLException {
        // DuckDB shares one database instance per file in a JVM and refuses a second configuration,
        // so the engine-side count goes through the executor's own (read-only) pool
        try (Connection c = executor.borrow(ds)) {
            Map<String, Long> counts = rowCounts(c, "SELECT table_name FROM duckdb_tables()", 1, t -> t);
            assertEquals(List.of("customer", "lineitem", "nation", "orders", "part", "partsupp", "region", "supplier"),
                    List.copyOf(counts.keySet()));
            return counts;
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
