package dev.sqloop.chdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChdbResultTest {
    @Test
    void shouldGiveTheValuesJdbcDriversGiveSoResultsCompareByValue() {
        ChdbResult r = new ChdbResult(List.of("d", "t", "n", "m", "f", "s", "x"),
                List.of("Nullable(Date)", "DateTime64(3)", "UInt64", "Decimal(10, 2)", "Float64", "LowCardinality(String)", "Nullable(Int32)"),
                List.of(Arrays.asList("2024-03-01", "2024-03-01 10:15:00", "18446744073709551615", "12.50", "-inf", "2024-03-01", null)),
                1);
        List<Object> row = r.typedRows().getFirst();
        assertEquals(LocalDate.of(2024, 3, 1), row.get(0));
        assertEquals(LocalDateTime.of(2024, 3, 1, 10, 15), row.get(1));
        assertEquals(new BigInteger("18446744073709551615"), row.get(2));
        assertEquals(new BigDecimal("12.50"), row.get(3));
        assertEquals(Double.NEGATIVE_INFINITY, row.get(4));
        assertEquals("2024-03-01", row.get(5), "a string stays a string whatever it looks like");
        assertNull(row.get(6));
        assertTrue(r.rows().getFirst().get(0) instanceof String, "the raw rows are unchanged");
    }
}
