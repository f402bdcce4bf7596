package dev.sqloop.embedded.eval;

import dev.sqloop.testkit.TestDirs;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sqloop.common.sql.GoldSql;
import dev.sqloop.testkit.engines.DefogDatasets;
import dev.sqloop.testkit.engines.TrinoServer;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The harness check on Trino: gold against gold through the whole pipeline (simulated oracle, no faults) scores
 * EX = 100 %. The defog databases are in the memory catalog of the Trino server the test run shares
 * ({@link TrinoServer#shared()}, loaded once per server); the gold, PostgreSQL, is given in Trino's dialect (testkit's
 * translation, every accepted form). A handful of questions: two small databases.
 */
class EvalTrinoIT {
    private static final List<String> DATABASES = List.of("broker", "car_dealership");

    @Test
    void shouldScoreTheGoldAgainstItselfOnTrino() throws Exception {
        TrinoServer trino = TrinoServer.shared();
        DefogDatasets.loadIntoTrino(trino);
        Map<String, String> settings = new HashMap<>();
        for (String db : DATABASES) {
            String key = "SQLOOP_DATASOURCE_" + db.toUpperCase(Locale.ROOT);
            settings.put(key + "_DIALECT", "trino");
            settings.put(key + "_URL", trino.jdbcUrl("memory", db));
            settings.put(key + "_USER", "sqloop"); // any user but the loader reads only (the server's access control)
        }
        List<EvalCase> cases = EvalCase.load(DefogDatasets.questionsCsv(), Map.of(), null).stream()
                .filter(c -> Set.copyOf(DATABASES).contains(c.datasource()))
                .map(c -> new EvalCase(c.id(), c.question(), GoldSql.forms(c.gold()).stream()
                        .map(form -> DefogDatasets.trinoQuery(c.datasource(), form)).collect(Collectors.joining(";\n")),
                        c.datasource(), c.category()))
                .toList();
        EvalReport report = Eval.evaluate(cases, List.of(3), settings, TestDirs.create("eval-trino-"),
                new Eval.Options(null, null, "simulated", "none", 7, 0));
        System.out.print(report.comparison());
        assertEquals(List.of(), report.rows().stream().filter(r -> !r.score().ex())
                .map(r -> r.c().id() + " " + r.c().datasource() + ": " + r.reason() + " " + r.score().note() + "\n    " + r.c().gold()).toList(),
                "gold through the pipeline on Trino must score EX");
        assertEquals(cases.size(), report.summary(3).ex());
        assertEquals(report.outcomes(3), report.pipelineOutcomes(3), "the report's counts equal the pipeline's metrics");
    }
}
