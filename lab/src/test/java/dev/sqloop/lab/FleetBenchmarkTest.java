package dev.sqloop.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class FleetBenchmarkTest {
    private static long[] row(long millis, long finished, long fewshotCpuNs, long hostCpuNs) {
        return row(millis, finished, fewshotCpuNs, 0, hostCpuNs);
    }

    /** A sample row: per part cpu, heap, old gen after GC, JIT compilers' cpu (the JIT's fewshot's only here). */
    private static long[] row(long millis, long finished, long fewshotCpuNs, long fewshotJitNs, long hostCpuNs) {
        return new long[] {millis, finished, fewshotCpuNs, 0, 0, fewshotJitNs, hostCpuNs, 0, 0, 0};
    }

    /** The steady line covers the samples from half the batch final to all of it, and nothing before. */
    @Test
    void shouldMeasureTheSecondHalfOfTheResultsOnly() {
        List<String> parts = List.of("fewshot", FleetBenchmark.HOST);
        List<long[]> rows = List.of(
                row(1_000, 0, 5_000_000_000L, 9_000_000_000L), // start-up and the first half: expensive, left out
                row(2_000, 60, 6_000_000_000L, 9_500_000_000L),
                row(3_000, 80, 6_200_000_000L, 9_600_000_000L),
                row(4_000, 100, 6_400_000_000L, 9_700_000_000L),
                row(5_000, 100, 9_400_000_000L, 9_800_000_000L)); // after the last result: capture's tail, not counted
        FleetBenchmark.Steady steady = FleetBenchmark.Processes.steady(rows, parts, 100);
        assertEquals(40.0 / 2, steady.questionsPerSecond(), 1e-9, "40 results in 2 s");
        assertEquals(400.0 / 40, steady.cpuMs().get("fewshot"), 1e-9, "0.4 s of CPU over 40 questions");
        assertEquals(200.0 / 40, steady.cpuMs().get(FleetBenchmark.HOST), 1e-9);
        assertEquals(400.0 / 40, steady.services(), 1e-9, "the services without the broker and the LLM");
    }

    /** The JIT compilers' share of the steady window is its own figure, from the same two samples. */
    @Test
    void shouldTellTheJitCompilersShareOfTheSteadyState() {
        List<String> parts = List.of("fewshot", FleetBenchmark.HOST);
        List<long[]> rows = List.of(
                row(1_000, 10, 1_000_000_000L, 700_000_000L, 0),
                row(2_000, 50, 2_000_000_000L, 1_000_000_000L, 0),
                row(3_000, 100, 2_500_000_000L, 1_100_000_000L, 0));
        FleetBenchmark.Steady steady = FleetBenchmark.Processes.steady(rows, parts, 100);
        assertEquals(500.0 / 50, steady.services(), 1e-9, "0.5 s of CPU over the 50 questions of the second half");
        assertEquals(100.0 / 50, steady.servicesJit(), 1e-9, "0.1 s of it in the compilers");
    }

    /** The compilers' threads are found by name in a /proc stat line, spaces in the name and all; others are not. */
    @Test
    void shouldReadTheCompilerThreadsCpuFromProc() {
        String c2 = "4242 (C2 CompilerThre) S 1 4200 4200 0 -1 1077936192 100 0 0 0 731 52 0 0 20 0 1 0 98 0 0 18446744073709551615";
        assertEquals(783, CompilerThreads.compilerTicks(c2), "utime 731 + stime 52");
        assertEquals(-1, CompilerThreads.compilerTicks(c2.replace("C2 CompilerThre", "GC Thread#0")));
        assertEquals(-1, CompilerThreads.compilerTicks(""));
        long self = ProcessHandle.current().pid();
        CompilerThreads compilers = new CompilerThreads();
        long before = compilers.nanos(self);
        long sum = 0;
        for (int i = 0; i < 2_000_000; i++) sum += Long.toString(i).hashCode(); // hot code the C1 and C2 threads compile
        assertTrue(sum != 0 && compilers.nanos(self) >= before, "this JVM's compilers' CPU only grows");
        assertTrue(compilers.nanos(self) > 0, "this JVM has compiled something by now");
    }

    /** A tenth's line: the stretch's results, rate and CPU per question per service, their sum, the broker's apart, the probe's mean. */
    @Test
    void shouldPrintATenthOfTheBatchFromItsTwoSamples() {
        List<String> parts = List.of("fewshot", FleetBenchmark.HOST);
        String line = FleetBenchmark.Processes.tenth(3, row(10_000, 2_000, 4_000_000_000L, 100_000_000L, 1_000_000_000L),
                row(20_000, 3_000, 7_000_000_000L, 300_000_000L, 3_500_000_000L), parts, new double[] {600, 700});
        assertEquals("tenth  3  results 2000-3000 final in 10 s, 100.0 questions/s; ms of CPU per question: the six services 3.00"
                + " (JIT 0.20; fewshot 3.00), broker + LLM 2.50; probe 650 ms", line);
        assertTrue(!FleetBenchmark.Processes.tenth(1, row(0, 0, 0, 0), row(1_000, 10, 10_000_000, 0), parts, new double[0])
                .contains("probe"), "no probe sample in the stretch: no probe figure");
    }

    @Test
    void shouldSayNothingWhenOneSampleHoldsTheWholeSecondHalf() {
        List<String> parts = List.of("fewshot", FleetBenchmark.HOST);
        assertNull(FleetBenchmark.Processes.steady(List.of(row(1_000, 10, 1, 1), row(2_000, 100, 2, 2)), parts, 100));
        assertNull(FleetBenchmark.Processes.steady(List.of(), parts, 100));
    }
}
