package dev.sqloop.parse;

import java.util.List;
import java.util.Locale;

/**
 * A dotted name as written in the SQL ({@code catalog.schema.table}, {@code t.col}), parts lower-cased: how the checks
 * compare names, since the engines here match unquoted names ignoring case.
 *
 * @param exact the parts as the engine looks them up: on a dialect whose quoted names keep their case ({@link
 *     dev.sqloop.common.Dialect#quotedNamesKeepCase()}: PostgreSQL) a quoted part as written and an unquoted one
 *     lower-cased, so {@code "Album"} stays {@code Album} and {@code Album} is {@code album}; elsewhere {@code parts}.
 *     Equality ignores it: two spellings of one name are the same name to every check but the one that asks whether the
 *     engine finds it.
 */
public record ObjectName(List<String> parts, List<String> exact) {
    public ObjectName {
        if (parts.isEmpty()) throw new IllegalArgumentException("empty name");
        parts = parts.stream().map(p -> p.toLowerCase(Locale.ROOT)).toList();
        exact = exact == null ? parts : List.copyOf(exact);
        if (exact.size() != parts.size()) throw new IllegalArgumentException("exact " + exact + " does not spell " + parts);
    }

    public ObjectName(List<String> parts) {
        this(parts, null);
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
        return parts.size() == 1 ? null : new ObjectName(parts.subList(0, parts.size() - 1), exact.subList(0, exact.size() - 1));
    }

    public String text() {
        return String.join(".", parts);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ObjectName other && parts.equals(other.parts);
    }

    @Override
    public int hashCode() {
        return parts.hashCode();
    }

    @Override
    public String toString() {
        return text();
    }
}
