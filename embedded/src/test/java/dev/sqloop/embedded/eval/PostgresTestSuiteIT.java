package dev.sqloop.embedded.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.datasource.Datasources;
import dev.sqloop.common.datasource.ReadOnlyJdbc;
import dev.sqloop.testkit.engines.PostgresServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Test-suite accuracy on PostgreSQL (testkit's cluster): neighbour databases made on the same server by an
 * administrative login, read by the datasource's SELECT-only login. The gold and a right query pass TS; a query
 * right by luck on the original (a hard-coded id that happens to hold the maximum) fails it.
 */
class PostgresTestSuiteIT {
    private static final String DB = "ts_league";
    private static PostgresServer pg;
    private static DatasourceConfig ds;

    @BeforeAll
    static void warehouse() throws SQLException {
        pg = PostgresServer.shared();
        pg.createDatabase(DB);
        try (Connection c = pg.superuser(DB); Statement st = c.createStatement()) {
            st.execute("DROP SCHEMA IF EXISTS league CASCADE");
            st.execute("DROP TABLE IF EXISTS players");
            st.execute("CREATE TABLE players (id integer PRIMARY KEY, name varchar(20), score numeric(6,1), team_id integer)");
            st.execute("INSERT INTO players SELECT i, 'p' || i, CASE WHEN i = 3 THEN 100 ELSE i END, i % 3 FROM generate_series(1, 20) i");
            // a second schema and a view: copied too, so schema-qualified names and views read the neighbour
            st.execute("CREATE SCHEMA league");
            st.execute("CREATE TABLE league.teams (id integer PRIMARY KEY, city text)");
            st.execute("INSERT INTO league.teams VALUES (0, 'Oslo'), (1, 'Lima'), (2, 'Pune')");
            st.execute("CREATE VIEW league.roster AS SELECT p.name, t.city FROM players p JOIN league.teams t ON t.id = p.team_id");
        }
        pg.grantReadOnly(DB);
        try (Connection c = pg.superuser(DB); Statement st = c.createStatement()) {
            st.execute("GRANT USAGE ON SCHEMA league TO " + PostgresServer.READER);
            st.execute("GRANT SELECT ON ALL TABLES IN SCHEMA league TO " + PostgresServer.READER);
        }
        ds = DatasourceConfig.of("league", Dialect.POSTGRES, pg.jdbcUrl(DB), PostgresServer.READER, PostgresServer.READER_PASSWORD);
    }

    private static EvalCase gold(String sql) {
        return new EvalCase("q1", "Who scored most?", sql, "league", "order_by");
    }

    private static Scorer scorer() {
        return new Scorer(Datasources.of(ds), 3, null, new NeighbourDatabases.Admin(PostgresServer.SUPERUSER, ""));
    }

    @Test
    void shouldFlagAQueryRightByLuckOnNeighbourDatabases() {
        EvalCase best = gold("SELECT name FROM players ORDER BY score DESC LIMIT 1");
        try (Scorer scorer = scorer()) {
            Scorer.Score self = scorer.score(best, best.gold());
            Scorer.Score right = scorer.score(best, "SELECT name FROM players WHERE score = (SELECT max(score) FROM players)");
            Scorer.Score lucky = scorer.score(best, "SELECT name FROM players WHERE id = 3");
            assertEquals(Boolean.TRUE, self.ts(), "the gold is right on every neighbour: " + self);
            assertTrue(right.ex() && Boolean.TRUE.equals(right.ts()), "a right query is right everywhere: " + right);
            assertTrue(lucky.ex(), "on the original data the lucky query gives the gold's answer: " + lucky);
            assertEquals(Boolean.FALSE, lucky.ts(), "a neighbour database shows it was luck: " + lucky);
            assertTrue(lucky.note().startsWith("TS:"), lucky.note());

            // a schema-qualified table and a view read the neighbour's copies, not the original
            EvalCase cities = gold("SELECT city FROM league.roster WHERE name = (SELECT name FROM players ORDER BY score DESC LIMIT 1)");
            assertEquals(Boolean.TRUE, scorer.score(cities, cities.gold()).ts(), "views and other schemas are copied");
            Scorer.Score luckyCity = scorer.score(cities, "SELECT city FROM league.teams WHERE id = 0");
            assertTrue(luckyCity.ex(), luckyCity.toString());
            assertEquals(Boolean.FALSE, luckyCity.ts(), "qualified names read the neighbour too: " + luckyCity);

            // PostgreSQL accepts selecting other columns when grouping by the primary key: the neighbours keep it
            EvalCase byKey = gold("SELECT p.id, p.name, count(*) FROM players p JOIN league.teams t ON t.id = p.team_id GROUP BY p.id");
            Scorer.Score grouped = scorer.score(byKey, byKey.gold());
            assertEquals(Boolean.TRUE, grouped.ts(), "a GROUP BY relying on the primary key runs on the neighbours: " + grouped);
        }
    }

    @Test
    void shouldMakeNeighboursTheDatasourceLoginOnlyReadsAndLeaveTheOriginalAlone() throws Exception {
        List<DatasourceConfig> copies = NeighbourDatabases.postgres(ds, 2, new NeighbourDatabases.Admin(PostgresServer.SUPERUSER, ""), 9);
        assertEquals(List.of(pg.jdbcUrl(DB + "_sqloop_ts1"), pg.jdbcUrl(DB + "_sqloop_ts2")), copies.stream().map(DatasourceConfig::jdbcUrl).toList());
        try (Connection c = ReadOnlyJdbc.open(copies.getFirst()); Statement st = c.createStatement()) {
            try (ResultSet rs = st.executeQuery("SELECT count(*), sum(score), sum(id), "
                    + "count(*) FILTER (WHERE name <> 'p' || id) FROM players")) {
                rs.next();
                assertEquals(20, rs.getInt(1), "every row is kept");
                assertEquals(0, new java.math.BigDecimal("307.0").compareTo(rs.getBigDecimal(2)), "a column keeps its values");
                assertEquals(210, rs.getInt(3), "key columns are kept");
                assertTrue(rs.getInt(4) > 0, "non-key columns are shuffled across rows");
            }
            try (ResultSet rs = st.executeQuery("SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
                    + "WHERE attrelid = 'players'::regclass AND attname = 'score'")) {
                rs.next();
                assertEquals("numeric(6,1)", rs.getString(1), "column types are kept");
            }
            SQLException write = assertThrows(SQLException.class, () -> st.execute("DELETE FROM players"));
            assertTrue(write.getMessage().contains("read-only") || write.getMessage().contains("permission denied"), write.getMessage());
        }
        try (Connection c = pg.superuser(DB + "_sqloop_ts1"); Statement st = c.createStatement()) {
            SQLException write = assertThrows(SQLException.class, () -> st.execute("SET ROLE " + PostgresServer.READER + "; CREATE TABLE public.x (i int)"));
            assertTrue(write.getMessage().contains("permission denied"), "the reader may not create tables either: " + write.getMessage());
        }
        try (Connection c = pg.superuser(DB); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*) FILTER (WHERE name = 'p' || id), count(*) FILTER (WHERE id = 3 AND score = 100) FROM players")) {
            rs.next();
            assertEquals(20, rs.getInt(1), "the original is unchanged");
            assertEquals(1, rs.getInt(2));
        }
    }
}
