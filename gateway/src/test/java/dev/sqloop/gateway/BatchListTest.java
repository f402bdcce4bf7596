package dev.sqloop.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sqloop.gateway.Answers.BatchReport;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BatchListTest {
    private static BatchReport report(String id, String createdAt, long finished) {
        return new BatchReport(id, 10, finished, 10 - finished, finished / 10.0, Map.of(), Map.of(), null,
                createdAt == null ? null : Instant.parse(createdAt), finished == 10, null);
    }

    @Test
    void shouldListNewestFirstThenByIdWithUndatedLast() {
        List<BatchReport> merged = BatchList.newestFirst(List.of(report("b", "2026-01-01T00:00:00Z", 1), report("x", null, 0),
                report("c", "2026-01-02T00:00:00Z", 1), report("a", "2026-01-01T00:00:00Z", 1)));
        assertEquals(List.of("c", "a", "b", "x"), merged.stream().map(BatchReport::batchId).toList());
    }

    @Test
    void shouldListABatchSeenOnTwoInstancesOnceWithItsMoreAdvancedCounts() {
        // a partition moving between the two reads: the new owner may be behind the old one for a moment
        List<BatchReport> merged = BatchList.newestFirst(List.of(report("a", "2026-01-01T00:00:00Z", 3),
                report("a", "2026-01-01T00:00:00Z", 7), report("b", "2026-01-01T00:00:00Z", 2)));
        assertEquals(2, merged.size());
        assertEquals(7, merged.getFirst().finished());
    }
}
