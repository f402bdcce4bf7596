package dev.sqloop.executor;

import static dev.sqloop.executor.ExecutorAssertions.assertInfrastructureWithin;
import static dev.sqloop.executor.ExecutorAssertions.assertRefusedBeforeTheEngine;
import static dev.sqloop.executor.ExecutorAssertions.assertServerStopsRunning;
import static dev.sqloop.executor.ExecutorAssertions.fail;
import static dev.sqloop.executor.ExecutorAssertions.ok;
import static dev.sqloop.executor.ExecutorAssertions.rowCounts;
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
import dev.sqloop.testkit.engines.PostgresServer;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The executor on a real PostgreSQL cluster (testkit), as the read-only role, on the defog {@code academic} database. */
class PostgresExecutorIT {
    private static PostgresServer pg;
    private static DatasourceConfig ds;
    private static ReadOnlyExecutor executor;

    @BeforeAll
    static void start() throws Exception {
        pg = PostgresServer.shared();
        DefogDatasets.loadIntoPostgres(pg, "academic");
        try (Connection c = pg.superuser("academic"); Statement st = c.createStatement()) {
            // created after the grants: the reader has no right to it
            st.execute("CREATE TABLE IF NOT EXISTS salaries (aid bigint, amount numeric)");
        }
        ds = DatasourceConfig.of("academic", Dialect.POSTGRES, pg.jdbcUrl("academic"), PostgresServer.READER, PostgresServer.READER_PASSWORD)
                .withLimits(50, Duration.ofSeconds(2)).withPool(2, Duration.ofSeconds(2));
        executor = new ReadOnlyExecutor();
    }

    @AfterAll
    static void close() {
        executor.close();
    }

    @Test
    void shouldReturnShapeRowCountAndABoundedPreview() {
        Execution e = ok(executor, ds, "SELECT aid, name, homepage FROM author ORDER BY aid;");
        assertEquals(List.of("aid", "name", "homepage"), e.columns());
        assertEquals(List.of("int8", "text", "text"), e.types());
        assertTrue(e.rowCount() > 0 && e.rowCount() <= 50);
        assertTrue(e.preview().size() <= ReadOnlyExecutor.PREVIEW_ROWS);
        assertInstanceOf(Long.class, e.preview().get(0).get(0));
    }

    @Test
    void shouldCapRowsAtTheLimit() {
        assertEquals(50, ok(executor, ds, "SELECT g FROM generate_series(1, 100000) g").rowCount());
    }

    /** Each error class, by the SQLSTATE the real server sends. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "SELECT foo FROM author|COLUMN_NOT_FOUND",
            "SELECT * FROM nosuch|TABLE_NOT_FOUND",
            "SELECT * FROM nosuch.author|TABLE_NOT_FOUND",
            "SELECT name, count(*) FROM author|AGGREGATION_ERROR",
            "SELECT strftime(year, '%Y') FROM publication|UNSUPPORTED_FUNCTION",
            "SELECT * FROM publication WHERE year = DATE '2020-01-01'|TYPE_MISMATCH",
            "SELECT name + 1 FROM author|TYPE_MISMATCH",
            "SELECT * FROM author WHERE aid = 'abc'|TYPE_MISMATCH",
            "SELECT * FROM author WHERE aid|TYPE_MISMATCH",
            "SELECT date_trunc('month', 5)|UNSUPPORTED_FUNCTION",
            "SELECT * FROM author WHERE|SYNTAX_ERROR",
            "SELECT * FROM order|SYNTAX_ERROR",
            "SELECT aid FROM author a JOIN writes w ON a.aid = w.aid|JOIN_ERROR",
            "SELECT 1/0|UNKNOWN",
            "SELECT CAST('abc' AS integer)|TYPE_MISMATCH",
            "SELECT * FROM salaries|PERMISSION_DENIED",
            "SELECT count(*) FROM generate_series(1, 2000000000) a|TIMEOUT"})
    void shouldClassifyTheServersErrors(String sql, ErrorCategory expected) {
        EngineError e = fail(executor, ds, sql);
        assertEquals(expected, e.category(), e.message());
        assertFalse(e.infrastructure());
    }

    @Test
    void shouldKeepTheServersHint() {
        EngineError e = fail(executor, ds, "SELECT a.nme FROM author a");
        assertEquals(ErrorCategory.COLUMN_NOT_FOUND, e.category());
        assertEquals("a.nme", e.identifier());
        assertEquals(List.of("a.name"), e.candidates(), e.message());
    }

    @Test
    void shouldRefuseWritesWithoutTouchingTheDatabase() throws Exception {
        Map<String, Long> before = counts();
        assertRefusedBeforeTheEngine(executor, ds, writesOn("author"));
        assertRefusedBeforeTheEngine(executor, ds, ExecutorAssertions.evasionCorpus(Dialect.POSTGRES));
        assertEquals(before, counts());
    }

    @Test
    void shouldHaveTheServerRefuseWritesOnItsOwn() throws Exception {
        Map<String, Long> before = counts();
        try (Connection c = executor.borrow(ds)) {
            assertTrue(c.isReadOnly());
            for (String write : List.of("DELETE FROM author", "CREATE TEMP TABLE x (a int)", "INSERT INTO author (aid) VALUES (-1)",
                    "SET default_transaction_read_only = off; DELETE FROM author")) {
                try (Statement st = c.createStatement()) {
                    SQLException e = assertThrows(SQLException.class, () -> st.execute(write), write);
                    ErrorCategory category = new PostgresErrors().classify(e).category();
                    assertTrue(category == ErrorCategory.READ_ONLY_VIOLATION || category == ErrorCategory.PERMISSION_DENIED,
                            write + ": " + e.getMessage());
                }
            }
        }
        assertEquals(before, counts());
    }

    @Test
    void shouldEndALongQueryOnTheServerAtTheTimeout() throws Exception {
        long t0 = System.nanoTime();
        EngineError e = fail(executor, ds, "SELECT count(*) FROM generate_series(1, 2000000000) a WHERE md5(a::text) = 'x'");
        long tookMs = (System.nanoTime() - t0) / 1_000_000;
        assertEquals(ErrorCategory.TIMEOUT, e.category(), e.message());
        assertTrue(tookMs >= 1500 && tookMs < 8000, "stopped at the 2 s timeout, took " + tookMs + " ms");
        try (Connection c = pg.superuser("academic"); Statement st = c.createStatement()) {
            assertServerStopsRunning(st, "SELECT count(*) FROM pg_stat_activity WHERE usename = '" + PostgresServer.READER
                    + "' AND state = 'active' AND query LIKE '%generate_series%'", Duration.ofSeconds(3));
        }
    }

    @Test
    void shouldValidateWithoutRunningInExplainMode() {
        DatasourceConfig explain = ds.withValidationMode(ValidationMode.EXPLAIN);
        Execution e = ok(executor, explain, "SELECT aid, name FROM author");
        assertEquals(List.of("aid", "name"), e.columns());
        assertEquals(0, e.rowCount());
        assertEquals(ErrorCategory.COLUMN_NOT_FOUND, fail(executor, explain, "SELECT nope FROM author").category());
        long t0 = System.nanoTime();
        ok(executor, explain, "SELECT count(*) FROM generate_series(1, 2000000000) a");
        assertTrue((System.nanoTime() - t0) / 1_000_000 < 2000, "planned, not run");
    }

    @Test
    void shouldGiveInfrastructureQuicklyWhenNothingListens() {
        DatasourceConfig nowhere = DatasourceConfig.of("nowhere", Dialect.POSTGRES, "jdbc:postgresql://127.0.0.1:" + Ports.free() + "/academic",
                PostgresServer.READER, PostgresServer.READER_PASSWORD).withPool(1, Duration.ofSeconds(1));
        assertInfrastructureWithin(executor, nowhere, Duration.ofSeconds(5));
    }

    @Test
    void shouldGiveInfrastructureWhileTheServerIsStoppedAndRecoverAfter() throws Exception {
        try (PostgresServer own = PostgresServer.start(); ReadOnlyExecutor local = new ReadOnlyExecutor()) {
            DatasourceConfig d = DatasourceConfig.of("own", Dialect.POSTGRES, own.jdbcUrl("postgres"), PostgresServer.READER,
                    PostgresServer.READER_PASSWORD).withLimits(10, Duration.ofSeconds(2)).withPool(1, Duration.ofSeconds(1));
            assertInstanceOf(QueryRunner.Succeeded.class, local.run(d, "SELECT 1"));
            own.stop();
            assertInfrastructureWithin(local, d, Duration.ofSeconds(5));
            own.restart();
            assertInstanceOf(QueryRunner.Succeeded.class, local.run(d, "SELECT 1"), "the pool reconnects once the server is back");
        }
    }

    private static Map<String, Long> counts() throws SQLException {
        try (Connection c = pg.superuser("academic")) {
            Map<String, Long> counts = rowCounts(c, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'", 1,
                    t -> "\"" + t + "\"");
            assertEquals(16, counts.size(), counts.keySet().toString());
            return counts;
        }
    }
}
