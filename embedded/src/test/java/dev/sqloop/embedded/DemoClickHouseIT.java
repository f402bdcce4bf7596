package dev.sqloop.embedded;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.testkit.TestDirs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code ./sqloop demo --dialect clickhouse}, as the README shows it, through the launcher: the demo's TPC-H warehouse
 * in chDB (its library fetched with npm on a machine that lacks it), the real embedded broker and every stage, the
 * simulated oracle answering in ClickHouse SQL with the demo's fault mix. Every question must end answered, some of them
 * by the correction loop, and the run must print nothing a user reads as trouble. A process of its own: the chDB
 * library and its exit guard stay out of the test JVM.
 */
class DemoClickHouseIT {
    private static final Pattern COUNT = Pattern.compile("^\\s+(first-attempt successes|corrected by repair|failed)\\s+(\\d+)");

    @Test
    void shouldRunTheDemoOnClickHouseWithRepairs() throws Exception {
        Path work = TestDirs.create("sqloop-demo-clickhouse-it-");
        Map<String, String> env = new HashMap<>();
        // the tool cache the test run uses (chDB fetched once per machine), when the run names one
        String tools = System.getenv("SQLOOP_TOOLS_DIR");
        if (tools != null) env.put("SQLOOP_TOOLS_DIR", tools);
        QuietRunIT.Run demo = QuietRunIT.Run.start(work, env, "demo", "--dialect", "clickhouse", "--work-dir", work.resolve("demo").toString());
        assertEquals(0, demo.await(Duration.ofMinutes(15)), demo.joined());
        String out = demo.joined();
        System.out.println(out);
        assertTrue(out.contains("ClickHouse in-process: chDB"), "the warehouse is in chDB:\n" + out);
        Map<String, Integer> counts = new HashMap<>();
        for (String line : demo.output()) {
            Matcher m = COUNT.matcher(line);
            if (m.find()) counts.put(m.group(1), Integer.parseInt(m.group(2)));
        }
        assertEquals(0, counts.get("failed"), "every demo question answered on ClickHouse:\n" + out);
        assertTrue(counts.get("corrected by repair") >= 1, "the fault mix was repaired on ClickHouse:\n" + out);
        assertEquals(40, counts.get("first-attempt successes") + counts.get("corrected by repair"), out);
        try (var runs = Files.list(work.resolve("demo"))) {
            Path run = runs.filter(Files::isDirectory).findFirst().orElseThrow();
            assertTrue(Files.isDirectory(run.resolve("warehouse.chdb")), "the chDB database directory under the work dir");
            assertEquals(40, Files.readAllLines(run.resolve("results.jsonl")).stream().filter(l -> l.contains("\"succeeded\"")).count());
        }
        List<String> alarming = demo.alarming("demo --dialect clickhouse");
        assertTrue(alarming.isEmpty(), "alarming lines:\n" + String.join("\n", alarming));
    }
}
