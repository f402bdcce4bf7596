package dev.sqloop.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PreviewValuesTest {

    @Test
    void shouldKeepJsonNativeValues() {
        assertNull(PreviewValues.of(null));
        assertEquals(42L, PreviewValues.of(42L));
        assertEquals(7, PreviewValues.of((short) 7));
        assertEquals(true, PreviewValues.of(true));
        assertEquals(new BigDecimal("1.50"), PreviewValues.of(new BigDecimal("1.50")));
        assertEquals(2.5, PreviewValues.of(2.5f));
    }

    @Test
    void shouldTurnEverythingElseIntoText() {
        assertEquals("NaN", PreviewValues.of(Double.NaN));
        assertEquals("Infinity", PreviewValues.of(Double.POSITIVE_INFINITY));
        assertEquals("2024-02-29", PreviewValues.of(java.sql.Date.valueOf("2024-02-29")));
        assertEquals("2024-02-29T10:15:30", PreviewValues.of(java.sql.Timestamp.valueOf("2024-02-29 10:15:30")));
        assertEquals("2024-02-29", PreviewValues.of(LocalDate.of(2024, 2, 29)));
        assertEquals("\\x0aff", PreviewValues.of(new byte[] {10, (byte) 255}));
        assertEquals("170141183460469231731687303715884105727", PreviewValues.of(new BigInteger("170141183460469231731687303715884105727")));
        assertEquals(5L, PreviewValues.of(BigInteger.valueOf(5)));
        assertEquals(List.of(1, "x"), PreviewValues.of(List.of(1, "x")));
        assertEquals(Map.of("1", "a"), PreviewValues.of(Map.of(1, "a")));
    }

    @Test
    void shouldCutLongText() {
        String s = (String) PreviewValues.of("x".repeat(5000));
        assertEquals(PreviewValues.MAX_TEXT + 1, s.length());
        assertTrue(s.endsWith("…"));
    }
}
