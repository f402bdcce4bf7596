package dev.sqloop.embedded.eval;

import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.datasource.Datasources;
import dev.sqloop.common.datasource.ReadOnlyJdbc;
import dev.sqloop.common.sql.SqlNormalizer;
import dev.sqloop.executor.ReadOnlyGuard;
import dev.sqloop.testkit.engines.ResultComparison;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;

/**
 * Scores one final SQL against a question's gold, running both as the executor runs a query: through the
 * executor's read-only guard (one read-only query, on its parse tree) on a read-only JDBC session with the
 * datasource's time limit. A result's SQL is only ever a statement that ran, but a gold file is input too: anything
 * the guard refuses is not run, whichever side it is on.
 *
 * <ul>
 *   <li><b>VA</b>: the final SQL executes;</li>
 *   <li><b>EX</b>: its result equals one accepted gold form's result by values ({@link ResultComparison}: rows a multiset
 *       unless the gold orders, relative float tolerance {@value ResultComparison#TOLERANCE});</li>
 *   <li><b>EM</b>: the same statement as a gold form after normalization (diagnostic only).</li>
 * </ul>
 */
public final class Scorer implements AutoCloseable {
    static final int MAX_ROWS = 100_000;

    public record Score(boolean va, boolean ex, boolean em, String note) {}

    private record Run(ResultComparison.Table table, String error) {}

    private final Datasources datasources;
    private final Map<String, Connection> connections = new HashMap<>();
    private final Map<String, Run> goldRuns = new HashMap<>();

    public Scorer(Datasources datasources) {
        this.datasources = datasources;
    }

    public Score score(EvalCase c, String candidate) {
        if (candidate == null || candidate.isBlank()) return new Score(false, false, false, "no final SQL");
        Run cand = run(c.datasource(), candidate);
        if (cand.error() != null) return new Score(false, false, false, "final SQL does not execute: " + cand.error());
        boolean em = false;
        String lastDifference = null;
        for (String form : GoldSql.forms(c.gold())) {
            em |= SqlNormalizer.sameStatement(candidate, form);
            Run gold = goldRuns.computeIfAbsent(c.datasource() + "\u0000" + form, k -> run(c.datasource(), form));
            if (gold.error() != null) {
                lastDifference = "gold does not execute: " + gold.error();
                continue;
            }
            var diff = ResultComparison.difference(gold.table(), cand.table(), ResultComparison.orderKeys(form));
            if (diff.isEmpty()) return new Score(true, true, em, null);
            lastDifference = diff.get();
        }
        return new Score(true, false, em, lastDifference);
    }

    /**
     * The first accepted gold form the datasource's engine runs (defog's gold is PostgreSQL; a form using, say, a
     * functional-dependency GROUP BY does not run on DuckDB, while another accepted form does); the first form if none.
     */
    public String firstRunnable(EvalCase c) {
        for (String form : GoldSql.forms(c.gold())) {
            Run gold = goldRuns.computeIfAbsent(c.datasource() + "\u0000" + form, k -> run(c.datasource(), form));
            if (gold.error() == null) return form;
        }
        return GoldSql.first(c.gold());
    }

    private Run run(String datasource, String sql) {
        DatasourceConfig ds = datasources.find(datasource).orElse(null);
        if (ds == null) return new Run(null, "unknown datasource '" + datasource + "'");
        ReadOnlyGuard.Verdict verdict = ReadOnlyGuard.check(sql, ds.dialect());
        if (!verdict.allowed()) return new Run(null, "refused: " + verdict.reason());
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

    private Connection connection(DatasourceConfig ds) throws SQLException {
        Connection c = connections.get(ds.name());
        if (c == null || c.isClosed()) {
            c = ReadOnlyJdbc.open(ds);
            connections.put(ds.name(), c);
        }
        return c;
    }

    @Override
    public void close() {
        for (Connection c : connections.values()) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // read-only sessions: nothing to lose
            }
        }
    }

}
