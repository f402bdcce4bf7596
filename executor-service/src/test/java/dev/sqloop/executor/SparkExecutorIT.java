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
import static org.junit.jupiter.api.Assertions.assertNull;
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
import dev.sqloop.testkit.engines.PostgresToHive;
import dev.sqloop.testkit.engines.SparkThriftServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The executor on a real Spark Thrift Server 3.5.4 (testkit, its own JDK 17 JVM) through hive-jdbc 4.0.1, on the
 * defog {@code academic} and {@code broker} databases loaded as text tables. Spark has no read-only mode: the
 * executor's guard is what stops writes, and the checks below read the engine's own state to prove it.
 */
class SparkExecutorIT {
    private static SparkThriftServer spark;
    private static DatasourceConfig ds;
    private static ReadOnlyExecutor executor;

    @BeforeAll
    static void start() throws Exception {
        spark = SparkThriftServer.shared();
        try (Connection admin = spark.connect("default")) {
            DefogDatasets.loadIntoHiveServer2(admin, "academic", spark.dataDir());
            DefogDatasets.loadIntoHiveServer2(admin, "broker", spark.dataDir());
        }
        ds = DatasourceConfig.of("academic", Dialect.SPARKSQL, spark.jdbcUrl("academic"), null, null)
                .withLimits(50, Duration.ofSeconds(5)).withPool(2, Duration.ofSeconds(5));
        executor = new ReadOnlyExecutor();
    }

    @AfterAll
    static void close() {
        executor.close();
    }

    @Test
    void shouldReturnShapeRowCountAndABoundedPreview() {
        Execution e = ok(executor, ds, "SELECT aid, name, homepage FROM author ORDER BY aid");
        assertEquals(List.of("aid", "name", "homepage"), e.columns());
        assertEquals(List.of("bigint", "string", "string"), e.types());
        assertTrue(e.rowCount() > 0 && e.rowCount() <= 50, "rows " + e.rowCount());
        assertInstanceOf(Long.class, e.preview().get(0).get(0));
    }

    @Test
    void shouldCapRowsAtTheLimitAndKeepTheQuerysOrder() throws Exception {
        assertEquals(50, ok(executor, ds, "SELECT id FROM range(100000000)").rowCount(), "the wrapper stops Spark at the limit");
        long max;
        try (Connection c = spark.connect("academic"); Statement st = c.createStatement()) {
            max = scalar(st, "SELECT max(pid) FROM publication");
        }
        Execution top = ok(executor, ds.withLimits(3, Duration.ofSeconds(5)), "SELECT pid FROM publication ORDER BY pid DESC");
        assertEquals(3, top.rowCount());
        assertEquals(max, top.preview().get(0).get(0), "ORDER BY inside the LIMIT wrapper is kept");
    }

    /** Each Spark error class of ../shared/facts/engine-errors.md, sent by the real server and classified. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "SELECT nosuchcol FROM author|COLUMN_NOT_FOUND|nosuchcol",
            "SELECT a.nme FROM author a|COLUMN_NOT_FOUND|a.nme",
            "SELECT * FROM nosuchtable|TABLE_NOT_FOUND|nosuchtable",
            "SELECT * FROM nosuchdb.author|TABLE_NOT_FOUND|nosuchdb.author",
            "SELECT name, count(*) FROM author|AGGREGATION_ERROR|",
            "SELECT name, homepage, count(*) FROM author GROUP BY name|AGGREGATION_ERROR|homepage",
            "SELECT aid + array(1) FROM author|TYPE_MISMATCH|(aid + array(1))",
            "SELECT * FROM broker.sbCustomer WHERE sbCustJoinDate > true|TYPE_MISMATCH|(sbCustJoinDate > true)",
            "SELECT date_trunc('month', 5)|TYPE_MISMATCH|date_trunc(month, 5)",
            "SELECT no_such_fn(aid) FROM author|UNSUPPORTED_FUNCTION|no_such_fn",
            "SELECT strftime(name, '%Y') FROM author|UNSUPPORTED_FUNCTION|strftime",
            "SELECT substr() FROM author|UNSUPPORTED_FUNCTION|substr",
            "SELECT aid::text FROM author|SYNTAX_ERROR|:",
            "SELECT aid FROM author a JOIN writes w ON a.aid = w.aid|JOIN_ERROR|aid"})
    void shouldClassifyTheServersErrors(String sql, ErrorCategory expected, String identifier) {
        EngineError e = ExecutorAssertions.failOnEngine(executor, ds, sql);
        // re-captured on every run: ../shared/facts/engine-errors.md is checked against these
        System.out.println("spark error: " + sql + "\n    -> " + e);
        assertEquals(expected, e.category(), e.message());
        assertFalse(e.infrastructure());
        assertEquals(identifier, e.identifier(), e.message());
        assertFalse(e.message().contains("\tat "), "stack trace cut: " + e.message());
        assertFalse(e.message().contains("+- "), "logical plan cut: " + e.message());
        assertTrue(e.message().startsWith("["), "starts at the error class: " + e.message());
        assertFalse(e.message().matches("(?s).*\\bline [2-9].*"), "positions in the one-line SQL, not in the LIMIT wrapper: " + e.message());
    }

    /** {@code SELEC} never reaches an engine through the executor (its guard calls it a syntax error): sent raw here. */
    @Test
    void shouldClassifyTheServersParseError() throws Exception {
        try (Connection c = executor.borrow(ds); Statement st = c.createStatement()) {
            SQLException e = assertThrows(SQLException.class, () -> st.executeQuery("SELEC * FROM author"));
            assertEquals("42601", e.getSQLState());
            EngineError error = new HiveErrors().classify(e);
            assertEquals(ErrorCategory.SYNTAX_ERROR, error.category(), error.message());
            assertEquals("SELEC", error.identifier());
            assertTrue(error.message().startsWith("[PARSE_SYNTAX_ERROR] Syntax error at or near 'SELEC'"), error.message());
        }
        assertEquals(ErrorCategory.SYNTAX_ERROR, fail(executor, ds, "SELEC * FROM author").category(), "and the guard agrees");
    }

    @Test
    void shouldKeepTheServersSuggestions() {
        EngineError col = fail(executor, ds, "SELECT nme FROM author");
        assertEquals(List.of("name", "aid", "oid", "homepage"), col.candidates(), col.message());
        EngineError amb = fail(executor, ds, "SELECT aid FROM author a JOIN writes w ON a.aid = w.aid");
        assertEquals(List.of("a.aid", "w.aid"), amb.candidates(), amb.message());
    }

    /**
     * Spark's default (non-ANSI) mode answers what PostgreSQL and ANSI Spark reject: no error reaches the
     * repair loop for these, so the validator's checks are what catches them.
     */
    @Test
    void shouldDocumentWhatNonAnsiSparkLetsThrough() {
        assertEquals(0, ok(executor, ds, "SELECT * FROM author WHERE aid = 'abc'").rowCount(), "a bad comparison is an empty result");
        assertNull(ok(executor, ds, "SELECT sum(name) FROM author").preview().get(0).get(0), "sum over text is NULL");
        assertNull(ok(executor, ds, "SELECT 1/0").preview().get(0).get(0), "division by zero is NULL");
        assertNull(ok(executor, ds, "SELECT CAST('abc' AS INT)").preview().get(0).get(0), "a bad cast is NULL");
        QueryRunner.Result truncated = executor.runUnchecked(ds, "SELECT * FROM author WHERE");
        assertTrue(assertInstanceOf(QueryRunner.Succeeded.class, truncated).execution().rowCount() > 0,
                "a trailing WHERE is read as the table's alias (ANSI mode too)");
        assertEquals(ErrorCategory.SYNTAX_ERROR, fail(executor, ds, "SELECT * FROM author WHERE").category(),
                "sqloop's checks refuse it before the engine");
    }

    /** With {@code spark.sql.ansi.enabled=true} on the URL the same mistakes are errors. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "SELECT * FROM author WHERE aid = 'abc'|TYPE_MISMATCH|abc",
            "SELECT CAST('abc' AS INT)|TYPE_MISMATCH|abc",
            "SELECT 1/0|UNKNOWN|",
            "SELECT sum(name) FROM author|TYPE_MISMATCH|"})
    void shouldClassifyAnsiModeErrors(String sql, ErrorCategory expected, String identifier) {
        DatasourceConfig ansi = DatasourceConfig.of("academic_ansi", Dialect.SPARKSQL, spark.jdbcUrl("academic") + "?spark.sql.ansi.enabled=true",
                null, null).withLimits(50, Duration.ofSeconds(20)).withPool(1, Duration.ofSeconds(5));
        EngineError e = fail(executor, ansi, sql);
        System.out.println("spark ansi error: " + sql + "\n    -> " + e);
        assertEquals(expected, e.category(), e.message());
        assertFalse(e.infrastructure());
        if (identifier != null) assertEquals(identifier, e.identifier(), e.message());
    }

    @Test
    void shouldRefuseWritesWithoutTouchingTheEngine() throws Exception {
        Map<String, Long> before = counts();
        assertRefusedBeforeTheEngine(executor, ds, writesOn("author"));
        assertRefusedBeforeTheEngine(executor, ds, List.of("INSERT OVERWRITE TABLE author SELECT * FROM author WHERE aid < 0",
                "CACHE TABLE author", "UNCACHE TABLE author", "REFRESH TABLE author", "ADD JAR /tmp/evil.jar",
                "CREATE TEMPORARY VIEW v AS SELECT 1", "MSCK REPAIR TABLE author", "LOAD DATA LOCAL INPATH '/tmp/x' INTO TABLE author",
                "SELECT 1; DROP TABLE author", "SELECT '\\\\'; DROP TABLE author; --'x", "SELECT `a`; DROP TABLE author",
                "WITH x AS (SELECT 1) INSERT INTO author SELECT * FROM author", "FROM author INSERT INTO author SELECT *"));
        // issue 11: in_file, get_splits, try_reflect, csv.`/path`, backtracking regex, CR-ended comments, …
        assertRefusedBeforeTheEngine(executor, ds, ExecutorAssertions.evasionCorpus(Dialect.SPARKSQL));
        assertEquals(before, counts(), "every table of academic is still there with the same rows");
    }

    /** What the guard is defending: the pooled connection itself would write, and hive-jdbc refuses read-only mode. */
    @Test
    void shouldShowTheServerItselfAcceptsWrites() throws Exception {
        try (Connection c = executor.borrow(ds); Statement st = c.createStatement()) {
            assertThrows(SQLException.class, () -> c.setReadOnly(true), "hive-jdbc has no read-only mode");
            st.execute("CREATE DATABASE IF NOT EXISTS scratch");
            st.execute("CREATE TABLE scratch.written AS SELECT 1 AS x");
            try (ResultSet rs = st.executeQuery("SELECT count(*) FROM scratch.written")) {
                rs.next();
                assertEquals(1, rs.getLong(1), "Spark ran the write: grants or Ranger must stop it in a deployment");
            }
            st.execute("DROP DATABASE scratch CASCADE");
        }
    }

    @Test
    void shouldRunTheTextItCheckedWithSubstitutionOff() throws Exception {
        try (Connection plain = spark.connect("academic")) {
            ExecutorAssertions.assertTextRunsAsChecked(executor, ds, plain, "aid", "author");
        }
    }

    @Test
    void shouldEndALongQueryOnTheServerAtTheTimeout() throws Exception {
        DatasourceConfig slow = ds.withLimits(50, Duration.ofSeconds(3));
        ok(executor, slow, "SELECT count(*) FROM range(1000)");
        long t0 = System.nanoTime();
        CompletableFuture<QueryRunner.Result> running = CompletableFuture.supplyAsync(
                () -> executor.run(slow, "SELECT count(*) FROM range(100000000000) WHERE id % 7 = 3"));
        Thread.sleep(1000);
        Duration busy = cpuOver(Duration.ofSeconds(1));
        QueryRunner.Result r = running.get(60, TimeUnit.SECONDS);
        long tookMs = (System.nanoTime() - t0) / 1_000_000;
        EngineError e = assertInstanceOf(QueryRunner.Failed.class, r, () -> "ran: " + r).error();
        assertEquals(ErrorCategory.TIMEOUT, e.category(), e.message());
        assertTrue(tookMs >= 2500 && tookMs < 15000, "stopped at the 3 s timeout, took " + tookMs + " ms");
        Thread.sleep(1000);
        Duration idle = cpuOver(Duration.ofSeconds(1));
        assertTrue(idle.toMillis() < 400 && idle.toMillis() * 2 < busy.toMillis(),
                "the job was cancelled on the server: CPU " + busy.toMillis() + " ms/s while running, " + idle.toMillis() + " ms/s after");
        assertEquals(1, ok(executor, slow, "SELECT 1").rowCount(), "the connection is usable afterwards");
    }

    /**
     * The server's own timeout, with sqloop's bypassed: a statement sent without any query timeout on one of the
     * executor's sessions still ends at the session's spark.sql.thriftServer.queryTimeout (the datasource's + 1 s), and
     * its tasks stop (interruptOnCancel).
     */
    @Test
    void shouldEndAQueryAtTheSessionsServerTimeoutWithoutAStatementTimeout() throws Exception {
        DatasourceConfig slow = DatasourceConfig.of("academic_server_timeout", Dialect.SPARKSQL, spark.jdbcUrl("academic"), null, null)
                .withLimits(50, Duration.ofSeconds(3)).withPool(1, Duration.ofSeconds(5));
        try (ReadOnlyExecutor own = new ReadOnlyExecutor(); Connection c = own.borrow(slow); Statement st = c.createStatement()) {
            long t0 = System.nanoTime();
            SQLException e = assertThrows(SQLException.class, () -> st.executeQuery("SELECT count(*) FROM range(100000000000) WHERE id % 7 = 3").next());
            long tookMs = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(tookMs >= 3000 && tookMs < 30_000, "ended by the server at ~4 s: " + tookMs + " ms (" + e.getMessage() + ")");
            Thread.sleep(1000);
            assertTrue(cpuOver(Duration.ofSeconds(1)).toMillis() < 400, "the job's tasks stopped");
        }
    }

    private static Duration cpuOver(Duration window) throws InterruptedException {
        Duration before = spark.cpuTime();
        Thread.sleep(window.toMillis());
        return spark.cpuTime().minus(before);
    }

    @Test
    void shouldValidateWithoutRunningInExplainMode() {
        DatasourceConfig explain = ds.withValidationMode(ValidationMode.EXPLAIN);
        assertEquals(0, ok(executor, explain, "SELECT aid, name FROM author").rowCount());
        assertEquals(ErrorCategory.COLUMN_NOT_FOUND, fail(executor, explain, "SELECT nope FROM author").category());
        long t0 = System.nanoTime();
        ok(executor, explain, "SELECT count(*) FROM range(100000000000) WHERE id % 7 = 3");
        long tookMs = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(tookMs < 3000, "planned, not run: " + tookMs + " ms");
    }

    @Test
    void shouldGiveInfrastructureQuicklyWhenNothingListens() {
        DatasourceConfig nowhere = DatasourceConfig.of("nowhere", Dialect.SPARKSQL, "jdbc:hive2://127.0.0.1:" + Ports.free() + "/default", null, null)
                .withPool(1, Duration.ofSeconds(2));
        assertInfrastructureWithin(executor, nowhere, Duration.ofSeconds(10));
    }

    /**
     * A frozen server (SIGSTOP: the port still accepts, nothing answers) is the case that hangs a client without
     * socket timeouts. A new pool and a pooled connection both end in an infrastructure failure within the socket
     * timeout; once the server runs again the same datasource recovers.
     */
    @Test
    void shouldGiveInfrastructureWhileTheServerIsFrozenAndRecoverAfter() throws Exception {
        DatasourceConfig d = ds.withLimits(10, Duration.ofSeconds(2)).withPool(1, Duration.ofSeconds(2));
        DatasourceConfig fresh = DatasourceConfig.of("frozen_fresh", Dialect.SPARKSQL, spark.jdbcUrl("academic"), null, null)
                .withLimits(10, Duration.ofSeconds(2)).withPool(1, Duration.ofSeconds(2));
        try (ReadOnlyExecutor local = new ReadOnlyExecutor()) {
            assertInstanceOf(QueryRunner.Succeeded.class, local.run(d, "SELECT 1"));
            spark.freeze();
            try {
                long t0 = System.nanoTime();
                assertThrows(InfrastructureException.class, () -> local.run(fresh, "SELECT 1"));
                long freshMs = (System.nanoTime() - t0) / 1_000_000;
                t0 = System.nanoTime();
                assertThrows(InfrastructureException.class, () -> local.run(d, "SELECT 1"));
                long pooledMs = (System.nanoTime() - t0) / 1_000_000;
                long bound = d.queryTimeout().toMillis() + HiveServer2Profile.SOCKET_MARGIN_MS + 5000;
                assertTrue(freshMs < 5000, "a new connection gives up at the pool's connect timeout, took " + freshMs + " ms");
                assertTrue(pooledMs < bound, "a pooled connection gives up at the socket timeout, took " + pooledMs + " ms");
            } finally {
                spark.thaw();
            }
            QueryRunner.Result after = null;
            for (int i = 0; i < 10 && !(after instanceof QueryRunner.Succeeded); i++) {
                try {
                    after = local.run(d, "SELECT 1");
                } catch (InfrastructureException stillBroken) {
                    Thread.sleep(1000);
                }
            }
            assertInstanceOf(QueryRunner.Succeeded.class, after, "the pool reconnects once the server runs again");
        }
    }

    /**
     * The loader's text tables read back exactly: per table, Spark's row count and non-null count of every column
     * equal DuckDB's (the source of the files), for all six defog databases. A value the text format mangles (an
     * unescaped newline, a timestamp Spark cannot parse) would show up as an extra row or a NULL here.
     */
    @Test
    void shouldLoadEveryDefogDatabaseWithTheSameRowsAndNulls(@TempDir Path duckDir) throws Exception {
        int tables = 0;
        try (Connection admin = spark.connect("default")) {
            for (String db : DefogDatasets.DATABASES) {
                Map<String, Long> written = DefogDatasets.loadIntoHiveServer2(admin, db, spark.dataDir());
                Path duck = DefogDatasets.loadIntoDuckDb(db, duckDir.resolve(db + ".duckdb"));
                try (Connection dc = DriverManager.getConnection("jdbc:duckdb:" + duck, new Properties());
                     Statement duckSt = dc.createStatement(); Statement sparkSt = admin.createStatement()) {
                    for (PostgresToHive.Table t : PostgresToHive.tables(Files.readString(DefogDatasets.script(db)))) {
                        List<String> counts = new ArrayList<>(List.of("count(*)"));
                        t.columns().forEach(c -> counts.add("count(" + PostgresToHive.quote(c.name()) + ")"));
                        List<Long> inSpark = row(sparkSt, "SELECT " + String.join(", ", counts) + " FROM " + PostgresToHive.quote(db)
                                + "." + PostgresToHive.quote(t.name()));
                        List<Long> inDuck = row(duckSt, "SELECT " + String.join(", ", counts).replace('`', '"') + " FROM \"" + t.name() + "\"");
                        assertEquals(inDuck, inSpark, db + "." + t.name() + ": count(*) then count(column) per column");
                        assertEquals(written.get(t.name().toLowerCase(java.util.Locale.ROOT)), inSpark.get(0), db + "." + t.name());
                        tables++;
                    }
                }
            }
        }
        assertTrue(tables >= 60, "tables checked: " + tables);
    }

    private static List<Long> row(Statement st, String sql) throws SQLException {
        try (ResultSet rs = st.executeQuery(sql)) {
            assertTrue(rs.next());
            List<Long> out = new ArrayList<>();
            for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) out.add(rs.getLong(i));
            return out;
        }
    }

    private static Map<String, Long> counts() throws SQLException {
        try (Connection c = spark.connect("academic")) {
            // SHOW TABLES answers (namespace, tableName, isTemporary)
            Map<String, Long> counts = rowCounts(c, "SHOW TABLES IN academic", 2, t -> "academic.`" + t + "`");
            assertEquals(15, counts.size(), counts.keySet().toString());
            return counts;
        }
    }
}
