package dev.sqloop.embedded.eval;

import dev.sqloop.testkit.TestDirs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.testkit.engines.DefogDatasets;
import java.nio.file.Files;
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
 * An eval stopped part way (as Ctrl-C stops it: between two questions, here after K scored, K
 * one past the first configuration, so that the second's batch is mostly in flight) leaves a partial report
 * and every scored question in questions.jsonl; the same command on the same directory scores only what is missing —
 * picking up the batch the pipeline was still working on rather than sending its questions again — and ends with the
 * report a single uninterrupted run gives.
 */
class EvalResumeIT {
    private static final List<String> DATABASES = List.of("broker", "car_dealership");
    private static final List<Integer> CONFIGS = List.of(1, 3);
    /** max attempts 1 all scored, then one of max attempts 3: the others of its batch are mostly mid-repair */
    private static int stopAfter;
    private static final Map<String, String> settings = new HashMap<>();
    private static List<EvalCase> cases;
    /** 1.5 s per LLM answer: a question corrected at attempt 2 or 3 is still in flight when the first answers are scored */
    private static final Eval.Options OPTIONS = new Eval.Options(null, null, "simulated", "default", 7, 0, java.time.Duration.ofMillis(1500));

    @BeforeAll
    static void warehouses() throws Exception {
        Path dir = TestDirs.create("sqloop-eval-resume-");
        for (String db : DATABASES) {
            Path file = DefogDatasets.loadIntoDuckDb(db, dir.resolve(db + ".duckdb"));
            String key = "SQLOOP_DATASOURCE_" + db.toUpperCase(Locale.ROOT);
            settings.put(key + "_DIALECT", "duckdb");
            settings.put(key + "_URL", "jdbc:duckdb:" + file.toAbsolutePath());
        }
        cases = EvalCase.load(DefogDatasets.questionsCsv(), Map.of(), null).stream()
                .filter(c -> Set.copyOf(DATABASES).contains(c.datasource())).toList();
        stopAfter = cases.size() + 1;
    }

    /** Each question's outcome per configuration: what must not depend on being interrupted. */
    private static Map<String, String> outcomes(EvalReport report) {
        Map<String, String> out = new TreeMap<>();
        for (Eval.Row r : report.rows()) {
            out.put(r.maxAttempts() + " " + r.c().id(), r.status() + " " + r.reason() + " attempts=" + r.attempts()
                    + " va=" + r.score().va() + " ex=" + r.score().ex() + " em=" + r.score().em() + " firstError=" + r.firstError());
        }
        return out;
    }

    @Test
    void shouldLeaveAPartialReportThatARerunCompletesWithoutSendingAQuestionTwice() throws Exception {
        EvalReport single = Eval.evaluate(cases, CONFIGS, settings, TestDirs.create("eval-single-"), OPTIONS);
        assertEquals(0, single.remaining());

        Path out = TestDirs.create("eval-resumed-");
        EvalReport partial = Eval.evaluate(cases, CONFIGS, settings, out, OPTIONS, Eval.Interrupt.afterScored(stopAfter));
        System.out.print(partial.comparison());
        int total = cases.size() * CONFIGS.size();
        assertEquals(stopAfter, partial.rows().size(), "stopped between two questions, after the K-th");
        assertEquals(total - stopAfter, partial.remaining());
        assertEquals(stopAfter, Files.readAllLines(out.resolve("questions.jsonl")).size(), "every scored question is kept");
        JsonNode json = JsonCodec.mapper().readTree(out.resolve("report.json").toFile());
        assertTrue(json.path("partial").asBoolean());
        assertEquals(total - stopAfter, json.path("remaining").asInt());
        assertTrue(Files.readString(out.resolve("report.md")).contains("PARTIAL"), "the report says it is partial");
        assertTrue(Files.readString(out.resolve("report.html")).contains("PARTIAL"));
        String batchId = Files.readString(out.resolve("max-attempts-3/batch-id")).strip();
        RunState stopped = RunState.read(out);
        long finishedBeforeStop = stopped.outcomes().get(3).values().stream().mapToLong(Long::longValue).sum();
        System.out.printf("max attempts 3: %d of %d questions finished when the run stopped, the others were in flight%n",
                finishedBeforeStop, cases.size());
        assertTrue(finishedBeforeStop < cases.size(), "questions were in flight when the run stopped (the case resuming must handle)");

        EvalReport resumed = Eval.evaluate(cases, CONFIGS, settings, out, OPTIONS);
        System.out.print(resumed.comparison());
        assertEquals(0, resumed.remaining());
        assertEquals(outcomes(single), outcomes(resumed), "the resumed run ends where a single run ends, question by question");
        for (int m : CONFIGS) {
            EvalReport.Summary a = single.summary(m);
            EvalReport.Summary b = resumed.summary(m);
            assertEquals(List.of(a.questions(), a.va(), a.ex(), a.em(), a.firstAttempt(), a.corrected(), a.failed()),
                    List.of(b.questions(), b.va(), b.ex(), b.em(), b.firstAttempt(), b.corrected(), b.failed()), "max attempts " + m);
            // the pipeline counts each question it finishes: summed over both runs, one per question means none was sent twice
            assertEquals(resumed.outcomes(m), resumed.pipelineOutcomes(m), "max attempts " + m + ": the pipeline finished each question once");
        }
        assertEquals(batchId, Files.readString(out.resolve("max-attempts-3/batch-id")).strip(),
                "the interrupted batch was picked up again, not submitted anew");
        assertEquals(cases.size(), Files.readAllLines(out.resolve("max-attempts-3/batch.jsonl")).size());
        assertEquals(total, Files.readAllLines(out.resolve("questions.jsonl")).size());
        assertFalse(JsonCodec.mapper().readTree(out.resolve("report.json").toFile()).path("partial").asBoolean());

        EvalReport again = Eval.evaluate(cases, CONFIGS, settings, out, OPTIONS);
        assertEquals(outcomes(resumed), outcomes(again), "a complete run's directory reruns to the same report, sending nothing");
        assertEquals(resumed.pipelineOutcomes(1), again.pipelineOutcomes(1));
    }

    /**
     * {@code cmd}, started so that SIGINT has its default action: a background job of a non-interactive shell (say
     * {@code ./sqloop test &} in a script) starts with SIGINT ignored, every child inherits that, and a JVM never
     * handles a signal it started with ignored — the eval below would run to its end. Then the command goes through
     * perl (Debian's perl-base is essential), which restores the default before it execs (same pid).
     */
    static List<String> withDefaultSigint(List<String> cmd) throws java.io.IOException {
        boolean ignored = Files.readAllLines(Path.of("/proc/self/status")).stream().filter(l -> l.startsWith("SigIgn:"))
                .anyMatch(l -> (Long.parseUnsignedLong(l.substring("SigIgn:".length()).trim(), 16) & 0x2) != 0);
        if (!ignored) return cmd;
        List<String> wrapped = new java.util.ArrayList<>(List.of("perl", "-e", "$SIG{INT} = 'DEFAULT'; exec @ARGV or die \"exec: $!\""));
        wrapped.addAll(cmd);
        return wrapped;
    }

    /** The real Ctrl-C: {@code ./sqloop eval} in a JVM of its own gets SIGINT once it has scored a question. */
    @Test
    void shouldWriteThePartialReportOnSigint() throws Exception {
        Path out = TestDirs.create("eval-sigint-");
        Path log = TestDirs.file("eval-sigint-", ".log");
        List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx768m",
                "--sun-misc-unsafe-memory-access=allow", "-cp", System.getProperty("java.class.path"), "dev.sqloop.embedded.Main",
                "eval", DefogDatasets.questionsCsv().toString(), "--llm", "simulated", "--max-attempts", "1,2,3", "--ts", "0",
                "--out", out.toString());
        ProcessBuilder pb = new ProcessBuilder(withDefaultSigint(cmd)).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().putAll(settings);
        Process p = pb.start();
        try {
            Path scored = out.resolve("questions.jsonl");
            long deadline = System.nanoTime() + java.time.Duration.ofMinutes(3).toNanos();
            while (!(Files.exists(scored) && !Files.readString(scored).isBlank())) {
                assertTrue(p.isAlive(), "eval ended before scoring anything:\n" + Files.readString(log));
                assertTrue(System.nanoTime() < deadline, "nothing scored in 3 minutes:\n" + Files.readString(log));
                Thread.sleep(100);
            }
            assertEquals(0, new ProcessBuilder("kill", "-INT", Long.toString(p.pid())).start().waitFor());
            assertTrue(p.waitFor(90, java.util.concurrent.TimeUnit.SECONDS), "eval ends after Ctrl-C");
            String output = Files.readString(log);
            assertEquals(130, p.exitValue(), output);
            JsonNode json = JsonCodec.mapper().readTree(out.resolve("report.json").toFile());
            assertTrue(json.path("partial").asBoolean(), output);
            int remaining = json.path("remaining").asInt();
            assertTrue(remaining >= cases.size(), "at least max attempts 2 and 3 remain: " + remaining);
            assertEquals(cases.size() * 3 - remaining, Files.readAllLines(scored).size(), "the report covers every scored question");
            assertTrue(output.contains("interrupted: partial report, " + remaining + " question runs remain"), output);
        } finally {
            p.destroyForcibly();
        }
    }
}
