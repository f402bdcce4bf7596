package dev.sqloop.executor;

import static dev.sqloop.executor.ExecutorAssertions.assertInfrastructureWithin;
import static dev.sqloop.executor.ExecutorAssertions.assertRefusedBeforeTheEngine;
import static dev.sqloop.executor.ExecutorAssertions.assertServerStopsRunning;
import static dev.sqloop.executor.ExecutorAssertions.fail;
import static dev.sqloop.executor.ExecutorAssertions.ok;
import static dev.sqloop.executor.ExecutorAssertions.scalar;
import static dev.sqloop.executor.ExecutorAssertions.writesOn;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.datasource.ValidationMode;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.Execution;
import dev.sqloop.testkit.Ports;
import dev.sqloop.testkit.engines.DefogDatasets;
import dev.sqloop.testkit.engines.TrinoServer;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The executor on a real Trino 476 (testkit) on the tpch catalog and the defog data in the memory catalog, with
 * server-side access control that lets only testkit's loader write.
 */
class TrinoExecutorIT {
    private static TrinoServer trino;
    private static DatasourceConfig ds;
    private static ReadOnlyExecutor executor;

    @BeforeAll
    static void start() {
        trino = TrinoServer.shared();
        ds = DatasourceConfig.of("tpch", Dialect.TRINO, trino.jdbcUrl("tpch", "tiny"), "sqloop", null)
                .withLimits(100, Duration.ofSeconds(5)).withPool(2, Duration.ofSeconds(5));
        executor = new ReadOnlyExecutor();
        // a cold server compiles every operator the first time: warm the paths the tests use outside their 5 s limit
        DatasourceConfig patient = ds.withLimits(100, Duration.ofSeconds(120));
        for (String warm : List.of("SELECT orderkey, orderdate, totalprice, orderstatus FROM orders ORDER BY orderkey",
                "SELECT o.orderkey, count(*) FROM tpch.tiny.orders o JOIN tpch.tiny.lineitem l ON o.orderkey = l.orderkey GROUP BY 1",
                "SELECT count(*) - count(*) FROM tpch.tiny.nation", "SELECT count(*) FROM system.runtime.queries")) {
            warmUp(patient, warm);
        }
    }

    /**
     * The warm-up doubles as the readiness probe: /v1/info reports "starting: false" before the node is
     * registered for scheduling, so a first query may still fail (no nodes available). Retry for 2 minutes.
     */
    private static void warmUp(DatasourceConfig on, String sql) {
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        QueryRunner.Result last;
        do {
            last = executor.run(on, sql);
            if (last instanceof QueryRunner.Succeeded) return;
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        } while (System.nanoTime() < deadline);
        QueryRunner.Result failed = last;
        assertInstanceOf(QueryRunner.Succeeded.class, failed, () -> "Trino never ran the warm-up " + sql + ": " + failed);
    }

    @AfterAll
    static void close() {
        executor.close();
    }

    @Test
    void shouldReturnShapeRowCountAndABoundedPreview() {
        Execution e = ok(executor, ds, "SELECT orderkey, orderdate, totalprice, orderstatus FROM orders ORDER BY orderkey");
        assertEquals(List.of("orderkey", "orderdate", "totalprice", "orderstatus"), e.columns());
        assertEquals(List.of("bigint", "date", "double", "varchar(1)"), e.types());
        assertEquals(100, e.rowCount());
        assertEquals(ReadOnlyExecutor.PREVIEW_ROWS, e.preview().size());
        assertEquals(1L, e.preview().get(0).get(0));
        assertEquals("1996-01-02", e.preview().get(0).get(1));
    }

    /** Each Trino error class of ../shared/facts/engine-errors.md, from the real server. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "SELECT foo FROM tpch.tiny.orders|COLUMN_NOT_FOUND",
            "SELECT * FROM tpch.tiny.nosuch|TABLE_NOT_FOUND",
            "SELECT * FROM tpch.nosuch.orders|TABLE_NOT_FOUND",
            "SELECT * FROM nosuch.tiny.orders|TABLE_NOT_FOUND",
            "SELECT orderstatus, count(*) FROM tpch.tiny.orders|AGGREGATION_ERROR",
            "SELECT * FROM tpch.tiny.orders WHERE orderdate = 5|TYPE_MISMATCH",
            "SELECT orderstatus + 1 FROM tpch.tiny.orders|TYPE_MISMATCH",
            "SELECT strftime(orderdate, '%Y') FROM tpch.tiny.orders|UNSUPPORTED_FUNCTION",
            "SELECT date_trunc('month', 5)|TYPE_MISMATCH",
            "SELECT * FROM tpch.tiny.orders WHERE|SYNTAX_ERROR",
            "SELEC * FROM tpch.tiny.orders|SYNTAX_ERROR",
            "SELECT orderkey FROM tpch.tiny.orders o JOIN tpch.tiny.lineitem l ON o.orderkey = l.orderkey|JOIN_ERROR",
            "SELECT 1 / (count(*) - count(*)) FROM tpch.tiny.nation|UNKNOWN",
            "SELECT CAST('abc' AS integer)|TYPE_MISMATCH"})
    void shouldClassifyTheServersErrors(String sql, ErrorCategory expected) {
        EngineError e = fail(executor, ds, sql);
        assertEquals(expected, e.category(), e.message());
        assertFalse(e.infrastructure());
    }

    @Test
    void shouldRefuseWritesInTheExecutorAndOnTheServer() throws Exception {
        assertRefusedBeforeTheEngine(executor, ds, writesOn("memory.default.t"));
        // setReadOnly(true) is not enforced by Trino: the server's read-only access control is what refuses
        try (Connection c = executor.borrow(ds)) {
            for (String write : List.of("CREATE TABLE memory.default.leak AS SELECT 1 AS x", "CREATE SCHEMA memory.other")) {
                try (Statement st = c.createStatement()) {
                    SQLException e = assertThrows(SQLException.class, () -> st.execute(write), write);
                    assertEquals(ErrorCategory.PERMISSION_DENIED, new TrinoErrors().classify(e).category(), e.getMessage());
                }
            }
            // other tests of this JVM may have loaded the defog schemas: look for exactly what was attempted
            try (Statement st = c.createStatement()) {
                assertEquals(0, scalar(st, "SELECT count(*) FROM memory.information_schema.tables"
                        + " WHERE table_schema = 'other' OR table_schema = 'default' AND table_name = 'leak'"), "nothing was created");
            }
        }
    }

    /**
     * The defog data is loaded by testkit's loader user (file-based access control lets only it write the memory
     * catalog); the executor's user still cannot change it: the server says PERMISSION_DENIED and the rows stay.
     */
    @Test
    void shouldRefuseTheExecutorsWritesToTheLoadedMemoryCatalog() throws Exception {
        DefogDatasets.loadIntoTrino(trino);
        DatasourceConfig academic = DatasourceConfig.of("academic", Dialect.TRINO, trino.jdbcUrl("memory", "academic"), "sqloop", null)
                .withLimits(100, Duration.ofSeconds(30)).withPool(1, Duration.ofSeconds(5));
        long before = authors(academic);
        assertTrue(before > 0);
        try (Connection c = executor.borrow(academic)) {
            for (String write : List.of("INSERT INTO memory.academic.author (aid, name) VALUES (999, 'x')",
                    "DELETE FROM memory.academic.author", "DROP TABLE memory.academic.author",
                    "CREATE TABLE memory.academic.copy AS SELECT * FROM memory.academic.author",
                    "ALTER TABLE memory.academic.author RENAME TO memory.academic.gone", "DROP SCHEMA memory.academic CASCADE")) {
                try (Statement st = c.createStatement()) {
                    SQLException e = assertThrows(SQLException.class, () -> st.execute(write), write);
                    assertEquals(4, e.getErrorCode(), e.getMessage());
                    assertEquals(ErrorCategory.PERMISSION_DENIED, new TrinoErrors().classify(e).category(), e.getMessage());
                    assertTrue(e.getMessage().contains("Access Denied"), e.getMessage());
                }
            }
        }
        assertEquals(before, authors(academic), "the rows are unchanged");
    }

    private static long authors(DatasourceConfig on) {
        return ((Number) ok(executor, on, "SELECT count(*) FROM author").preview().get(0).get(0)).longValue();
    }

    @Test
    void shouldEndALongQueryOnTheServerAtTheTimeout() throws Exception {
        long t0 = System.nanoTime();
        EngineError e = fail(executor, ds, "SELECT count(*), sum(l.quantity) FROM tpch.sf100.lineitem l");
        long tookMs = (System.nanoTime() - t0) / 1_000_000;
        assertEquals(ErrorCategory.TIMEOUT, e.category(), e.message());
        assertTrue(tookMs >= 4500 && tookMs < 20000, "stopped at the 5 s timeout, took " + tookMs + " ms");
        try (Connection c = executor.borrow(ds); Statement st = c.createStatement()) {
            assertServerStopsRunning(st, "SELECT count(*) FROM system.runtime.queries WHERE state NOT IN ('FINISHED', 'FAILED')"
                    + " AND query LIKE '%sf100.lineitem%' AND query NOT LIKE '%system.runtime%'", Duration.ofSeconds(10));
        }
    }

    @Test
    void shouldValidateWithExplainTypeValidate() {
        DatasourceConfig explain = ds.withValidationMode(ValidationMode.EXPLAIN);
        assertEquals(0, ok(executor, explain, "SELECT count(*) FROM tpch.sf100.lineitem").rowCount());
        EngineError unresolved = fail(executor, explain, "SELECT nope FROM orders");
        assertEquals(ErrorCategory.COLUMN_NOT_FOUND, unresolved.category());
        assertTrue(unresolved.message().contains("line 1:8:"), "the column in the author's SQL, not after EXPLAIN (TYPE VALIDATE): " + unresolved.message());
    }

    @Test
    void shouldGiveInfrastructureQuicklyWhenNothingListens() {
        DatasourceConfig nowhere = DatasourceConfig.of("nowhere", Dialect.TRINO, "jdbc:trino://127.0.0.1:" + Ports.free() + "/tpch/tiny", "sqloop", null)
                .withPool(1, Duration.ofSeconds(1));
        assertInfrastructureWithin(executor, nowhere, Duration.ofSeconds(10));
    }
}
