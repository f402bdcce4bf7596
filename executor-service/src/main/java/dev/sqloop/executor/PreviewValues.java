package dev.sqloop.executor;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.Array;
import java.sql.SQLException;
import java.sql.Struct;
import java.time.temporal.TemporalAccessor;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns JDBC values into what JSON carries without surprises: numbers, booleans, strings and lists. Dates
 * and times become ISO-8601 text, non-finite floats text, binary hex; long texts and collections are cut,
 * so one preview cell cannot blow up a Kafka message.
 */
final class PreviewValues {
    static final int MAX_TEXT = 1000;
    static final int MAX_ITEMS = 100;

    private PreviewValues() {}

    static Object of(Object v) {
        return switch (v) {
            case null -> null;
            case String s -> text(s);
            case Boolean b -> b;
            case Integer i -> i;
            case Long l -> l;
            case Short s -> (int) s;
            case Byte b -> (int) b;
            case BigInteger b -> b.bitLength() < 64 ? (Object) b.longValue() : b.toString();
            case BigDecimal d -> d;
            case Double d -> Double.isFinite(d) ? d : d.toString();
            case Float f -> Float.isFinite(f) ? (Object) f.doubleValue() : f.toString();
            case java.sql.Timestamp t -> t.toLocalDateTime().toString();
            case java.sql.Date d -> d.toLocalDate().toString();
            case java.sql.Time t -> t.toLocalTime().toString();
            case TemporalAccessor t -> t.toString();
            case byte[] bytes -> text("\\x" + HexFormat.of().formatHex(bytes, 0, Math.min(bytes.length, MAX_TEXT / 2)));
            case Array a -> array(a);
            case Struct s -> struct(s);
            case List<?> list -> list.stream().limit(MAX_ITEMS).map(PreviewValues::of).toList();
            case Map<?, ?> map -> map(map);
            default -> text(v.toString());
        };
    }

    private static String text(String s) {
        return s.length() > MAX_TEXT ? s.substring(0, MAX_TEXT) + "…" : s;
    }

    private static Object array(Array a) {
        try {
            Object items = a.getArray();
            List<Object> out = new ArrayList<>();
            if (items instanceof Object[] objects) {
                for (int i = 0; i < Math.min(objects.length, MAX_ITEMS); i++) out.add(of(objects[i]));
                return out;
            }
            return text(String.valueOf(items));
        } catch (SQLException e) {
            return text(a.toString());
        }
    }

    private static Object struct(Struct s) {
        try {
            List<Object> out = new ArrayList<>();
            for (Object o : s.getAttributes()) out.add(of(o));
            return out;
        } catch (SQLException e) {
            return text(s.toString());
        }
    }

    private static Map<String, Object> map(Map<?, ?> m) {
        Map<String, Object> out = new LinkedHashMap<>();
        m.entrySet().stream().limit(MAX_ITEMS).forEach(e -> out.put(String.valueOf(e.getKey()), of(e.getValue())));
        return out;
    }
}
