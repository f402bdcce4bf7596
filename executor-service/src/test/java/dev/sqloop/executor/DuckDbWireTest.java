package dev.sqloop.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.Execution;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DuckDbWireTest {

    @Test
    void shouldCarryEveryPreviewTypeAsItWas() throws IOException {
        Map<String, Object> struct = new LinkedHashMap<>();
        struct.put("a", new BigDecimal("1.50"));
        struct.put("b", null);
        List<Object> row = Arrays.asList(7L, 7, new BigDecimal("12.30"), 2.5, 3.0, "text", "", true, null,
                List.of(1, 2L, "x"), struct, "NaN", "2024-01-31");
        Execution sent = new Execution(List.of("a", "b"), List.of("BIGINT", "INTEGER"), 42, List.of(row, row), 5);
        DuckDbWire.Reply back = roundTrip(DuckDbWire.Reply.of(sent), DuckDbWire.Reply.class);
        Execution got = back.execution(9);
        assertEquals(sent.preview(), got.preview());
        assertInstanceOf(Long.class, got.preview().get(0).get(0));
        assertInstanceOf(Integer.class, got.preview().get(0).get(1));
        assertEquals("12.30", got.preview().get(0).get(2).toString(), "the scale survives");
        assertInstanceOf(Double.class, got.preview().get(0).get(4));
        assertEquals(List.of("a", "b"), got.columns());
        assertEquals(42, got.rowCount());
        assertEquals(9, got.durationMillis(), "the parent's own clock");
    }

    @Test
    void shouldCarryTheClassifiedErrorWhole() throws IOException {
        EngineError e = EngineError.sql(ErrorCategory.COLUMN_NOT_FOUND, "Binder Error: Referenced column \"x\" not found", "x",
                List.of("xa", "xb"));
        assertEquals(e, roundTrip(DuckDbWire.Reply.error(e), DuckDbWire.Reply.class).error());
        EngineError infra = EngineError.infrastructure("IO Error: Cannot open database");
        assertEquals(infra, roundTrip(new DuckDbWire.Ready(null, null, null, infra), DuckDbWire.Ready.class).error());
    }

    @Test
    void shouldRefuseAFrameLengthPastTheBoundBeforeReadingIt() {
        byte[] bytes = {0x7f, 0, 0, 0, '{'};
        IOException e = assertThrows(IOException.class, () -> DuckDbWire.read(new DataInputStream(new ByteArrayInputStream(bytes)),
                DuckDbWire.Reply.class));
        assertEquals(true, e.getMessage().contains("at most"), e.getMessage());
        assertThrows(EOFException.class, () -> DuckDbWire.read(new DataInputStream(new ByteArrayInputStream(new byte[] {0, 0, 0, 9, '{'})),
                DuckDbWire.Reply.class), "a pipe that ends inside a frame");
    }

    private static <T> T roundTrip(Object frame, Class<T> type) throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        DuckDbWire.write(new DataOutputStream(buf), frame);
        return DuckDbWire.read(new DataInputStream(new ByteArrayInputStream(buf.toByteArray())), type);
    }
}
