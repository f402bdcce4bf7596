package dev.sqloop.embedded.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.datasource.Datasources;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The scorer on a real DuckDB file: EX by values, TS catching a query right by luck, refusals never run. */
class ScorerTest {
    @TempDir
    static Path dir;
    private static Datasources datasources;

    @BeforeAll
    static void warehouse() throws Exception {
        Path file = dir.resolve("league.duckdb");
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:" + file); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE players (id INTEGER, name VARCHAR, score INTEGER, team VARCHAR)");
            st.execute("INSERT INTO players SELECT i, 'p' || i, CASE WHEN i = 3 THEN 100 ELSE i END, 'team' || (i % 3) FROM range(1, 21) t(i)");
        }
        datasources = Datasources.of(DatasourceConfig.of("league", Dialect.DUCKDB, "jdbc:duckdb:" + file, null, null));
    }

    private static EvalCase gold(String sql) {
        return new EvalCase("q1", "Who scored most?", sql, "league", "order_by");
    }

    @Test
    void shouldFlagAQueryRightByLuckOnNeighbourDatabases() {
        EvalCase best = gold("SELECT name FROM players ORDER BY score DESC LIMIT 1");
        try (Scorer scorer = new Scorer(datasources, 3, dir.resolve("ts"), null)) {
            Scorer.Score right = scorer.score(best, "SELECT name FROM players WHERE score = (SELECT max(score) FROM players)");
            Scorer.Score lucky = scorer.score(best, "SELECT name FROM players WHERE id = 3");
            assertTrue(right.ex() && Boolean.TRUE.equals(right.ts()), "a right query is right everywhere: " + right);
            assertTrue(lucky.ex(), "on the original data the lucky query gives the gold's answer");
            assertEquals(Boolean.FALSE, lucky.ts(), "a neighbour database shows it was luck: " + lucky);
            assertTrue(lucky.note().startsWith("TS:"), lucky.note());
        }
    }

    @Test
    void shouldCompareByValuesAcceptAnyGoldFormAndNeverRunAWrite() {
        try (Scorer scorer = new Scorer(datasources)) {
            Scorer.Score unordered = scorer.score(gold("SELECT team, count(*) FROM players GROUP BY team"),
                    "SELECT team, count(id) AS n FROM players GROUP BY 1 ORDER BY 1 DESC");
            assertTrue(unordered.ex(), "rows are a multiset when the gold does not order: " + unordered);
            assertEquals(null, unordered.ts(), "no TS without neighbour databases");
            assertTrue(scorer.score(gold("SELECT {id, name} FROM players WHERE score > 50"), "SELECT name FROM players WHERE score > 50").ex(),
                    "either column of a {a, b} choice is accepted");
            Scorer.Score wrong = scorer.score(gold("SELECT count(*) FROM players"), "SELECT count(*) + 1 FROM players");
            assertTrue(wrong.va() && !wrong.ex(), wrong.toString());
            Scorer.Score write = scorer.score(gold("SELECT count(*) FROM players"), "DROP TABLE players");
            assertFalse(write.va(), "a write is refused by the executor's guard, not run");
            assertTrue(write.note().contains("refused"), write.note());
            assertEquals(20, scorer.score(gold("SELECT count(*) FROM players"), "SELECT count(*) FROM players").ex() ? 20 : 0,
                    "the table is still there");
        }
    }
}
