package dev.sqloop.embedded.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.datasource.Datasources;
import dev.sqloop.embedded.pipeline.LocalChdb;
import dev.sqloop.testkit.TestDirs;
import dev.sqloop.testkit.engines.ChdbLibrary;
import dev.sqloop.testkit.engines.DefogDatasets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code ./sqloop eval} on ClickHouse: the defog databases {@code restaurants}, {@code broker} and {@code car_dealership}
 * (EvalIT's 35 questions on DuckDB) loaded into chDB as {@code --load-defog} loads them, datasources
 * {@code jdbc:chdb:DIR?database=NAME}, the PostgreSQL gold translated as {@code --gold-dialect postgres} translates it,
 * through the whole pipeline with the simulated oracle answering in ClickHouse SQL; gold and final SQL scored on chDB.
 */
class EvalClickHouseIT {
    private static final List<String> DATABASES = List.of("restaurants", "broker", "car_dealership");
    /**
     * Translated gold ClickHouse refuses (the oracle answers gold, so these cannot succeed); the same questions as
     * DefogGoldValidationIT's answer exceptions, refused here because the executor runs without its two settings.
     */
    static final Map<String, String> GOLD_REFUSED = Map.of(
            "q114", "timestamp - date: ILLEGAL_TYPE_OF_ARGUMENT (ClickHouse writes dateDiff)",
            "q116", "date - date: ILLEGAL_TYPE_OF_ARGUMENT (ClickHouse writes dateDiff)",
            "q119", "max(snapshot_date) AS snapshot_date: the alias shadows the column in WHERE (ILLEGAL_AGGREGATION)");
    private static final Map<String, String> settings = new HashMap<>();
    private static List<EvalCase> cases;

    @BeforeAll
    static void load() throws Exception {
        Path dir = ChdbLibrary.jvmDatabaseDir();
        for (String db : DATABASES) {
            String key = "SQLOOP_DATASOURCE_" + db.toUpperCase(Locale.ROOT);
            settings.put(key + "_DIALECT", "clickhouse");
            settings.put(key + "_URL", "jdbc:chdb:" + dir + "?database=" + db);
        }
        LocalChdb.loadDefog(settings, TestDirs.create("eval-clickhouse-parquet-"), System.out);
        List<EvalCase> defog = EvalCase.load(DefogDatasets.questionsCsv(), Map.of(), null).stream()
                .filter(c -> Set.copyOf(DATABASES).contains(c.datasource())).toList();
        cases = Eval.translateGold(defog, Dialect.POSTGRES, Datasources.dialectsFromEnv(new EnvConfig(settings)));
        assertEquals(defog.size(), cases.size());
        assertTrue(java.util.stream.IntStream.range(0, cases.size()).anyMatch(i -> !cases.get(i).gold().equals(defog.get(i).gold())),
                "the gold was translated into ClickHouse's dialect");
    }

    @Test
    void shouldScoreTheTranslatedGoldAgainstItselfOnClickHouse() throws Exception {
        EvalReport report = Eval.evaluate(cases, List.of(3), settings, TestDirs.create("eval-clickhouse-gold-"),
                new Eval.Options(null, null, "simulated", "none", 7, 0));
        System.out.print(report.comparison());
        Map<String, String> misses = new TreeMap<>();
        report.rows().stream().filter(r -> !r.score().ex()).forEach(r -> misses.put(r.c().id(), r.reason() + " " + r.score().note()
                + (r.firstError() == null ? "" : " " + r.firstError().message())));
        assertEquals(new TreeMap<>(GOLD_REFUSED).keySet(), misses.keySet(), "every translated gold the engine runs scores EX: " + misses);
        assertEquals(cases.size() - GOLD_REFUSED.size(), report.summary(3).ex());
        assertEquals(report.outcomes(3), report.pipelineOutcomes(3), "the report's counts equal the pipeline's metrics");
    }

    @Test
    void shouldRaiseExactMatchesWithRetriesOnClickHouse() throws Exception {
        EvalReport report = Eval.evaluate(cases, List.of(1, 3), settings, TestDirs.create("eval-clickhouse-faults-"),
                new Eval.Options(null, null, "simulated", "default", 7, 0));
        System.out.print(report.comparison());
        EvalReport.Summary one = report.summary(1);
        EvalReport.Summary three = report.summary(3);
        assertEquals(0, one.corrected(), "one attempt corrects nothing");
        assertTrue(three.corrected() >= 1, "the correction loop repaired the oracle's faults on ClickHouse");
        assertTrue(three.ex() > one.ex(), "retries raise EX: " + one.ex() + " -> " + three.ex());
        assertTrue(three.ex() <= cases.size() - GOLD_REFUSED.size(), "no more than the gold the engine runs");
        for (int m : List.of(1, 3)) assertEquals(report.outcomes(m), report.pipelineOutcomes(m), "metrics agree at max attempts " + m);
    }
}
