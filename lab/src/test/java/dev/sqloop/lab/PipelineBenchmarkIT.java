package dev.sqloop.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.cli.Args;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ./sqloop bench pipeline} at a small scale: it finishes every question and prints every figure it promises. */
class PipelineBenchmarkIT {

    @Test
    void shouldMeasureASmallBatchAgainstBothLimits(@TempDir Path out) throws Exception {
        String text = bench("--questions", "40", "--regime", "llm", "--llm-median-ms", "50", "--concurrency", "8", "--agent", "2",
                "--idle-seconds", "2", "--out", out.toString());
        Matcher outcomes = Pattern.compile("outcomes +\\{(.*)}").matcher(text);
        assertTrue(outcomes.find(), text);
        int total = Pattern.compile("=(\\d+)").matcher(outcomes.group(1)).results().mapToInt(m -> Integer.parseInt(m.group(1))).sum();
        assertEquals(40, total, "every question final, each counted once");
        for (String figure : List.of("LLM-bound limit", "CPU-bound limit", "questions/s per core", "generate ", "static-validate",
                "kafka broker", "= sqloop itself", "pipeline overhead", "sequential agent", "speed-up")) {
            assertTrue(text.contains(figure), figure + " missing:\n" + text);
        }
        Matcher ratio = Pattern.compile("LLM-bound limit .*ratio (\\d+\\.\\d+)").matcher(text);
        assertTrue(ratio.find());
        double r = Double.parseDouble(ratio.group(1));
        assertTrue(r > 0 && r <= 1.05, "throughput cannot beat the LLM-bound limit: " + r);
        Matcher slots = Pattern.compile("LLM slots +ratio (\\d+\\.\\d+) = (\\d+\\.\\d+) of the 8 slots busy .* × (\\d+\\.\\d+) = latency / slot time").matcher(text);
        assertTrue(slots.find(), "the ratio is split into busy slots and time per call:\n" + text);
        double busy = Double.parseDouble(slots.group(2)), share = Double.parseDouble(slots.group(3));
        assertEquals(r, Double.parseDouble(slots.group(1)), 0.011, "the same ratio, from the slots' side: " + slots.group());
        assertEquals(r, busy * share, 0.02, "the two factors multiply to the ratio: " + slots.group());
        assertTrue(busy > 0 && busy <= 1.0 && share > 0 && share <= 1.0, slots.group());
        Matcher idle = Pattern.compile("idle cost +(\\d+\\.\\d) % of a core").matcher(text);
        assertTrue(idle.find(), "the idle cost is measured:\n" + text);
        double idleShare = Double.parseDouble(idle.group(1));
        assertTrue(idleShare > 0 && idleShare <= 100.0 * Runtime.getRuntime().availableProcessors(), "a share of the cores: " + idleShare);
        Matcher kafka = Pattern.compile("Kafka +(\\d+\\.\\d) offsets and (\\d+\\.\\d) KiB stored per question").matcher(text);
        assertTrue(kafka.find(), "the Kafka traffic is measured:\n" + text);
        assertTrue(Double.parseDouble(kafka.group(1)) >= 5, "a question passes at least submission, retrieval, generation, validation, execution: " + kafka.group());
        assertTrue(Double.parseDouble(kafka.group(2)) > 0, kafka.group());
        assertTrue(Pattern.compile("retrieve-examples +1\\.\\d\\d offsets").matcher(text).find(),
                "the topic the batch enters by is listed, about one offset per question:\n" + text);
        Matcher embedding = Pattern.compile("embedding +(\\d+\\.\\d\\d) sentences per question × (\\d+\\.\\d\\d) ms of CPU each").matcher(text);
        assertTrue(embedding.find(), "the embedding JFR cannot see is measured:\n" + text);
        assertTrue(Double.parseDouble(embedding.group(1)) >= 1, "every question is embedded at least once, for retrieval: " + embedding.group());
        assertTrue(Double.parseDouble(embedding.group(2)) > 0, embedding.group());
        assertWarehouseMeasured(text);
        Matcher start = Pattern.compile("batch accepted at (\\d+\\.\\d+) s; first LLM call at (\\d+\\.\\d+) s; first result at (\\d+\\.\\d+) s").matcher(text);
        assertTrue(start.find(), "the batch's start is timed:\n" + text);
        assertTrue(Double.parseDouble(start.group(2)) <= Double.parseDouble(start.group(3)),
                "every question needs an LLM call here (shortcuts off): " + start.group());
        List<String> rows = Files.readString(out.resolve("llm-lane-on/timeline.csv")).lines().toList();
        assertTrue(rows.size() > 2, "a timeline row per second");
        assertTrue(rows.getFirst().endsWith(",llm_calls_per_s,llm_slots_busy"), rows.getFirst());
        assertTrue(rows.stream().skip(1).anyMatch(row -> Double.parseDouble(row.split(",")[6]) > 0), "LLM calls in the timeline");
        assertTrue(rows.stream().skip(1).anyMatch(row -> Double.parseDouble(row.split(",")[7]) > 0), "busy LLM slots in the timeline");
        assertTrue(rows.stream().skip(1).allMatch(row -> Double.parseDouble(row.split(",")[7]) <= 1.05), "a share of the slots, at most all");
        assertTrue(Files.readString(out.resolve("llm-lane-on/timeline.html")).contains("<polyline"));
    }

    /** {@code --cancel-at}: the batch cancelled part way stops calling the LLM at once and every question ends. */
    @Test
    void shouldMeasureACancellationPartWay(@TempDir Path out) throws Exception {
        String text = bench("--questions", "80", "--regime", "llm", "--llm-median-ms", "200", "--concurrency", "2",
                "--cancel-at", "0.2", "--idle-seconds", "0", "--out", out.toString());
        Matcher at = Pattern.compile("cancelled at (\\d+) of 80 final").matcher(text);
        assertTrue(at.find(), text);
        assertTrue(Integer.parseInt(at.group(1)) >= 16, text);
        Matcher after = Pattern.compile("LLM calls after the cancel +(\\d+)").matcher(text);
        assertTrue(after.find(), text);
        assertTrue(Integer.parseInt(after.group(1)) <= 4, "at most a few calls begin before the cancellation reaches the generator: " + text);
        Matcher cancelled = Pattern.compile("cancelled=(\\d+)").matcher(text);
        assertTrue(cancelled.find(), text);
        assertTrue(Integer.parseInt(cancelled.group(1)) >= 40, "most of the batch ended cancelled: " + text);
        assertTrue(text.contains("every question final"), text);
    }

    /**
     * {@code --processes}: the same batch with each service in its own JVM as {@code ./sqloop run} starts it; every
     * question final once, and the CPU and heap of each process measured from the kernel and the service's metrics.
     * With {@code --unique}: 40 new questions, not the demo's 40 again. With {@code --perf} (where Linux perf runs, as on
     * the machine the suite is made for): each process's CPU split by kind of code from a system-wide sample.
     */
    @Test
    void shouldMeasureEachServiceInItsOwnProcess(@TempDir Path out) throws Exception {
        boolean perf = NativeProfile.available();
        List<String> args = new java.util.ArrayList<>(List.of("--processes", "--unique", "--jvm-opts", "-Xmx384m -XX:+UseSerialGC -XX:TieredStopAtLevel=1",
                "--questions", "40", "--regime", "llm", "--llm-median-ms", "50", "--concurrency", "8", "--idle-seconds", "1", "--out", out.toString()));
        if (perf) args.addAll(List.of("--perf", "2"));
        String text = bench(args.toArray(String[]::new));
        if (perf) {
            assertTrue(text.contains("CPU by code             perf, every CPU, 2 s from half the results"), text);
            String block = text.substring(text.indexOf("CPU by code"));
            for (String kind : List.of("fewshot", "generate", "repair", "validator", "executor", "gateway")) {
                assertTrue(Pattern.compile("\\n    " + kind + " +\\d+\\.\\d\\d").matcher(block).find(), kind + "'s process has its row:\n" + text);
            }
            Matcher sum = Pattern.compile("\\n    = the six services +(\\d+\\.\\d\\d) +.*Java code (\\d+\\.\\d\\d)").matcher(block);
            assertTrue(sum.find(), "the services' samples are split by kind of code, their Java among it:\n" + text);
            assertTrue(Double.parseDouble(sum.group(2)) > 0 && Double.parseDouble(sum.group(2)) <= Double.parseDouble(sum.group(1)), sum.group());
        }
        Matcher outcomes = Pattern.compile("outcomes +\\{(.*)}").matcher(text);
        assertTrue(outcomes.find(), text);
        int total = Pattern.compile("=(\\d+)").matcher(outcomes.group(1)).results().mapToInt(m -> Integer.parseInt(m.group(1))).sum();
        assertEquals(40, total, "every question final, each counted once");
        assertTrue(text.contains("each service in its own JVM (-Xmx384m -XX:+UseSerialGC -XX:TieredStopAtLevel=1): 40 unique questions"),
                "each text made unique, so the simulated LLM knows 40 new questions and answers each:\n" + text);
        double services = 0;
        for (String kind : List.of("fewshot", "generate", "repair", "validator", "executor", "gateway")) {
            Matcher row = Pattern.compile("\\n +" + kind + " +(\\d+\\.\\d\\d) +\\d+\\.\\d% +\\d+\\.\\d % +(\\d+) MiB").matcher(text);
            assertTrue(row.find(), kind + "'s process is measured:\n" + text);
            double ms = Double.parseDouble(row.group(1));
            assertTrue(ms > 0, kind + " spent CPU on the batch: " + row.group());
            assertTrue(Integer.parseInt(row.group(2)) > 0 && Integer.parseInt(row.group(2)) <= 384, kind + "'s heap is sampled, within -Xmx: " + row.group());
            services += ms;
        }
        Matcher itself = Pattern.compile("= sqloop itself +(\\d+\\.\\d\\d)").matcher(text);
        assertTrue(itself.find(), text);
        assertEquals(services, Double.parseDouble(itself.group(1)), 0.1, "the services' sum: " + itself.group());
        Matcher ratio = Pattern.compile("LLM-bound limit .*ratio (\\d+\\.\\d+)").matcher(text);
        assertTrue(ratio.find(), text);
        assertTrue(Double.parseDouble(ratio.group(1)) > 0 && Double.parseDouble(ratio.group(1)) <= 1.05, ratio.group());
        assertWarehouseMeasured(text);
        List<String> rows = Files.readString(out.resolve("llm-processes/timeline.csv")).lines().toList();
        assertTrue(rows.getFirst().contains("generate_cpu_cores,generate_heap_used_mib"), rows.getFirst());
        assertTrue(rows.size() > 2, "a timeline row per second");
        assertTrue(Files.readString(out.resolve("llm-processes/timeline.html")).contains("<polyline"));
    }

    /**
     * Capture's tail is in the CPU window, and the in-process warehouse's own CPU is measured apart: every question executed at least one query (the demo's
     * gold SQL always runs), each costs some CPU on the measuring thread (DuckDB on one thread runs on the caller's),
     * and sqloop's figure without it is what is left.
     */
    private static void assertWarehouseMeasured(String text) {
        assertTrue(Pattern.compile("capture +caught up \\d+\\.\\d s after the last result").matcher(text).find(),
                "the CPU window waits for capture to learn from every success:\n" + text);
        Matcher engine = Pattern.compile("warehouse +(\\d+\\.\\d\\d) queries per question × (\\d+\\.\\d\\d) ms of DuckDB CPU each.*"
                + "= (\\d+\\.\\d) ms per question.*sqloop itself without it (-?\\d+\\.\\d) ms").matcher(text);
        assertTrue(engine.find(), "the warehouse's own work is measured:\n" + text);
        assertTrue(Double.parseDouble(engine.group(1)) >= 1.0, "every question reached execution at least once: " + engine.group());
        assertTrue(Double.parseDouble(engine.group(2)) > 0, "a query costs CPU on the calling thread: " + engine.group());
        assertTrue(Double.parseDouble(engine.group(4)) > 0, engine.group());
    }

    /** Runs the benchmark (exit 0) and answers what it printed, echoed to the test's output. */
    private static String bench(String... args) throws Exception {
        PrintStream stdout = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            assertEquals(0, PipelineBenchmark.run(new Args(List.of(args))));
        } finally {
            System.setOut(stdout);
        }
        String text = captured.toString(StandardCharsets.UTF_8);
        System.out.println(text);
        return text;
    }
}
