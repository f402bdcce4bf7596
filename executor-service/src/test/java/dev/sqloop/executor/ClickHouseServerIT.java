package dev.sqloop.executor;

import static dev.sqloop.executor.ExecutorAssertions.fail;
import static dev.sqloop.executor.ExecutorAssertions.failOnEngine;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.datasource.Datasources;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.Issue;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.message.TokenUsage;
import dev.sqloop.common.runtime.Outcome;
import dev.sqloop.common.runtime.StageMetrics;
import dev.sqloop.testkit.engines.ClickHouseServer;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The executor's {@code jdbc:clickhouse://} route (jdbc-v2 0.10.0, HTTP) against a real server: Debian's
 * {@code clickhouse-server} 18.16, the only one this machine's packages have ({@link ClickHouseServer}). What this server
 * does with the driver: its errors come back and are classified from its own codes, it enforces the session settings the
 * executor sends (readonly=2, max_execution_time), and no SELECT returns rows: it ignores the driver's
 * {@code X-ClickHouse-Format} and {@code X-ClickHouse-Database} headers. Rows over this route ran only against chDB.
 */
class ClickHouseServerIT {
    private static final String ROWS = "SELECT customer, count() AS n FROM shop.orders GROUP BY customer ORDER BY customer";
    private static ClickHouseServer server;
    private static DatasourceConfig ds;
    private static ReadOnlyExecutor executor;

    @BeforeAll
    static void createWarehouse() {
        server = ClickHouseServer.shared();
        server.execute("CREATE DATABASE IF NOT EXISTS shop");
        for (String table : List.of("orders", "scratch")) server.execute("DROP TABLE IF EXISTS shop." + table);
        server.execute("CREATE TABLE shop.orders (id UInt32, customer String, amount Float64, placed Date) ENGINE = MergeTree ORDER BY id");
        server.execute("INSERT INTO shop.orders SELECT number, concat('c', toString(number % 7)), (number % 100) / 4,"
                + " toDate('2024-01-01') + number % 365 FROM numbers(10000)");
        server.execute("CREATE TABLE shop.scratch (x Int32) ENGINE = Memory");
        // what a user writes: SQLOOP_DATASOURCE_SHOP_URL=jdbc:clickhouse://host:8123/shop, _DIALECT=clickhouse
        ds = DatasourceConfig.of("shop", Dialect.CLICKHOUSE, server.jdbcUrl("shop"), ClickHouseServer.USER, "")
                .withLimits(100, Duration.ofSeconds(3)).withPool(2, Duration.ofSeconds(5));
        executor = new ReadOnlyExecutor();
    }

    @AfterAll
    static void close() {
        if (executor != null) executor.close();
    }

    /**
     * The server runs the query and answers TabSeparated (it has no header for the format), jdbc-v2 finds no result set in
     * it: the executor says so, as a connection error that ends the question, and does not hang or report rows.
     */
    @Test
    void shouldEndASelectWithTheServerNamedTooOldForTheDriver() {
        assertEquals(7, server.query(ROWS).lines().count(), "the server itself answers the query (plain HTTP, its default format)");
        for (String sql : List.of("SELECT 1", ROWS)) {
            long t0 = System.nanoTime();
            QueryRunner.Failed f = assertInstanceOf(QueryRunner.Failed.class, executor.run(ds, sql), sql);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(f.sent(), "it reached the server: " + sql);
            assertEquals(ErrorCategory.CONNECTION_ERROR, f.error().category(), f.error().message());
            assertFalse(f.error().infrastructure(), "not retried as an outage: every retry would get the same answer");
            assertTrue(f.error().message().contains("too old for the driver"), f.error().message());
            assertTrue(ms < 10_000, sql + " took " + ms + " ms");
        }
        // the stage a user's question goes through: to repair with a category the repair loop stops on
        ExecuteStage stage = new ExecuteStage(Datasources.of(ds), executor, StageMetrics.NONE, Clock.systemUTC());
        QuestionTask task = QuestionTask.create("q1", "t", "shop", "orders per customer?", 3, Instant.now()).withSql(ROWS, TokenUsage.ZERO);
        Outcome.Send out = assertInstanceOf(Outcome.Send.class, stage.process(task));
        assertEquals("repair", out.kind());
        Issue issue = ((QuestionTask) out.emissions().getFirst().message()).issues().getFirst();
        assertEquals(ErrorCategory.CONNECTION_ERROR, issue.category());
        assertFalse(issue.category().retryable(), "the repair loop ends the question on it");
        assertTrue(issue.message().contains("clickhouse-server 18.16"), issue.message());
    }

    /** 18.16 has no EXPLAIN: an explain-mode datasource gets that named, not a syntax error the repair loop would chase. */
    @Test
    void shouldNameAServerWithoutExplain() {
        DatasourceConfig explain = DatasourceConfig.of("shop_explain", Dialect.CLICKHOUSE, server.jdbcUrl("shop"), ClickHouseServer.USER, "")
                .withLimits(100, Duration.ofSeconds(3)).withPool(1, Duration.ofSeconds(5))
                .withValidationMode(dev.sqloop.common.datasource.ValidationMode.EXPLAIN);
        EngineError e = fail(executor, explain, ROWS);
        assertEquals(ErrorCategory.CONNECTION_ERROR, e.category(), e.message());
        assertTrue(e.message().contains("has no EXPLAIN") && e.message().contains("Code: 62"), e.message());
        assertFalse(e.infrastructure(), e.message());
    }

    /** 18.16's own codes (its old message form, no error name) through the executor, each into its category. */
    @Test
    void shouldClassifyTheServersOwnErrors() {
        assertError(fail(executor, ds, "SELECT * FROM shop.missing"), ErrorCategory.TABLE_NOT_FOUND, "Code: 60", "shop.missing");
        // jdbc-v2 names the URL's database in X-ClickHouse-Database, which 18.16 ignores: a bare name is looked up in default
        assertError(fail(executor, ds, "SELECT id FROM orders"), ErrorCategory.TABLE_NOT_FOUND, "Table default.orders doesn't exist",
                "default.orders");
        assertError(fail(executor, ds, "SELECT nosuchcol FROM shop.orders"), ErrorCategory.COLUMN_NOT_FOUND, "Code: 47", "nosuchcol");
        assertError(fail(executor, ds, "SELECT t2.rn FROM (SELECT 1 AS x) t1"), ErrorCategory.COLUMN_NOT_FOUND, "Code: 47", "t2.rn");
        // on the allow-list (26.7's catalog), unknown to 18.16
        assertError(fail(executor, ds, "SELECT base58Encode(customer) AS b FROM shop.orders"), ErrorCategory.UNSUPPORTED_FUNCTION,
                "Code: 46", "base58Encode");
        assertError(fail(executor, ds, "SELECT customer, count() AS n FROM shop.orders GROUP BY id"), ErrorCategory.AGGREGATION_ERROR,
                "Code: 215", "customer");
        assertError(fail(executor, ds, "SELECT a.id FROM shop.orders a JOIN shop.orders b ON a.id < b.id"), ErrorCategory.JOIN_ERROR,
                "Code: 403", null);
        // sqloop's checks stop these first; past them, the server's parser and catalog
        // 18.16 has no window functions: its parser stops at OVER
        for (String sql : List.of("SELEC 1", "SELECT lagInFrame(id) OVER () FROM shop.orders")) {
            EngineError e = failOnEngine(executor, ds, sql);
            assertEquals(ErrorCategory.SYNTAX_ERROR, e.category(), e.message());
            assertTrue(e.message().startsWith("Code: 62, e.displayText() = DB::Exception: Syntax error"), e.message());
        }
        assertError(failOnEngine(executor, ds, "SELECT nosuchfn(1)"), ErrorCategory.UNSUPPORTED_FUNCTION, "Code: 46", "nosuchfn");
    }

    /**
     * The server refuses writes on the executor's own sessions ({@code readonly=2} sent with each request by the pool's
     * connections, below the executor's guard), while the same user without those settings writes.
     */
    @Test
    void shouldRefuseWritesOnTheExecutorsSessions() throws Exception {
        ClickHouseErrors errors = new ClickHouseErrors();
        try (Connection c = executor.borrow(ds)) {
            for (String sql : List.of("INSERT INTO shop.scratch VALUES (1)", "CREATE TABLE shop.t (x Int32) ENGINE = Memory",
                    "DROP TABLE shop.orders", "ALTER TABLE shop.orders DELETE WHERE id = 1")) {
                SQLException e = assertThrows(SQLException.class, () -> {
                    try (Statement st = c.createStatement()) {
                        st.execute(sql);
                    }
                }, sql);
                EngineError error = errors.classify(e);
                assertEquals(ErrorCategory.READ_ONLY_VIOLATION, error.category(), sql + ": " + error.message());
                assertTrue(error.message().contains("Code: 164"), error.message());
            }
        }
        server.execute("INSERT INTO shop.scratch VALUES (1)");
        assertEquals("1", server.query("SELECT count() FROM shop.scratch").strip(), "the user may write; the session may not");
        assertEquals("10000", server.query("SELECT count() FROM shop.orders").strip());
        assertEquals("orders\nscratch", server.query("SHOW TABLES FROM shop").strip());
        // through the executor such a text never reaches the server
        for (String sql : List.of("INSERT INTO shop.scratch VALUES (2)", "DROP TABLE shop.orders")) {
            QueryRunner.Failed f = assertInstanceOf(QueryRunner.Failed.class, executor.run(ds, sql), sql);
            assertFalse(f.sent(), sql);
            assertEquals(ErrorCategory.READ_ONLY_VIOLATION, f.error().category(), f.error().message());
        }
    }

    /**
     * The datasource's time limit reaches the server as max_execution_time and the server stops the query: a scalar
     * subquery runs while 18.16 analyses the query, before the result format is chosen, so its timeout comes back.
     */
    @Test
    void shouldStopAQueryAtTheTimeLimitInTheServer() {
        fail(executor, ds, "SELECT 1"); // a pooled connection first: its opening is not the query's time
        long t0 = System.nanoTime();
        EngineError e = fail(executor, ds, "SELECT (SELECT count() FROM numbers(10000000000)) AS n");
        long ms = (System.nanoTime() - t0) / 1_000_000;
        // The server's own limit (Code 159) and the driver's timeout at the same 3 s, which kills the query (Code 394,
        // "killed in pending state" while 18.16 still analyses it), race: on a loaded host the kill can come first.
        // Either way the query ends at the limit as a timeout; where the server's wins, its message names the 3 s.
        assertEquals(ErrorCategory.TIMEOUT, e.category(), e.message());
        assertFalse(e.infrastructure(), e.message());
        if (e.message().contains("Code: 159")) {
            assertTrue(e.message().contains("maximum: 3"), "the datasource's 3 s, not the server's default (none): " + e.message());
            assertTrue(e.message().contains("elapsed 3.0"), "stopped by the server at its limit: " + e.message());
        } else {
            assertTrue(e.message().contains("Code: 394"), "the server's timeout or the driver's kill at it: " + e.message());
        }
        assertTrue(ms >= 2_900 && ms < 15_000, "not past the socket timeout (limit + 15 s): " + ms + " ms");
        System.out.printf("clickhouse-server 18.16: a runaway scan with a 3 s limit ended in %d ms (%s)%n", ms, e.message());
    }

    private static void assertError(EngineError e, ErrorCategory category, String text, String identifier) {
        assertEquals(category, e.category(), e.message());
        assertTrue(e.message().contains(text), "'" + text + "' in " + e.message());
        assertEquals(identifier, e.identifier(), e.message());
        assertFalse(e.infrastructure(), e.message());
    }
}
