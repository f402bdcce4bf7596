package dev.sqloop.embedded.eval;

import dev.sqloop.chdb.Chdb;
import dev.sqloop.chdb.ChdbException;
import dev.sqloop.chdb.ChdbResult;
import dev.sqloop.chdb.ChdbSession;
import dev.sqloop.chdb.ChdbUrl;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.datasource.Datasources;
import dev.sqloop.common.datasource.ReadOnlyJdbc;
import dev.sqloop.common.sql.GoldSql;
import dev.sqloop.common.sql.SqlNormalizer;
import dev.sqloop.executor.ReadOnlyGuard;
import dev.sqloop.testkit.engines.ResultComparison;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Scores one final SQL against a question's gold, running both as the executor runs a query: through the
 * executor's read-only guard (one read-only query, on its parse tree) on a read-only JDBC session with the
 * datasource's time limit. A result's SQL is only ever a statement that ran, but a gold file is input too: anything
 * the guard refuses is not run, whichever side it is on.
 *
 * <ul>
 *   <li><b>VA</b>: the final SQL executes (a failed question has no final SQL: not VA);</li>
 *   <li><b>EX</b>: its result equals one accepted gold form's result by values ({@link ResultComparison}: rows a multiset
 *       unless the gold orders, relative float tolerance {@value ResultComparison#TOLERANCE});</li>
 *   <li><b>TS</b> (test-suite accuracy): EX on the datasource <em>and</em> the same result as that gold form on each of
 *       its {@link NeighbourDatabases} where the gold runs (DuckDB datasources, and PostgreSQL ones given an
 *       administrative login; {@code --ts N} copies). False whenever EX is false, so TS never exceeds EX; null only
 *       where the datasource has no neighbour databases (the question is outside TS's scope);</li>
 *   <li><b>EM</b>: the same statement as a gold form after normalization (diagnostic only).</li>
 * </ul>
 */
public final class Scorer implements AutoCloseable {
    static final int MAX_ROWS = 100_000;

    /**
     * @param ts null only when the datasource has no neighbour databases; otherwise true exactly when EX holds and the
     *           final SQL gives the gold's result on every neighbour where the gold runs (never true without EX)
     * @param tsDatabases the databases TS compared the final SQL on when EX held: the datasource and each neighbour
     *                    where the gold runs (1: the gold ran on no neighbour, TS was EX alone); 0 otherwise
     */
    public record Score(boolean va, boolean ex, Boolean ts, boolean em, String note, int tsDatabases) {
        public Score {
            if (Boolean.TRUE.equals(ts) && !ex) throw new IllegalArgumentException("TS without EX: " + note);
        }

        /** A score of a question outside TS's scope, or before TS was compared. */
        public Score(boolean va, boolean ex, Boolean ts, boolean em, String note) {
            this(va, ex, ts, em, note, 0);
        }
    }

    private record Run(ResultComparison.Table table, String error) {}

    private final Datasources datasources;
    private final Map<String, Connection> connections = new HashMap<>();
    private final Map<String, ChdbSession> chdbSessions = new HashMap<>();
    private final Map<String, Run> goldRuns = new HashMap<>();
    private final Map<String, List<DatasourceConfig>> neighbours = new HashMap<>();
    private final int tsCopies;
    private final Path tsDir;
    private final NeighbourDatabases.Admin postgresAdmin;

    public Scorer(Datasources datasources) {
        this(datasources, 0, null, null);
    }

    /**
     * @param tsCopies neighbour databases per datasource for TS (0: no TS): DuckDB copies under {@code tsDir};
     *                 PostgreSQL databases on the datasource's server, made by {@code postgresAdmin} (null: no TS there)
     */
    public Scorer(Datasources datasources, int tsCopies, Path tsDir, NeighbourDatabases.Admin postgresAdmin) {
        this.datasources = datasources;
        this.tsCopies = tsCopies;
        this.tsDir = tsDir;
        this.postgresAdmin = postgresAdmin;
    }

    public Score score(EvalCase c, String candidate) {
        DatasourceConfig ds = datasources.find(c.datasource()).orElse(null);
        if (ds == null) return new Score(false, false, null, false, "unknown datasource '" + c.datasource() + "'");
        // a question on a datasource with neighbours is in TS's scope whatever its SQL: a failure there is TS false, not unmeasured
        Boolean notTs = neighbours(ds).isEmpty() ? null : Boolean.FALSE;
        if (candidate == null || candidate.isBlank()) return new Score(false, false, notTs, false, "no final SQL");
        Run cand = run(ds, candidate);
        if (cand.error() != null) return new Score(false, false, notTs, false, "final SQL does not execute: " + cand.error());
        boolean em = GoldSql.forms(c.gold()).stream().anyMatch(form -> SqlNormalizer.sameStatement(candidate, form));
        String lastDifference = null;
        for (String form : GoldSql.forms(c.gold())) {
            Run gold = gold(ds, form);
            if (gold.error() != null) {
                lastDifference = "gold does not execute: " + gold.error();
                continue;
            }
            var diff = ResultComparison.difference(gold.table(), cand.table(), ResultComparison.orderKeys(form));
            if (diff.isEmpty()) return testSuite(ds, form, candidate, em);
            lastDifference = diff.get();
        }
        return new Score(true, false, notTs, em, lastDifference);
    }

    /** EX held on the datasource: does the final SQL give the gold's result on every neighbour where the gold runs? */
    private Score testSuite(DatasourceConfig ds, String form, String candidate, boolean em) {
        List<DatasourceConfig> copies = neighbours(ds);
        if (copies.isEmpty()) return new Score(true, true, null, em, null);
        int databases = 1;
        for (DatasourceConfig copy : copies) {
            Run gold = gold(copy, form);
            // a data-dependent error of the gold (a division by a value the shuffle made zero): this neighbour tests nothing
            if (gold.error() != null) continue;
            databases++;
            Run cand = run(copy, candidate);
            if (cand.error() != null) return new Score(true, true, false, em, "TS: fails on a neighbour database: " + cand.error(), databases);
            var diff = ResultComparison.difference(gold.table(), cand.table(), ResultComparison.orderKeys(form));
            if (diff.isPresent()) return new Score(true, true, false, em, "TS: right by luck, a neighbour database differs: " + diff.get(), databases);
        }
        return new Score(true, true, true, em, databases == 1 ? "TS: the gold runs on no neighbour database; TS is EX alone here" : null, databases);
    }

    private List<DatasourceConfig> neighbours(DatasourceConfig ds) {
        if (tsCopies <= 0) return List.of();
        return neighbours.computeIfAbsent(ds.jdbcUrl(), k -> {
            try {
                return switch (ds.dialect()) {
                    case DUCKDB -> NeighbourDatabases.duckDb(ds, tsCopies, tsDir, 42);
                    case POSTGRES -> NeighbourDatabases.postgres(ds, tsCopies, postgresAdmin, 42);
                    default -> List.of();
                };
            } catch (Exception e) {
                throw new IllegalStateException("making neighbour databases of " + ds.name() + " failed: " + e.getMessage(), e);
            }
        });
    }

    private Run gold(DatasourceConfig ds, String form) {
        return goldRuns.computeIfAbsent(ds.jdbcUrl() + "\u0000" + form, k -> run(ds, form));
    }

    /**
     * The first accepted gold form the datasource's engine runs (defog's gold is PostgreSQL; a form using, say, a
     * functional-dependency GROUP BY does not run on DuckDB, while another accepted form does); the first form if none.
     */
    public String firstRunnable(EvalCase c) {
        DatasourceConfig ds = datasources.find(c.datasource()).orElse(null);
        for (String form : GoldSql.forms(c.gold())) {
            if (ds != null && gold(ds, form).error() == null) return form;
        }
        return GoldSql.first(c.gold());
    }

    private Run run(DatasourceConfig ds, String sql) {
        ReadOnlyGuard.Verdict verdict = ReadOnlyGuard.check(sql, ds.dialect());
        if (!verdict.allowed()) return new Run(null, "refused: " + verdict.reason());
        if (ChdbUrl.matches(ds.jdbcUrl())) return runOnChdb(ds, verdict.query());
        try {
            Connection conn = connection(ds);
            try (Statement st = conn.createStatement()) {
                st.setQueryTimeout((int) Math.max(1, ds.queryTimeout().toSeconds()));
                st.setMaxRows(MAX_ROWS);
                try (ResultSet rs = st.executeQuery(verdict.query())) {
                    return new Run(ResultComparison.read(rs), null);
                }
            }
        } catch (SQLException e) {
            return new Run(null, e.getMessage() == null ? e.toString() : e.getMessage().lines().findFirst().orElse(""));
        }
    }

    /**
     * A {@code jdbc:chdb:} datasource has no JDBC driver: its queries run on a chDB session of the scorer's own, opened
     * {@code readonly=1} with the datasource's time limit and the scorer's row bound, as the executor's sessions are.
     */
    private Run runOnChdb(DatasourceConfig ds, String sql) {
        try {
            ChdbSession session = chdbSessions.get(ds.jdbcUrl());
            if (session == null) {
                ChdbUrl url = ChdbUrl.of(ds.jdbcUrl());
                session = Chdb.open(url.directory()).session(Map.of("readonly", "1",
                        "max_execution_time", Long.toString(Math.max(1, ds.queryTimeout().toSeconds())),
                        "max_result_rows", Integer.toString(MAX_ROWS), "result_overflow_mode", "break"), url.database());
                chdbSessions.put(ds.jdbcUrl(), session);
            }
            ChdbResult r = session.query(sql);
            return new Run(new ResultComparison.Table(r.columns(), r.typedRows()), null);
        } catch (ChdbException e) {
            return new Run(null, e.getMessage() == null ? e.toString() : e.getMessage().lines().findFirst().orElse(""));
        } catch (IllegalStateException e) {
            return new Run(null, "chDB: " + e.getMessage());
        }
    }

    private Connection connection(DatasourceConfig ds) throws SQLException {
        Connection c = connections.get(ds.jdbcUrl());
        if (c == null || c.isClosed()) {
            c = ReadOnlyJdbc.open(ds);
            connections.put(ds.jdbcUrl(), c);
        }
        return c;
    }

    @Override
    public void close() {
        chdbSessions.values().forEach(ChdbSession::close);
        for (Connection c : connections.values()) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // read-only sessions: nothing to lose
            }
        }
    }

}
