package dev.sqloop.embedded.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.datasource.Datasources;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * VA, EX, TS and EM as the report computes them, against a computation of its own: the same final SQL run here with
 * plain JDBC on the DuckDB file and on each neighbour database the scorer made, results compared as lists of strings.
 * The set is the issue's: EX low (4 of 10), and two questions right on the original only by luck, so TS (2 of 10)
 * must come out below EX, never "100 %" beside it.
 */
class EvalMetricsTest {
    @TempDir
    static Path dir;
    private static Datasources datasources;

    /** One question, its gold, and the final SQL the pipeline answered (null: the question failed). */
    private record Answer(EvalCase c, String sql) {}

    private static final List<Answer> ANSWERS = List.of(
            answer("q1", "Who scored most?", "SELECT name FROM players ORDER BY score DESC LIMIT 1",
                    "SELECT name FROM players WHERE score = (SELECT max(score) FROM players)"), // right
            answer("q2", "Who scored most, again?", "SELECT name FROM players ORDER BY score DESC LIMIT 1",
                    "SELECT name FROM players WHERE id = 3"), // right by luck: id 3 holds the maximum here only
            answer("q3", "How many players?", "SELECT count(*) FROM players", "SELECT count(*) + 1 FROM players"), // wrong
            answer("q4", "How many players per team?", "SELECT team, count(*) FROM players GROUP BY team",
                    "SELECT team, count(*) FROM players GROUP BY team HAVING count(*) > 6"), // wrong
            answer("q5", "What is the total score?", "SELECT sum(score) FROM players", "SELECT sum(scor) FROM players"), // does not run
            answer("q6", "Which team is best?", "SELECT team FROM players GROUP BY team ORDER BY sum(score) DESC LIMIT 1", null), // failed
            answer("q7", "Who plays for team1?", "SELECT name FROM players WHERE team = 'team1'",
                    "SELECT name FROM players WHERE id IN (1, 4, 7, 10, 13, 16, 19)"), // right by luck: the ids of team1 here
            answer("q8", "What is the average score?", "SELECT avg(score) FROM players", "SELECT avg(score) * 2 FROM players"), // wrong
            answer("q9", "What is the highest id?", "SELECT max(id) FROM players", "select  max(id)\nfrom players;"), // right, same SQL
            answer("q10", "What is the lowest score?", "SELECT min(score) FROM players", "SELECT max(score) FROM players")); // wrong

    private static Answer answer(String id, String question, String gold, String sql) {
        return new Answer(new EvalCase(id, question, gold, "league", "test"), sql);
    }

    @BeforeAll
    static void warehouse() throws Exception {
        Path file = dir.resolve("league.duckdb");
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:" + file); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE players (id INTEGER, name VARCHAR, score INTEGER, team VARCHAR)");
            st.execute("INSERT INTO players SELECT i, 'p' || i, CASE WHEN i = 3 THEN 100 ELSE i END, 'team' || (i % 3) FROM range(1, 21) t(i)");
        }
        datasources = Datasources.of(DatasourceConfig.of("league", Dialect.DUCKDB, "jdbc:duckdb:" + file, null, null));
    }

    private static EvalReport score(Path tsDir) {
        List<Eval.Row> rows = new ArrayList<>();
        try (Scorer scorer = new Scorer(datasources, 3, tsDir, null)) {
            for (Answer a : ANSWERS) {
                rows.add(new Eval.Row(a.c(), 1, a.sql() == null ? "failed" : "succeeded", a.sql() == null ? "max_attempts" : "first_attempt_success",
                        1, a.sql(), a.sql() == null ? "SELECT nothing" : null, null, 10, scorer.score(a.c(), a.sql())));
            }
        }
        return new EvalReport(ANSWERS.stream().map(Answer::c).toList(), List.of(1), rows, Map.of(1, 1.0), datasources, Map.of());
    }

    @Test
    void shouldAgreeWithAnIndependentComputationAndKeepTsAtOrBelowEx() throws Exception {
        Path tsDir = dir.resolve("ts");
        EvalReport report = score(tsDir);
        List<Path> neighbours;
        try (Stream<Path> files = Files.list(tsDir)) {
            neighbours = files.filter(f -> f.toString().endsWith(".duckdb")).sorted().toList();
        }
        assertEquals(3, neighbours.size(), "--ts 3: three neighbour databases");

        int va = 0, ex = 0, ts = 0, em = 0;
        List<String> perQuestion = new ArrayList<>();
        Path original = dir.resolve("league.duckdb");
        for (Answer a : ANSWERS) {
            if (a.sql() == null) continue; // a failed question has no final SQL: none of the four
            List<String> answer = run(original, a.sql());
            if (answer == null) continue;
            va++;
            boolean ordered = a.c().gold().toUpperCase(Locale.ROOT).contains("ORDER BY");
            boolean right = same(run(original, a.c().gold()), answer, ordered);
            boolean everywhere = right;
            for (Path n : neighbours) {
                List<String> gold = run(n, a.c().gold());
                if (gold != null) everywhere &= same(gold, run(n, a.sql()), ordered);
            }
            if (right) ex++;
            if (everywhere) ts++;
            if (normalized(a.sql()).equals(normalized(a.c().gold()))) em++;
            perQuestion.add(a.c().id() + (right ? " EX" : "") + (everywhere ? " TS" : ""));
        }
        System.out.println("independent: VA " + va + ", EX " + ex + ", TS " + ts + ", EM " + em + " of " + ANSWERS.size() + " " + perQuestion);
        System.out.print(report.comparison());

        EvalReport.Summary s = report.summary(1);
        assertEquals(List.of(10, va, ex, ts, em), List.of(s.questions(), s.va(), s.ex(), s.ts(), s.em()), "questions, VA, EX, TS, EM");
        assertEquals(List.of(8, 4, 2, 1), List.of(va, ex, ts, em), "the set is as designed: EX low, two right by luck");
        assertEquals(10, s.tsScope(), "every question of a datasource with neighbours is in TS's scope, the failed ones too");
        assertTrue(s.tsRate() <= s.exRate(), "TS " + s.tsRate() + " must not exceed EX " + s.exRate());
        assertTrue(shows(report, "EX \\(right result\\)", "40.0 %"), report.comparison());
        assertTrue(shows(report, "TS \\(EX \\+ every neighbour\\)", "20.0 %"), report.comparison());
    }

    /** The report: TS divided by the questions EX got right showed 100 % beside EX 30 %. */
    @Test
    void shouldDivideTsByEveryQuestionInItsScopeNotByTheOnesExGotRight() {
        List<EvalCase> cases = new ArrayList<>();
        List<Eval.Row> rows = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            EvalCase c = new EvalCase("q" + i, "question " + i, "SELECT " + i, "league", "test");
            cases.add(c);
            boolean right = i < 3;
            boolean runs = i < 6;
            // right ones are right everywhere; wrong ones are in scope, TS false; failed ones have no SQL
            rows.add(new Eval.Row(c, 3, runs ? "succeeded" : "failed", runs ? "first_attempt_success" : "max_attempts", 1,
                    runs ? "SELECT x" : null, runs ? null : "SELECT y", null, 5,
                    new Scorer.Score(runs, right, right, false, null, right ? 4 : 0)));
        }
        EvalReport report = new EvalReport(cases, List.of(3), rows, Map.of(), datasources, Map.of());
        EvalReport.Summary s = report.summary(3);
        assertEquals(0.3, s.exRate(), 1e-9);
        assertEquals(0.3, s.tsRate(), 1e-9, "3 right everywhere of 10 questions, not of the 3 EX got right");
        assertTrue(shows(report, "TS \\(EX \\+ every neighbour\\)", "30.0 %"), report.comparison());
    }

    @Test
    void shouldNeverScoreTsWithoutEx() {
        assertThrows(IllegalArgumentException.class, () -> new Scorer.Score(true, false, true, false, null, 4));
        try (Scorer scorer = new Scorer(datasources, 2, dir.resolve("ts-none"), null)) {
            Scorer.Score failed = scorer.score(ANSWERS.get(5).c(), null);
            assertEquals(Boolean.FALSE, failed.ts(), "a failed question on a datasource with neighbours is TS false, not unmeasured");
            Scorer.Score broken = scorer.score(ANSWERS.get(4).c(), ANSWERS.get(4).sql());
            assertEquals(Boolean.FALSE, broken.ts(), "SQL that does not run is TS false: " + broken);
        }
        try (Scorer scorer = new Scorer(datasources)) {
            assertEquals(null, scorer.score(ANSWERS.getFirst().c(), ANSWERS.getFirst().sql()).ts(), "no neighbours: outside TS's scope");
        }
    }

    /** Whether the printed comparison has a line {@code label} whose only figure is {@code value}. */
    private static boolean shows(EvalReport report, String label, String value) {
        return java.util.regex.Pattern.compile("(?m)^" + label + " +" + java.util.regex.Pattern.quote(value) + "$").matcher(report.comparison()).find();
    }

    /** The rows of {@code sql} on {@code file} as strings, or null when it does not run. */
    private static List<String> run(Path file, String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:" + file); Statement st = c.createStatement()) {
            List<String> rows = new ArrayList<>();
            try (ResultSet rs = st.executeQuery(sql)) {
                int n = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    StringBuilder row = new StringBuilder();
                    for (int i = 1; i <= n; i++) row.append(rs.getString(i)).append('|');
                    rows.add(row.toString());
                }
            }
            return rows;
        } catch (SQLException e) {
            return null;
        }
    }

    private static boolean same(List<String> gold, List<String> answer, boolean ordered) {
        if (gold == null || answer == null) return false;
        if (ordered) return gold.equals(answer);
        return gold.stream().sorted().toList().equals(answer.stream().sorted().toList());
    }

    private static String normalized(String sql) {
        String s = sql.strip().replaceAll("\\s+", " ").toLowerCase(Locale.ROOT);
        return s.endsWith(";") ? s.substring(0, s.length() - 1).strip() : s;
    }
}
