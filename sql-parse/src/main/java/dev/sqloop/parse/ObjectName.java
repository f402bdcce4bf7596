package dev.sqloop.parse;

import java.util.List;
import java.util.Locale;

/** A dotted name as written in the SQL ({@code catalog.schema.table}, {@code t.col}), parts lower-cased. */
public record ObjectName(List<String> parts) {
    public ObjectName {
        if (parts.isEmpty()) throw new IllegalArgumentException("empty name");
        parts = parts.stream().map(p -> p.toLowerCase(Locale.ROOT)).toList();
    }

    public static ObjectName of(String... parts) {
        return new ObjectName(List.of(parts));
    }

    public String last() {
        return parts.getLast();
    }

    public int size() {
        return parts.size();
    }

    /** The name without its last part, or null for a one-part name. */
    public ObjectName prefix() {
        return parts.size() == 1 ? null : new ObjectName(parts.subList(0, parts.size() - 1));
    }

    public String text() {
        return String.join(".", parts);
    }

    @Override
    public String toString() {
        return text();
    }
}
