package dev.sqloop.parse;

import dev.sqloop.common.Dialect;
import java.util.EnumMap;
import java.util.Map;

/** The parser for each dialect: Trino's own for trino/presto, JSqlParser for the others (see PARSERS.md). */
public final class DialectParsers {
    private static final Map<Dialect, DialectParser> PARSERS = new EnumMap<>(Dialect.class);

    static {
        for (Dialect d : Dialect.values()) {
            PARSERS.put(d, d == Dialect.TRINO || d == Dialect.PRESTO ? new TrinoDialectParser(d) : new JSqlDialectParser(d));
        }
    }

    private DialectParsers() {}

    public static DialectParser forDialect(Dialect dialect) {
        return PARSERS.get(dialect);
    }
}
