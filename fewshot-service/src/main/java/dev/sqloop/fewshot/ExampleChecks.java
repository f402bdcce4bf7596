package dev.sqloop.fewshot;

import dev.sqloop.common.Dialect;
import dev.sqloop.parse.DialectParsers;
import dev.sqloop.parse.SqlRejection;
import java.util.Optional;

/**
 * What the fewshot service refuses to store as an example, whatever the producer checked before (defence in depth:
 * the gateway refuses the same input with a 4xx, but the {@code feedback} and {@code example-commands} topics accept
 * any producer). The SQL must be exactly one read-only query as the validator's own parser for the example's dialect
 * reads it ({@link DialectParsers}, the check the gateway makes), and both texts of a sane size; the limits are a
 * backstop above the gateway's configurable ones ({@code SQLOOP_GATEWAY_MAX_QUESTION_CHARS} / {@code _MAX_SQL_CHARS}).
 */
final class ExampleChecks {
    static final int MAX_QUESTION_CHARS = 10_000;
    static final int MAX_SQL_CHARS = 100_000;

    private ExampleChecks() {}

    /** Why this question→SQL pair must not become an example of a {@code dialect} datasource, or empty when it may. */
    static Optional<String> whyNotStorable(String question, String sql, String dialect) {
        if (question == null || question.isBlank()) return Optional.of("the question is empty");
        if (question.length() > MAX_QUESTION_CHARS) return Optional.of("the question is longer than " + MAX_QUESTION_CHARS + " characters");
        if (sql == null || sql.isBlank()) return Optional.of("the sql is empty");
        if (sql.length() > MAX_SQL_CHARS) return Optional.of("the sql is longer than " + MAX_SQL_CHARS + " characters");
        Dialect d;
        try {
            d = Dialect.fromWire(dialect);
        } catch (RuntimeException e) {
            return Optional.of("the sql cannot be checked: " + (dialect == null ? "no dialect" : e.getMessage()));
        }
        try {
            DialectParsers.forDialect(d).parse(sql.strip());
            return Optional.empty();
        } catch (SqlRejection r) {
            return Optional.of("the sql is not one read-only " + d.displayName() + " query: " + r.getMessage());
        } catch (RuntimeException | StackOverflowError e) {
            // a parser defect on an unusual text must not let it into the store unchecked
            return Optional.of("the sql could not be analysed (" + e.getClass().getSimpleName() + ")");
        }
    }
}
