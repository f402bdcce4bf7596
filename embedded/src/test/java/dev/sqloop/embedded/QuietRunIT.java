package dev.sqloop.embedded;

import dev.sqloop.embedded.pipeline.DemoBatch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.cli.GatewayClient;
import dev.sqloop.cli.SubmitCommand;
import dev.sqloop.testkit.Ports;
import dev.sqloop.testkit.TestDirs;
import dev.sqloop.testkit.engines.DemoWarehouse;
import dev.sqloop.testkit.llm.Latency;
import dev.sqloop.testkit.llm.OracleResponder;
import dev.sqloop.testkit.llm.SimulatedLlm;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What a user sees on the terminal in normal runs, read from the real processes the launcher starts
 * ({@code ./sqloop demo}, {@code ./sqloop serve}, SIGTERM, {@code ./sqloop serve} again on the same data directory): no
 * ERROR, WARN or WARNING line, no exception, no stack frame, no colour code, except the lines {@link #EXPECTED} names,
 * each with the reason it is expected. Everything the processes print is scanned, the JVM's own warnings included.
 */
class QuietRunIT {
    /** A line a normal run may print though it matches {@link #ALARMING}, and why it is there. Empty: none is. */
    record Expected(Pattern line, String why) {}

    /**
     * The allow-list. Every entry must say why the line is expected in a normal run and why it cannot be fixed at its
     * source; a line that only looks alarming is a defect to fix, not to list here.
     */
    static final List<Expected> EXPECTED = List.of();

    /** What a user reads as trouble: a log level at WARN or above, an exception, a stack frame, a raw colour code. */
    static final Pattern ALARMING = Pattern.compile("\\b(ERROR|WARN|WARNING|SEVERE|FATAL)\\b|Exception|^\\s+at |\u001b\\[");

    @Test
    void shouldPrintNoAlarmingLineInTheDemoOrAServeStoppedAndStartedAgain() throws Exception {
        Path work = TestDirs.create("sqloop-quiet-it-");
        List<String> alarming = new ArrayList<>();

        // ./sqloop demo, as a newcomer runs it
        Run demo = Run.start(work, Map.of(), "demo", "--work-dir", work.resolve("demo").toString());
        assertEquals(0, demo.await(Duration.ofMinutes(10)), demo.joined());
        assertTrue(demo.joined().contains("overall success"), demo.joined());
        alarming.addAll(demo.alarming("demo"));

        // ./sqloop serve on the demo's warehouse and the simulated LLM: a batch, SIGTERM, serve again, a batch, SIGTERM
        DemoBatch batch = DemoBatch.load();
        Path warehouse = DemoWarehouse.create(work.resolve("warehouse.duckdb"));
        try (SimulatedLlm llm = SimulatedLlm.start(new OracleResponder(batch.goldByQuestion(), DemoBatch.faultMix(), "duckdb", 3), 3)) {
            llm.faults().latency(Latency.lognormal(Duration.ofMillis(50), 0.3));
            int gatewayPort = Ports.free();
            Map<String, String> env = Map.of(
                    "SQLOOP_DATASOURCE_DEMO_DIALECT", "duckdb",
                    "SQLOOP_DATASOURCE_DEMO_URL", "jdbc:duckdb:" + warehouse.toAbsolutePath(),
                    "SQLOOP_LLM_BASE_URL", llm.openAiBaseUrl(),
                    "SQLOOP_LLM_MODEL", "simulated",
                    "SQLOOP_GATEWAY_PORT", Integer.toString(gatewayPort),
                    "SQLOOP_MANAGEMENT_PORT", "0"); // the fixed defaults may be taken on a shared test host
            Path dataDir = work.resolve("serve");
            for (String round : List.of("serve", "serve after a restart")) {
                Run serve = Run.start(work, env, "serve", "--data-dir", dataDir.toString());
                serve.awaitLine(Pattern.compile("Ctrl-C stops"), Duration.ofMinutes(5));
                GatewayClient client = new GatewayClient("http://127.0.0.1:" + gatewayPort, null);
                String batchId = client.submitBatchFile(batch.writeJsonl(work.resolve("batch.jsonl"), "demo")).get("batchId").asText();
                JsonNode done = SubmitCommand.awaitBatch(client, batchId);
                assertEquals(batch.items().size(), done.get("finished").asInt(), done.toString());
                // SIGTERM, as a service manager stops it (Process.destroy() would also close the pipe the rest comes through)
                serve.process().toHandle().destroy();
                int exit = serve.await(Duration.ofMinutes(3));
                assertTrue(serve.joined().contains("sqloop serve: stopped"), "a clean stop, not a halt mid-close (exit " + exit + "):\n"
                        + serve.joined());
                alarming.addAll(serve.alarming(round));
            }
        }
        assertTrue(alarming.isEmpty(), "alarming lines in normal runs (fix them, or add them to EXPECTED with the reason):\n"
                + String.join("\n", alarming));
    }

    /** One launcher run, its stdout and stderr collected line by line. */
    record Run(Process process, List<String> output, Thread reader) {
        static Run start(Path work, Map<String, String> env, String... args) throws Exception {
            Path home = Path.of(System.getProperty("sqloop.home", "..")).toAbsolutePath().normalize();
            List<String> command = new ArrayList<>(List.of("bash", home.resolve("sqloop").toString()));
            command.addAll(List.of(args));
            ProcessBuilder pb = new ProcessBuilder(command).directory(work.toFile());
            pb.environment().keySet().removeIf(k -> k.startsWith("SQLOOP_"));
            pb.environment().putAll(env);
            // the build the test runs in is the one to run: no rebuild from inside a test, and this JVM's JDK
            pb.environment().put("SQLOOP_BUILD", "never");
            pb.environment().put("SQLOOP_JAVA_HOME", System.getProperty("java.home"));
            pb.environment().put("SQLOOP_HEAP", "1g");
            pb.redirectErrorStream(true);
            Process p = pb.start();
            List<String> lines = new CopyOnWriteArrayList<>();
            Thread reader = Thread.ofPlatform().daemon().start(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String line; (line = r.readLine()) != null; ) lines.add(line);
                } catch (java.io.IOException ignored) {
                    // the process ended
                }
            });
            return new Run(p, lines, reader);
        }

        int await(Duration timeout) throws InterruptedException {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("still running after " + timeout + ":\n" + joined());
            }
            reader.join(Duration.ofSeconds(30).toMillis()); // every line, up to the end of the stream
            return process.exitValue();
        }

        void awaitLine(Pattern pattern, Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < deadline) {
                if (output.stream().anyMatch(l -> pattern.matcher(l).find())) return;
                if (!process.isAlive()) throw new AssertionError("exited with " + process.exitValue() + ":\n" + joined());
                Thread.sleep(200);
            }
            process.destroyForcibly();
            throw new AssertionError("no line matching " + pattern + " within " + timeout + ":\n" + joined());
        }

        /** The lines a user would read as trouble and no {@link #EXPECTED} entry explains, each prefixed by the run. */
        List<String> alarming(String run) {
            return output.stream().filter(l -> ALARMING.matcher(l).find())
                    .filter(l -> EXPECTED.stream().noneMatch(e -> e.line().matcher(l).find()))
                    .map(l -> run + ": " + l).toList();
        }

        String joined() {
            return String.join("\n", output);
        }
    }

    /** The scan itself: what it must catch, so a quiet run is not quiet because nothing was looked at. */
    @Test
    void shouldRecogniseWhatAUserReadsAsTrouble() {
        for (String line : List.of("23:40:33.142 ERROR o.a.k.s.p.i.TaskManager - stream-thread [x] Get exceptions",
                "WARNING: Using incubator modules: jdk.incubator.vector", "12:00:00.000 WARN  d.s.c.r.Admission - admission: cannot read",
                "\tat org.apache.kafka.Foo.bar(Foo.java:1)", "java.lang.IllegalStateException: boom", "\u001b[0m",
                "SEVERE: something")) {
            assertTrue(ALARMING.matcher(line).find(), line);
        }
        for (String line : List.of("sqloop demo", "  failed                          0    0.0 %", "[####------]  10/40  25% | succeeded 10",
                "sqloop serve: stopped", "  errors repaired, by type   {syntax_error=8}")) {
            assertTrue(!ALARMING.matcher(line).find(), line);
        }
        assertTrue(Files.isRegularFile(Path.of(System.getProperty("sqloop.home", "..")).resolve("sqloop")), "the launcher is found");
    }
}
