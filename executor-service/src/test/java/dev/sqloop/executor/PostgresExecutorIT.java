package dev.sqloop.executor;

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
import dev.sqloop.common.runtime.InfrastructureException;
import dev.sqloop.testkit.Ports;
import dev.sqloop.testkit.engines.DefogDatasets;
import dev.sqloop.testkit.engines.PostgresServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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

    private static EngineError fail(String sql) {
        QueryRunner.Result r = executor.run(ds, sql);
        return assertInstanceOf(QueryRunner.Failed.class, r, () -> sql + " ran: " + r).error();
    }

    private static Execution ok(DatasourceConfig on, String sql) {
        QueryRunner.Result r = executor.run(on, sql);
        return assertInstanceOf(QueryRunner.Succeeded.class, r, () -> sql + " failed: " + r).execution();
    }

    @Test
    void shouldReturnShapeRowCountAndABoundedPreview() {
        Execution e = ok(ds, "SELECT aid, name, homepage FROM author ORDER BY aid;");
        assertEquals(List.of("aid", "name", "homepage"), e.columns());
        assertEquals(List.of("int8", "text", "text"), e.types());
        assertTrue(e.rowCount() > 0 && e.rowCount() <= 50);
        assertTrue(e.preview().size() <= ReadOnlyExecutor.PREVIEW_ROWS);
        assertInstanceOf(Long.class, e.preview().get(0).get(0));
    }

    @Test
    void shouldCapRowsAtTheLimit() {
        assertEquals(50, ok(ds, "SELECT g FROM generate_series(1, 100000) g").rowCount());
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
            "SELECT pg_sleep(5)|TIMEOUT"})
    void shouldClassifyTheServersErrors(String sql, ErrorCategory expected) {
        EngineError e = fail(sql);
        assertEquals(expected, e.category(), e.message());
        assertFalse(e.infrastructure());
    }

    @Test
    void shouldKeepTheServersHint() {
        EngineError e = fail("SELECT a.nme FROM author a");
        assertEquals(ErrorCategory.COLUMN_NOT_FOUND, e.category());
        assertEquals("a.nme", e.identifier());
        assertEquals(List.of("a.name"), e.candidates(), e.message());
    }

    @Test
    void shouldRefuseWritesWithoutTouchingTheDatabase() throws Exception {
        List<Long> before = counts();
        for (String sql : ReadOnlyGuardTest.WRITES) {
            EngineError e = fail(sql.replace(" t ", " author ").replace(" t", " author"));
            assertTrue(e.message().startsWith("refused by the executor"), "refused before the engine: " + sql);
        }
        assertEquals(before, counts());
    }

    @Test
    void shouldHaveTheServerRefuseWritesOnItsOwn() throws Exception {
        List<Long> before = counts();
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
        EngineError e = fail("SELECT count(*) FROM generate_series(1, 2000000000) a WHERE md5(a::text) = 'x'");
        long tookMs = (System.nanoTime() - t0) / 1_000_000;
        assertEquals(ErrorCategory.TIMEOUT, e.category(), e.message());
        assertTrue(tookMs >= 1500 && tookMs < 8000, "stopped at the 2 s timeout, took " + tookMs + " ms");
        try (Connection c = pg.superuser("academic"); Statement st = c.createStatement()) {
            long deadline = System.nanoTime() + 3_000_000_000L;
            int running;
            do {
                try (ResultSet rs = st.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE usename = '" + PostgresServer.READER
                        + "' AND state = 'active' AND query LIKE '%generate_series%'")) {
                    rs.next();
                    running = rs.getInt(1);
                }
            } while (running > 0 && System.nanoTime() < deadline);
            assertEquals(0, running, "the server is no longer running the query");
        }
    }

    @Test
    void shouldValidateWithoutRunningInExplainMode() {
        DatasourceConfig explain = ds.withValidationMode(ValidationMode.EXPLAIN);
        Execution e = ok(explain, "SELECT aid, name FROM author");
        assertEquals(List.of("aid", "name"), e.columns());
        assertEquals(0, e.rowCount());
        assertEquals(ErrorCategory.COLUMN_NOT_FOUND, assertInstanceOf(QueryRunner.Failed.class, executor.run(explain, "SELECT nope FROM author")).error().category());
        long t0 = System.nanoTime();
        ok(explain, "SELECT pg_sleep(10)");
        assertTrue((System.nanoTime() - t0) / 1_000_000 < 2000, "planned, not run");
    }

    @Test
    void shouldGiveInfrastructureQuicklyWhenNothingListens() {
        DatasourceConfig nowhere = DatasourceConfig.of("nowhere", Dialect.POSTGRES, "jdbc:postgresql://127.0.0.1:" + Ports.free() + "/academic",
                PostgresServer.READER, PostgresServer.READER_PASSWORD).withPool(1, Duration.ofSeconds(1));
        long t0 = System.nanoTime();
        InfrastructureException e = assertThrows(InfrastructureException.class, () -> executor.run(nowhere, "SELECT 1"));
        long tookMs = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(tookMs < 5000, "bounded, took " + tookMs + " ms");
        assertTrue(e.getMessage().contains("nowhere"), e.getMessage());
    }

    @Test
    void shouldGiveInfrastructureWhileTheServerIsStoppedAndRecoverAfter() throws Exception {
        try (PostgresServer own = PostgresServer.start(); ReadOnlyExecutor local = new ReadOnlyExecutor()) {
            DatasourceConfig d = DatasourceConfig.of("own", Dialect.POSTGRES, own.jdbcUrl("postgres"), PostgresServer.READER,
                    PostgresServer.READER_PASSWORD).withLimits(10, Duration.ofSeconds(2)).withPool(1, Duration.ofSeconds(1));
            assertInstanceOf(QueryRunner.Succeeded.class, local.run(d, "SELECT 1"));
            own.stop();
            long t0 = System.nanoTime();
            assertThrows(InfrastructureException.class, () -> local.run(d, "SELECT 1"));
            long tookMs = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(tookMs < 5000, "bounded, took " + tookMs + " ms");
            own.restart();
            assertInstanceOf(QueryRunner.Succeeded.class, local.run(d, "SELECT 1"), "the pool reconnects once the server is back");
        }
    }

    private static List<Long> counts() throws SQLException {
        List<Long> out = new ArrayList<>();
        try (Connection c = pg.superuser("academic"); Statement st = c.createStatement()) {
            List<String> tables = new ArrayList<>();
            try (ResultSet rs = st.executeQuery("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1")) {
                while (rs.next()) tables.add(rs.getString(1));
            }
            assertEquals(16, tables.size(), tables.toString());
            for (String t : tables) {
                try (ResultSet rs = st.executeQuery("SELECT count(*) FROM \"" + t + "\"")) {
                    rs.next();
                    out.add(rs.getLong(1));
                }
            }
        }
        return out;
    }
}
