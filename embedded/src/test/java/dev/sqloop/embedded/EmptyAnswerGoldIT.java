package dev.sqloop.embedded;

import dev.sqloop.embedded.pipeline.DemoBatch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.message.EmptyAnswer;
import dev.sqloop.common.message.Execution;
import dev.sqloop.common.message.Issue;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.message.TokenUsage;
import dev.sqloop.executor.EmptyAnswerFinding;
import dev.sqloop.executor.QueryRunner;
import dev.sqloop.executor.ReadOnlyExecutor;
import dev.sqloop.testkit.engines.DefogDatasets;
import dev.sqloop.testkit.engines.DefogQuestions;
import dev.sqloop.testkit.engines.DemoWarehouse;
import dev.sqloop.testkit.engines.PostgresServer;
import dev.sqloop.testkit.llm.Fault;
import dev.sqloop.testkit.llm.Injection;
import dev.sqloop.testkit.llm.OracleResponder;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the empty-answer hint (issue 46) costs on correct SQL: the gold of the demo batch (DuckDB demo warehouse) and of the
 * 120 defog questions (PostgreSQL, their own dialect) run through the executor; every gold answer with no rows or one
 * row of NULLs is printed, with whether the hint would fire (the question asks for rows) and what it names. Each one
 * that fires is listed below with why the gold returns nothing — a repair round (opt-in per datasource) would be spent on
 * it, and the oracle or a model answering the same SQL then ends with the hint, not a failure. Recall the other way: each
 * defog gold with a join gets its first id key swapped for a non-id column (the simulated LLM's silent join), and wherever
 * that runs and returns nothing the hint must name the swapped column.
 */
class EmptyAnswerGoldIT {
    /** Gold answers the hint fires on, by set and index: why nothing is the right answer there. */
    static final Map<String, String> FIRES = new TreeMap<>(Map.of());

    private record Row(String set, String key, String question, long rows, boolean empty, Optional<Issue> hint) {}

    private int swapped;
    private int ran;
    private int silent;
    private int hinted;
    private int named;
    private final List<String> unnamed = new ArrayList<>();

    @Test
    void shouldMeasureTheHintOnGoldSqlThatReturnsNothing(@TempDir Path dir) throws Exception {
        List<Row> rows = new ArrayList<>();
        List<String> failed = new ArrayList<>();
        try (ReadOnlyExecutor executor = new ReadOnlyExecutor()) {
            DatasourceConfig demo = DatasourceConfig.of("demo", Dialect.DUCKDB, "jdbc:duckdb:" + DemoWarehouse.create(dir.resolve("demo.duckdb")),
                    null, null).withLimits(1000, Duration.ofSeconds(30)).withPool(1, Duration.ofSeconds(10));
            for (DemoBatch.Item item : DemoBatch.load().items()) run(executor, demo, "demo", item.id(), item.question(), item.goldSql(), rows, failed);
            PostgresServer pg = PostgresServer.shared();
            Map<String, DatasourceConfig> byDb = new HashMap<>();
            for (String db : DefogDatasets.DATABASES) {
                DefogDatasets.loadIntoPostgres(pg, db);
                byDb.put(db, DatasourceConfig.of("pg_" + db, Dialect.POSTGRES, pg.jdbcUrl(db), PostgresServer.READER,
                        PostgresServer.READER_PASSWORD).withLimits(1000, Duration.ofSeconds(20)).withPool(1, Duration.ofSeconds(5)));
            }
            for (DefogQuestions.Question q : DefogQuestions.load()) {
                run(executor, byDb.get(q.database()), "defog", Integer.toString(q.index()), q.question(), q.firstGold(), rows, failed);
            }
            // the other side: each defog gold with a join, its first id key swapped for a non-id column of the same table
            // (the simulated LLM's silent join); where that runs, the hint must fire and name the join
            Map<String, String> gold = new java.util.LinkedHashMap<>();
            Map<String, DefogQuestions.Question> byQuestion = new java.util.LinkedHashMap<>();
            for (DefogQuestions.Question q : DefogQuestions.load()) {
                gold.put(q.question(), q.firstGold());
                byQuestion.put(q.question(), q);
            }
            Map<String, Fault> all = new java.util.HashMap<>();
            gold.keySet().forEach(q -> all.put(q, Fault.SILENT_JOIN));
            OracleResponder oracle = new OracleResponder(gold, Map.of(), "postgres", 1).withFaults(all);
            for (DefogQuestions.Question q : byQuestion.values()) {
                Injection i = oracle.injectionFor(q.question());
                if (i.fault() != Fault.SILENT_JOIN) continue;
                swapped++;
                QueryRunner.Result r = executor.run(byDb.get(q.database()), i.faultyAnswer());
                if (!(r instanceof QueryRunner.Succeeded s)) continue; // an integer id against a text column: the engine says so
                ran++;
                if (!EmptyAnswer.empty(s.execution())) continue;
                silent++;
                QuestionTask task = QuestionTask.create("j-" + q.index(), "t", "pg", q.question(), 3, Instant.now())
                        .withSql(i.faultyAnswer(), TokenUsage.ZERO);
                Optional<Issue> hint = EmptyAnswerFinding.of(task, Dialect.POSTGRES, s.execution());
                if (hint.isPresent()) hinted++;
                if (hint.map(h -> h.message().contains(i.identifier().toLowerCase(Locale.ROOT))).orElse(false)) named++;
                else if (EmptyAnswer.asksForRows(q.question())) unnamed.add(q.index() + ": " + i.faultyAnswer());
            }
        }
        System.out.println("set   gold  rows  hint  question / finding");
        Map<String, String> fired = new TreeMap<>();
        for (Row r : rows) {
            if (!r.empty()) continue;
            System.out.printf(Locale.ROOT, "%-5s %-5s %4d  %-4s  %s%n", r.set(), r.key(), r.rows(), r.hint().isPresent() ? "yes" : "no",
                    r.question() + r.hint().map(h -> "\n                        " + h.category().wireName() + ": " + h.message()).orElse(""));
            if (r.hint().isPresent()) fired.put(r.set() + " " + r.key(), r.question());
        }
        for (String set : List.of("demo", "defog")) {
            long total = rows.stream().filter(r -> r.set().equals(set)).count();
            long empty = rows.stream().filter(r -> r.set().equals(set) && r.empty()).count();
            long hinted = rows.stream().filter(r -> r.set().equals(set) && r.hint().isPresent()).count();
            long joins = rows.stream().filter(r -> r.set().equals(set) && r.hint().map(h -> h.message().contains("join compares")).orElse(false)).count();
            System.out.printf(Locale.ROOT, "%s: %d gold queries ran, %d returned no rows or one row of NULLs, the hint fires on %d"
                    + " (%.1f %%), naming a join on %d%n", set, total, empty, hinted, 100.0 * hinted / Math.max(1, total), joins);
        }
        System.out.printf(Locale.ROOT, "defog gold with a join key swapped (silent join): %d made, %d ran, %d returned nothing,"
                + " the hint fires on %d and names the swapped column on %d%n", swapped, ran, silent, hinted, named);
        assertEquals(List.of(), failed, "every gold query runs");
        assertTrue(silent > 0, "some swapped joins run and return nothing");
        assertEquals(List.of(), unnamed, "the hint names the swapped join column wherever the question asks for rows");
        assertTrue(rows.size() >= 120, "gold queries run: " + rows.size());
        assertEquals(FIRES.keySet(), fired.keySet(), "the hint fires on exactly the listed gold answers: " + fired);
    }

    private static void run(ReadOnlyExecutor executor, DatasourceConfig ds, String set, String key, String question, String sql,
                            List<Row> rows, List<String> failed) {
        QueryRunner.Result r = executor.run(ds, sql);
        if (!(r instanceof QueryRunner.Succeeded s)) {
            failed.add(set + " " + key + ": " + r);
            return;
        }
        Execution e = s.execution();
        QuestionTask task = QuestionTask.create("q-" + key, "t", ds.name(), question, 3, Instant.now()).withSql(sql, TokenUsage.ZERO);
        rows.add(new Row(set, key, question, e.rowCount(), EmptyAnswer.empty(e), EmptyAnswerFinding.of(task, ds.dialect(), e)));
    }
}
