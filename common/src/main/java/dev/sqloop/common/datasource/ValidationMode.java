package dev.sqloop.common.datasource;

import java.util.Locale;

/**
 * How a datasource proves a query works: {@code limit} runs it wrapped in {@code SELECT * FROM (…) LIMIT n};
 * {@code explain} asks the engine to plan it without running it ({@code EXPLAIN (TYPE VALIDATE)} on Trino).
 */
public enum ValidationMode {
    LIMIT,
    EXPLAIN;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static ValidationMode fromWire(String value) {
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "limit" -> LIMIT;
            case "explain" -> EXPLAIN;
            default -> throw new IllegalArgumentException("unknown validation mode '" + value + "' (limit, explain)");
        };
    }
}
