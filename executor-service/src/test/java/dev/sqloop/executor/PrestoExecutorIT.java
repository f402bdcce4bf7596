package dev.sqloop.executor;

import static dev.sqloop.executor.ExecutorAssertions.assertInfrastructureWithin;
import static dev.sqloop.executor.ExecutorAssertions.assertRefusedBeforeTheEngine;
import static dev.sqloop.executor.ExecutorAssertions.fail;
import static dev.sqloop.executor.ExecutorAssertions.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
 * The {@code presto} dialect through PrestoDB's own presto-jdbc 0.296, against testkit's Trino 476 speaking the
 * legacy Presto protocol ({@code protocol.v1.alternate-header-name=Presto}: the driver sends {@code X-Presto-*}
 * headers and Trino answers in kind). No PrestoDB server can run here (no Docker, not on Maven Central as a
 * runnable server): this proves the driver, the pool settings, the protocol and the error classification, not
 * PrestoDB's own engine.
 */
class PrestoExecutorIT {
    private static TrinoServer trino;
    private static DatasourceConfig ds;
    private static ReadOnlyExecutor executor;

    @BeforeAll
    static void start() {
        trino = TrinoServer.shared();
        ds = DatasourceConfig.of("presto_tpch", Dialect.PRESTO, "jdbc:presto://127.0.0.1:" + trino.port() + "/tpch/tiny", "sqloop", null)
                .withLimits(100, Duration.ofSeconds(60)).withPool(2, Duration.ofSeconds(5));
        executor = new ReadOnlyExecutor();
    }

    @AfterAll
    static void close() {
        executor.close();
    }

    @Test
    void shouldRunQueriesThroughPrestoJdbc() throws Exception {
        Execution e = ok(executor, ds, "SELECT orderkey, orderdate, orderstatus FROM orders ORDER BY orderkey");
        assertEquals(List.of("orderkey", "orderdate", "orderstatus"), e.columns());
        assertEquals(100, e.rowCount());
        assertEquals(1L, e.preview().get(0).get(0));
        assertEquals("1996-01-02", e.preview().get(0).get(1));
        try (Connection c = executor.borrow(ds)) {
            assertEquals("com.facebook.presto.jdbc.PrestoConnection", c.unwrap(Connection.class).getClass().getName());
        }
    }

    @Test
    void shouldReadTheDefogDataInTheMemoryCatalog() {
        DefogDatasets.loadIntoTrino(trino);
        DatasourceConfig academic = DatasourceConfig.of("presto_academic", Dialect.PRESTO,
                "jdbc:presto://127.0.0.1:" + trino.port() + "/memory/academic", "sqloop", null).withLimits(100, Duration.ofSeconds(60));
        long n = ((Number) ok(executor, academic, "SELECT count(*) FROM author a JOIN writes w ON a.aid = w.aid").preview().get(0).get(0)).longValue();
        assertTrue(n > 0);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "SELECT foo FROM tpch.tiny.orders|COLUMN_NOT_FOUND",
            "SELECT * FROM tpch.tiny.nosuch|TABLE_NOT_FOUND",
            "SELECT orderstatus, count(*) FROM tpch.tiny.orders|AGGREGATION_ERROR",
            "SELECT orderstatus + 1 FROM tpch.tiny.orders|TYPE_MISMATCH",
            "SELECT strftime(orderdate, '%Y') FROM tpch.tiny.orders|UNSUPPORTED_FUNCTION",
            "SELEC * FROM tpch.tiny.orders|SYNTAX_ERROR",
            "SELECT orderkey FROM tpch.tiny.orders o JOIN tpch.tiny.lineitem l ON o.orderkey = l.orderkey|JOIN_ERROR",
            "SELECT CAST('abc' AS integer)|TYPE_MISMATCH"})
    void shouldClassifyErrorsArrivingThroughPrestoJdbc(String sql, ErrorCategory expected) {
        EngineError e = fail(executor, ds, sql);
        assertEquals(expected, e.category(), e.message());
        assertFalse(e.infrastructure());
    }

    @Test
    void shouldBeRefusedWritesByTheServer() throws Exception {
        try (Connection c = executor.borrow(ds); Statement st = c.createStatement()) {
            SQLException e = assertThrows(SQLException.class, () -> st.execute("CREATE TABLE memory.default.presto_leak AS SELECT 1 AS x"));
            assertEquals(ErrorCategory.PERMISSION_DENIED, new TrinoErrors().classify(e).category(), e.getMessage());
        }
        assertRefusedBeforeTheEngine(executor, ds, List.of("DROP TABLE memory.academic.author"));
    }

    @Test
    void shouldValidateWithExplain() {
        DatasourceConfig explain = ds.withValidationMode(ValidationMode.EXPLAIN);
        ok(executor, explain, "SELECT count(*) FROM tpch.sf100.lineitem");
        assertEquals(ErrorCategory.COLUMN_NOT_FOUND, fail(executor, explain, "SELECT nope FROM orders").category());
    }

    @Test
    void shouldGiveInfrastructureQuicklyWhenNothingListens() {
        DatasourceConfig nowhere = DatasourceConfig.of("presto_nowhere", Dialect.PRESTO,
                "jdbc:presto://127.0.0.1:" + Ports.free() + "/tpch/tiny", "sqloop", null).withPool(1, Duration.ofSeconds(1));
        assertInfrastructureWithin(executor, nowhere, Duration.ofSeconds(10));
    }
}
