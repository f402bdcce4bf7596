package dev.sqloop.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.Execution;
import dev.sqloop.common.runtime.InfrastructureException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

/**
 * What every executor IT checks the same way on its engine: a query that runs, one that fails, the write corpus
 * refused before any connection is borrowed, an unreachable server failing as infrastructure within a bound, and
 * the engine's own view (row counts, running queries) read over a plain connection.
 */
final class ExecutorAssertions {
    private ExecutorAssertions() {
    }

    /** What {@code sql} returned on {@code on}; the test fails if it did not run. */
    static Execution ok(QueryRunner runner, DatasourceConfig on, String sql) {
        QueryRunner.Result r = runner.run(on, sql);
        return assertInstanceOf(QueryRunner.Succeeded.class, r, () -> sql + " failed: " + r).execution();
    }

    /** The error {@code sql} ended in on {@code on}; the test fails if it ran. */
    static EngineError fail(QueryRunner runner, DatasourceConfig on, String sql) {
        QueryRunner.Result r = runner.run(on, sql);
        return assertInstanceOf(QueryRunner.Failed.class, r, () -> sql + " ran: " + r).error();
    }

    /**
     * The error the engine itself gives for {@code sql}, with sqloop's own checks bypassed: for tests of how engine errors
     * are classified (the checks would refuse an unknown function or an unparseable text before the engine sees it).
     */
    static EngineError failOnEngine(ReadOnlyExecutor executor, DatasourceConfig on, String sql) {
        QueryRunner.Result r = executor.runUnchecked(on, sql);
        return assertInstanceOf(QueryRunner.Failed.class, r, () -> sql + " ran: " + r).error();
    }

    /**
     * What {@code sql}, sent as it is, got from a DuckDB process of {@code on}: past the guard, the allow-lists and the
     * value-size checks, as a query that slipped by all of them would reach the engine.
     */
    static DuckDbWire.Reply onChild(ReadOnlyExecutor executor, DatasourceConfig on, String sql) {
        try (DuckDbProcesses.Lease child = executor.child(on)) {
            return child.run(new DuckDbWire.Request(DuckDbWire.Kind.QUERY, sql, on.rowLimit(), on.queryTimeout().toMillis()));
        }
    }

    /** {@link ReadOnlyGuardTest#WRITES}, aimed at {@code table} instead of {@code t}. */
    static List<String> writesOn(String table) {
        return ReadOnlyGuardTest.WRITES.stream().map(sql -> sql.replace(" t ", " " + table + " ").replace(" t", " " + table)).toList();
    }

    /** Each statement of {@code corpus} is refused by the executor's guard, so no engine ever sees it. */
    static void assertRefusedBeforeTheEngine(QueryRunner runner, DatasourceConfig on, List<String> corpus) {
        for (String sql : corpus) {
            EngineError e = fail(runner, on, sql);
            assertTrue(e.message().startsWith("refused by the executor"), "refused before the engine: " + sql + " → " + e.message());
            assertTrue(e.category() == ErrorCategory.READ_ONLY_VIOLATION || e.category() == ErrorCategory.SYNTAX_ERROR
                    || e.category() == ErrorCategory.TIMEOUT, sql + " → " + e.category());
        }
    }

    /**
     * Issue 44's substitution attacks on a HiveServer2 engine: the engine itself substitutes on a session opened without
     * sqloop's settings ({@code plain}), the executor's own sessions do not (run with its checks bypassed), and through
     * the checks the attacks never reach the engine.
     */
    static void assertTextRunsAsChecked(ReadOnlyExecutor executor, DatasourceConfig ds, Connection plain, String column, String table)
            throws SQLException {
        try (Statement st = plain.createStatement(); ResultSet rs = st.executeQuery("SELECT '${system:file.separator}' AS s")) {
            rs.next();
            assertEquals("/", rs.getString(1), "the engine substitutes on a session without sqloop's settings");
        }
        Execution literal = assertInstanceOf(QueryRunner.Succeeded.class,
                executor.runUnchecked(ds, "SELECT '${system:user.name}' AS u")).execution();
        assertEquals("${system:user.name}", literal.preview().getFirst().getFirst(), "the executor's session runs the text as written");
        String hidden = "SELECT 1 AS x -- ${system:line.separator}, " + column + " FROM " + table;
        Execution commented = assertInstanceOf(QueryRunner.Succeeded.class, executor.runUnchecked(ds, hidden)).execution();
        assertEquals(List.of("x"), commented.columns(), "the comment stays a comment on the engine");
        assertRefusedBeforeTheEngine(executor, ds, List.of(hidden, "SELECT '${env:HOME}' AS h",
                "SELECT '${hiveconf:javax.jdo.option.ConnectionPassword}' AS p"));
        try (Connection own = executor.borrow(ds)) {
            assertEquals(null, new HiveServer2Profile(ds.dialect()).sessionProblem(own), "the session is verified");
        }
        assertTrue(new HiveServer2Profile(ds.dialect()).sessionProblem(plain).contains("substitutes"),
                "a session that substitutes is named for it");
    }

    /** The validator's evasion corpus for one dialect (issue 11's probe classes included). */
    static List<String> evasionCorpus(dev.sqloop.common.Dialect dialect) {
        return dev.sqloop.parse.SqlCorpus.load(dev.sqloop.parse.SqlCorpus.EVASIONS).stream()
                .filter(c -> c.dialect() == dialect).map(dev.sqloop.parse.SqlCorpus.Case::sql).toList();
    }

    /** {@code SELECT 1} on {@code unreachable} is an infrastructure failure naming the datasource, within {@code bound}. */
    static InfrastructureException assertInfrastructureWithin(QueryRunner runner, DatasourceConfig unreachable, Duration bound) {
        long t0 = System.nanoTime();
        InfrastructureException e = assertThrows(InfrastructureException.class, () -> runner.run(unreachable, "SELECT 1"));
        long tookMs = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(tookMs < bound.toMillis(), "bounded by " + bound + ", took " + tookMs + " ms");
        assertTrue(e.getMessage().contains(unreachable.name()), e.getMessage());
        return e;
    }

    /**
     * The engine's own row count of every table that {@code listTables} names (in column {@code nameColumn}), by
     * table name; {@code qualify} turns a name into what {@code FROM} needs on that engine (quotes, database).
     */
    static Map<String, Long> rowCounts(Connection c, String listTables, int nameColumn, UnaryOperator<String> qualify) throws SQLException {
        Map<String, Long> counts = new TreeMap<>();
        try (Statement st = c.createStatement()) {
            List<String> tables = new ArrayList<>();
            try (ResultSet rs = st.executeQuery(listTables)) {
                while (rs.next()) tables.add(rs.getString(nameColumn));
            }
            for (String t : tables) counts.put(t, scalar(st, "SELECT count(*) FROM " + qualify.apply(t)));
        }
        return counts;
    }

    /**
     * The server stops running a query the executor gave up on: {@code countRunning} (the engine's own view of
     * its running queries) reaches 0 within {@code within}.
     */
    static void assertServerStopsRunning(Statement st, String countRunning, Duration within) throws SQLException {
        long deadline = System.nanoTime() + within.toNanos();
        long running;
        do {
            running = scalar(st, countRunning);
        } while (running > 0 && System.nanoTime() < deadline);
        assertEquals(0, running, "the server is no longer running the query");
    }

    /** The first column of the first row of {@code sql}, as a long. */
    static long scalar(Statement st, String sql) throws SQLException {
        try (ResultSet rs = st.executeQuery(sql)) {
            assertTrue(rs.next(), sql + " returned no row");
            return rs.getLong(1);
        }
    }
}
