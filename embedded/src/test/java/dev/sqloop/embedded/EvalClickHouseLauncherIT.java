package dev.sqloop.embedded;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.testkit.TestDirs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The eval command docs/measurements/accuracy.md shows for ClickHouse, through the launcher from the checkout: three
 * chDB datasources in a new directory, {@code --load-defog} filling them, defog's gold translated
 * ({@code --gold-dialect postgres}), the questions of unconfigured datasources skipped. (EvalClickHouseIT checks the
 * scores themselves in this JVM; this checks the command a user types.)
 */
class EvalClickHouseLauncherIT {
    private static final Pattern EX = Pattern.compile("^EX \\(right result\\)\\s+([\\d.]+) %\\s+([\\d.]+) %");

    @Test
    void shouldRunEvalOnTheDefogSetsInChdbFromTheCommandLine() throws Exception {
        Path work = TestDirs.create("sqloop-eval-clickhouse-launcher-");
        Map<String, String> env = new HashMap<>();
        String tools = System.getenv("SQLOOP_TOOLS_DIR");
        if (tools != null) env.put("SQLOOP_TOOLS_DIR", tools);
        for (String db : List.of("restaurants", "broker", "car_dealership")) {
            String key = "SQLOOP_DATASOURCE_" + db.toUpperCase(Locale.ROOT);
            env.put(key + "_DIALECT", "clickhouse");
            env.put(key + "_URL", "jdbc:chdb:" + work.resolve("defog.chdb") + "?database=" + db);
        }
        Path home = Path.of(System.getProperty("sqloop.home", "..")).toAbsolutePath().normalize();
        QuietRunIT.Run eval = QuietRunIT.Run.start(home, env, "eval", "datasets/defog/questions.csv", "--llm", "simulated",
                "--gold-dialect", "postgres", "--load-defog", "--max-attempts", "1,3", "--out", work.resolve("out").toString());
        assertEquals(0, eval.await(Duration.ofMinutes(15)), eval.joined());
        String out = eval.joined();
        System.out.println(out);
        assertTrue(out.contains("loaded defog's broker into chDB"), out);
        assertTrue(out.contains("85 of 120 questions name a datasource that is not configured; evaluating 35"), out);
        Matcher m = eval.output().stream().map(EX::matcher).filter(Matcher::find).findFirst().orElseThrow(() -> new AssertionError(out));
        assertTrue(Double.parseDouble(m.group(2)) > Double.parseDouble(m.group(1)), "retries raise EX on ClickHouse: " + m.group());
        assertTrue(Files.isRegularFile(work.resolve("out/report.md")));
    }
}
