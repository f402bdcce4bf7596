package dev.sqloop.embedded.eval;

import dev.sqloop.testkit.TestDirs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.testkit.engines.DefogDatasets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code ./sqloop eval} on defog databases in DuckDB, through the whole pipeline with the simulated oracle. With no
 * faults the harness must score the gold against itself 100 % EX; with the demo's fault mix, retries must raise EX.
 */
class EvalIT {
    private static final List<String> DATABASES = List.of("restaurants", "broker", "car_dealership");
    private static final Map<String, String> settings = new HashMap<>();
    private static List<EvalCase> cases;

    @BeforeAll
    static void warehouses() throws Exception {
        Path dir = TestDirs.create("sqloop-eval-it-");
        for (String db : DATABASES) {
            Path file = DefogDatasets.loadIntoDuckDb(db, dir.resolve(db + ".duckdb"));
            String key = "SQLOOP_DATASOURCE_" + db.toUpperCase(java.util.Locale.ROOT);
            settings.put(key + "_DIALECT", "duckdb");
            settings.put(key + "_URL", "jdbc:duckdb:" + file.toAbsolutePath());
        }
        cases = EvalCase.load(DefogDatasets.questionsCsv(), Map.of(), null).stream()
                .filter(c -> Set.copyOf(DATABASES).contains(c.datasource())).toList();
    }

    @Test
    void shouldScoreTheGoldAgainstItselfAtOneHundredPercent() throws Exception {
        EvalReport report = Eval.evaluate(cases, List.of(3), settings, TestDirs.create("eval-gold-"),
                new Eval.Options(null, null, "simulated", "none", 7, 2));
        System.out.print(report.comparison());
        List<String> misses = report.rows().stream().filter(r -> !r.score().ex())
                .map(r -> r.c().id() + " " + r.c().datasource() + ": " + r.reason() + " " + r.score().note()).toList();
        assertEquals(List.of(), misses, "gold through the pipeline must score EX");
        assertEquals(cases.size(), report.summary(3).ex());
        assertEquals(cases.size(), report.summary(3).tsScope(), "every DuckDB question is also scored on neighbour databases");
        List<String> tsMisses = report.rows().stream().filter(r -> !Boolean.TRUE.equals(r.score().ts()))
                .map(r -> r.c().id() + ": " + r.score().note()).toList();
        assertEquals(List.of(), tsMisses, "the gold itself is right on every neighbour");
    }

    @Test
    void shouldScoreTheGoldAgainstItselfOnPostgresToo() throws Exception {
        var pg = dev.sqloop.testkit.engines.PostgresServer.shared();
        Map<String, String> pgSettings = new HashMap<>();
        for (String db : List.of("broker", "car_dealership")) {
            DefogDatasets.loadIntoPostgres(pg, db);
            String key = "SQLOOP_DATASOURCE_" + db.toUpperCase(java.util.Locale.ROOT);
            pgSettings.put(key + "_DIALECT", "postgres");
            pgSettings.put(key + "_URL", pg.jdbcUrl(db));
            pgSettings.put(key + "_USER", dev.sqloop.testkit.engines.PostgresServer.READER);
            pgSettings.put(key + "_PASSWORD", dev.sqloop.testkit.engines.PostgresServer.READER_PASSWORD);
        }
        pgSettings.put("SQLOOP_EVAL_TS_USER", dev.sqloop.testkit.engines.PostgresServer.SUPERUSER);
        List<EvalCase> pgCases = cases.stream().filter(c -> !c.datasource().equals("restaurants")).toList();
        EvalReport report = Eval.evaluate(pgCases, List.of(3), pgSettings, TestDirs.create("eval-pg-"),
                new Eval.Options(null, null, "simulated", "none", 7, 2));
        System.out.print(report.comparison());
        assertEquals(List.of(), report.rows().stream().filter(r -> !r.score().ex())
                .map(r -> r.c().id() + " " + r.c().datasource() + ": " + r.reason() + " " + r.score().note()).toList());
        assertEquals(pgCases.size(), report.summary(3).tsScope(), "every question is also scored on neighbour databases in PostgreSQL");
        assertEquals(List.of(), report.rows().stream().filter(r -> !Boolean.TRUE.equals(r.score().ts()))
                .map(r -> r.c().id() + ": " + r.score().note()).toList(), "the gold itself is right on every neighbour");
    }

    @Test
    void shouldMakeNeighbourDatabasesWithEveryTableItsValuesShuffled() throws Exception {
        for (String db : DATABASES) {
            var ds = dev.sqloop.common.datasource.Datasources.fromEnv(new dev.sqloop.common.config.EnvConfig(settings)).get(db);
            var copy = NeighbourDatabases.duckDb(ds, 1, TestDirs.create("ts-"), 1).getFirst();
            long tables = 0;
            long moved = 0;
            try (var c = java.sql.DriverManager.getConnection(copy.jdbcUrl()); var st = c.createStatement()) {
                st.execute("ATTACH '" + ds.jdbcUrl().substring("jdbc:duckdb:".length()) + "' AS orig (READ_ONLY)");
                var names = new java.util.ArrayList<String>();
                try (var rs = st.executeQuery("SELECT table_name FROM information_schema.tables WHERE table_catalog = 'orig' AND table_type = 'BASE TABLE'")) {
                    while (rs.next()) names.add(rs.getString(1));
                }
                for (String t : names) {
                    tables++;
                    try (var rs = st.executeQuery("SELECT (SELECT count(*) FROM orig.\"" + t + "\") - (SELECT count(*) FROM \"" + t + "\"), "
                            + "(SELECT count(*) FROM (SELECT * FROM orig.\"" + t + "\" EXCEPT ALL SELECT * FROM \"" + t + "\"))")) {
                        rs.next();
                        assertEquals(0, rs.getLong(1), db + "." + t + " keeps its row count");
                        moved += rs.getLong(2);
                    }
                }
            }
            System.out.printf("%s: %d tables, %d rows changed in the neighbour%n", db, tables, moved);
            assertTrue(tables > 0 && moved > 0, db + ": the neighbour must differ from the original");
        }
    }

    @Test
    void shouldShowRetriesRaisingAccuracyUnderTheFaultMix() throws Exception {
        Path out = TestDirs.create("eval-faults-");
        EvalReport report = Eval.evaluate(cases, List.of(1, 3), settings, out, new Eval.Options(null, null, "simulated", "default", 7, 0));
        System.out.print(report.comparison());
        EvalReport.Summary once = report.summary(1);
        EvalReport.Summary retry = report.summary(3);
        assertEquals(cases.size(), once.questions());
        assertEquals(cases.size(), retry.questions());
        assertEquals(0, once.corrected(), "max attempts 1 corrects nothing");
        assertTrue(retry.ex() > once.ex(), "retries raise EX: " + once.ex() + " -> " + retry.ex());
        assertTrue(Files.readString(out.resolve("report.md")).contains("EX by query category"));
        assertTrue(Files.readString(out.resolve("report.html")).contains("Retry vs no retry"));
        for (int m : List.of(1, 3)) {
            assertEquals(report.outcomes(m), report.pipelineOutcomes(m), "the report's counts equal the pipeline's own metrics");
        }
        assertEquals(2L * cases.size(), Files.readAllLines(out.resolve("questions.jsonl")).size());
    }
}
