package dev.sqloop.embedded.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.Test;

class FleetBenchmarkTest {
    private static long[] row(long millis, long finished, long fewshotCpuNs, long hostCpuNs) {
        return new long[] {millis, finished, fewshotCpuNs, 0, 0, hostCpuNs, 0, 0};
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

    @Test
    void shouldSayNothingWhenOneSampleHoldsTheWholeSecondHalf() {
        List<String> parts = List.of("fewshot", FleetBenchmark.HOST);
        assertNull(FleetBenchmark.Processes.steady(List.of(row(1_000, 10, 1, 1), row(2_000, 100, 2, 2)), parts, 100));
        assertNull(FleetBenchmark.Processes.steady(List.of(), parts, 100));
    }
}
