package dev.sqloop.testkit.engines;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.sql.Date;
import java.sql.Timestamp;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PGInterval;

class ResultComparisonTest {
    private static ResultComparison.Table table(Object[]... rows) {
        List<String> columns = rows.length == 0 ? List.of("a") : java.util.stream.IntStream.range(0, rows[0].length).mapToObj(i -> "c" + i).toList();
        return new ResultComparison.Table(columns, Arrays.stream(rows).map(Arrays::asList).toList());
    }

    @Test
    void shouldFindTheOutputColumnsAnOrderBySortsOn() {
        assertEquals(List.of(), ResultComparison.orderKeys("SELECT a FROM t"));
        assertEquals(List.of(1, 0), ResultComparison.orderKeys("SELECT t.a, count(*) AS n FROM t GROUP BY t.a ORDER BY n DESC, a"));
        assertEquals(List.of(1), ResultComparison.orderKeys("SELECT a, b FROM t ORDER BY 2"));
        assertNull(ResultComparison.orderKeys("SELECT a FROM t ORDER BY b"));
    }

    @Test
    void shouldCompareNumbersWithToleranceAndIntegersExactly() {
        assertTrue(ResultComparison.same(1460L, new BigDecimal("1460.0000000000000000")));
        assertTrue(ResultComparison.same(0.1 + 0.2, 0.3));
        assertTrue(ResultComparison.same(2.127396830020001E9, 2.1273968300200014E9));
        assertFalse(ResultComparison.same(1.0, 1.001));
        assertFalse(ResultComparison.same(3L, 4L));
        assertFalse(ResultComparison.same(1L, "1"));
    }

    @Test
    void shouldTakeADateForATimestampAtMidnightOnly() {
        assertTrue(ResultComparison.same(Date.valueOf("2023-01-01"), Timestamp.valueOf("2023-01-01 00:00:00")));
        assertFalse(ResultComparison.same(Date.valueOf("2023-01-01"), Timestamp.valueOf("2023-01-01 00:00:01")));
    }

    @Test
    void shouldCompareIntervalsAsDurations() throws Exception {
        assertTrue(ResultComparison.same(new PGInterval("1 hours 49 mins 20 secs"), new io.trino.jdbc.TrinoIntervalDayTime(6_560_000)));
        assertFalse(ResultComparison.same(new PGInterval("1 hours 49 mins 21 secs"), new io.trino.jdbc.TrinoIntervalDayTime(6_560_000)));
    }

    @Test
    void shouldIgnoreRowOrderWithoutOrderBy() {
        assertTrue(ResultComparison.difference(table(new Object[] {1L}, new Object[] {2L}), table(new Object[] {2L}, new Object[] {1L}), List.of()).isEmpty());
        assertTrue(ResultComparison.difference(table(new Object[] {1L}, new Object[] {1L}), table(new Object[] {1L}, new Object[] {2L}), List.of()).isPresent());
    }

    @Test
    void shouldKeepOrderExceptAmongTies() {
        ResultComparison.Table pg = table(new Object[] {"x", 3L}, new Object[] {"y", 2L}, new Object[] {"z", 2L});
        ResultComparison.Table tiesSwapped = table(new Object[] {"x", 3L}, new Object[] {"z", 2L}, new Object[] {"y", 2L});
        ResultComparison.Table reordered = table(new Object[] {"y", 2L}, new Object[] {"x", 3L}, new Object[] {"z", 2L});
        assertTrue(ResultComparison.difference(pg, tiesSwapped, List.of(1)).isEmpty());
        assertTrue(ResultComparison.difference(pg, reordered, List.of(1)).isPresent());
        assertTrue(ResultComparison.difference(pg, tiesSwapped, null).isPresent(), "keys not in the output: exact order");
    }

    @Test
    void shouldReportDifferentShapes() {
        assertTrue(ResultComparison.difference(table(new Object[] {1L, 2L}), table(new Object[] {1L}), List.of()).orElseThrow().startsWith("columns"));
        assertTrue(ResultComparison.difference(table(new Object[] {1L}), table(), List.of()).orElseThrow().contains("1 rows vs 0"));
    }
}
