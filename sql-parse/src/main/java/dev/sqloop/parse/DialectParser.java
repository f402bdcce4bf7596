package dev.sqloop.parse;

/**
 * A real SQL parser for one dialect family. It accepts exactly one read-only query and returns its
 * {@link ParsedQuery}; anything else (syntax error, write, stacked statements, evasion) is a {@link SqlRejection}.
 */
public interface DialectParser {

    /** The parser family, for logs and the benchmark: {@code trino-parser}, {@code jsqlparser}. */
    String family();

    ParsedQuery parse(String sql) throws SqlRejection;
}
