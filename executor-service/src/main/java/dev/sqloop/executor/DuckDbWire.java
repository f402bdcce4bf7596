package dev.sqloop.executor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.message.Execution;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The pipe between the executor and a DuckDB child process ({@link DuckDbProcessMain}): frames of a 4-byte length and
 * one JSON record. JSON rather than Java serialization because the parent reads what a process running untrusted SQL
 * wrote; preview cells carry their Java type so an {@link Execution} arrives exactly as {@link ReadOnlyExecutor} builds
 * it in-process ({@code BigDecimal}, {@code Integer} and {@code Long} stay apart).
 */
final class DuckDbWire {
    /** The largest frame either side accepts: 20 preview rows of bounded cells fit many times over. */
    static final int MAX_FRAME = 32 << 20;

    private DuckDbWire() {}

    /** Parent → child, first: the datasource as the child opens it ({@code ReadOnlyJdbc.open}, the executor's settings). */
    record Open(String name, String url, Map<String, String> properties, String memoryLimit, int threads, String tempSize) {}

    /**
     * Child → parent once it is open: where its session resolves bare names ({@link AllowListCheck.SessionScope}), or
     * why it could not open the file.
     */
    record Ready(String catalog, List<String> schemas, Map<String, Set<String>> implicit, EngineError error) {}

    /**
     * The ways {@link ReadOnlyExecutor} asks the engine: run with a row bound, plan with EXPLAIN, plan by preparing, and
     * the cost guard's estimate of the (unwrapped) query ({@link CostGuard}).
     */
    enum Kind { QUERY, EXPLAIN, PREPARED, ESTIMATE }

    /** Parent → child: one statement. */
    record Request(Kind kind, String text, int rowLimit, long timeoutMillis) {}

    /**
     * Child → parent: the result's shape and preview ({@link #cells}), the engine's error as the child classified it, or
     * a failure that was not the engine's (a driver bug: thrown in the parent, as it would be in-process); for
     * {@link Kind#ESTIMATE}, the plan's estimate.
     */
    record Reply(List<String> columns, List<String> types, long rowCount, JsonNode preview, EngineError error, String failure,
                 CostEstimate estimate) {
        static Reply of(Execution e) {
            return new Reply(e.columns(), e.types(), e.rowCount(), cells(e.preview()), null, null, null);
        }

        static Reply of(CostEstimate estimate) {
            return new Reply(null, null, 0, null, null, null, estimate);
        }

        static Reply error(EngineError error) {
            return new Reply(null, null, 0, null, error, null, null);
        }

        static Reply failure(String failure) {
            return new Reply(null, null, 0, null, null, failure, null);
        }

        Execution execution(long durationMillis) {
            return new Execution(columns, types, rowCount, rows(preview), durationMillis);
        }
    }

    static void write(DataOutputStream out, Object frame) throws IOException {
        byte[] json = JsonCodec.encode(frame);
        if (json.length > MAX_FRAME) throw new FrameTooLarge(json.length);
        out.writeInt(json.length);
        out.write(json);
        out.flush();
    }

    /** The next frame; {@link java.io.EOFException} when the other side closed the pipe or ended. */
    static <T> T read(DataInputStream in, Class<T> type) throws IOException {
        int length = in.readInt();
        if (length < 0 || length > MAX_FRAME) throw new IOException("a frame of " + length + " bytes (at most " + MAX_FRAME + ")");
        byte[] json = in.readNBytes(length);
        if (json.length < length) throw new java.io.EOFException("the pipe ended inside a frame");
        try {
            return JsonCodec.decode(json, type);
        } catch (JsonCodec.DecodeException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    /** A reply larger than {@link #MAX_FRAME}: the child answers with an error instead. */
    static final class FrameTooLarge extends IOException {
        FrameTooLarge(int bytes) {
            super("the result's preview is " + bytes / (1024 * 1024) + " MB as JSON, more than " + (MAX_FRAME >> 20) + " MB");
        }
    }

    /** The preview as JSON with the types {@link PreviewValues} produces kept apart. */
    static JsonNode cells(List<List<Object>> preview) {
        ArrayNode rows = JsonNodeFactory.instance.arrayNode();
        for (List<Object> row : preview) {
            ArrayNode r = rows.addArray();
            for (Object v : row) r.add(cell(v));
        }
        return rows;
    }

    static List<List<Object>> rows(JsonNode rows) {
        if (rows == null || !rows.isArray()) return List.of();
        List<List<Object>> out = new ArrayList<>(rows.size());
        for (JsonNode row : rows) {
            List<Object> r = new ArrayList<>(row.size());
            for (JsonNode v : row) r.add(value(v));
            out.add(Collections.unmodifiableList(r));
        }
        return List.copyOf(out);
    }

    /**
     * Plain JSON where JSON has the type (text, boolean, {@code Long} as an integer, {@code Double} as a fraction),
     * a one-field object where it does not ({@code int}, {@code dec}, {@code map}).
     */
    static JsonNode cell(Object v) {
        JsonNodeFactory f = JsonNodeFactory.instance;
        return switch (v) {
            case null -> f.nullNode();
            case String s -> f.textNode(s);
            case Boolean b -> f.booleanNode(b);
            case Long l -> f.numberNode(l);
            case Integer i -> f.objectNode().put("int", i);
            case BigDecimal d -> f.objectNode().put("dec", d.toString());
            case Double d -> f.numberNode(d);
            case List<?> list -> {
                ArrayNode a = f.arrayNode();
                list.forEach(item -> a.add(cell(item)));
                yield a;
            }
            case Map<?, ?> map -> {
                ObjectNode m = f.objectNode();
                map.forEach((k, item) -> m.set(String.valueOf(k), cell(item)));
                yield f.objectNode().set("map", m);
            }
            default -> f.textNode(v.toString());
        };
    }

    static Object value(JsonNode n) {
        if (n == null || n.isNull()) return null;
        if (n.isTextual()) return n.textValue();
        if (n.isBoolean()) return n.booleanValue();
        if (n.isIntegralNumber()) return n.longValue();
        if (n.isNumber()) return n.doubleValue();
        if (n.isArray()) {
            List<Object> out = new ArrayList<>(n.size());
            n.forEach(item -> out.add(value(item)));
            return out;
        }
        if (n.has("int")) return n.get("int").intValue();
        if (n.has("dec")) return new BigDecimal(n.get("dec").textValue());
        Map<String, Object> out = new LinkedHashMap<>();
        n.path("map").fields().forEachRemaining(e -> out.put(e.getKey(), value(e.getValue())));
        return out;
    }
}
