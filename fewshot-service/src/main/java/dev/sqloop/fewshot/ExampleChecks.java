package dev.sqloop.fewshot;

import dev.sqloop.common.sql.QueryCheck;
import java.util.Optional;

/**
 * What the fewshot service refuses to store as an example, whatever the producer checked before (defence in depth:
 * the gateway refuses the same input with a 4xx, but the {@code feedback} and {@code example-commands} topics accept
 * any producer). The SQL must be one read-only query ({@link QueryCheck}) and both texts of a sane size; the limits are
 * a backstop above the gateway's configurable ones ({@code SQLOOP_GATEWAY_MAX_QUESTION_CHARS} / {@code _MAX_SQL_CHARS}).
 */
final class ExampleChecks {
    static final int MAX_QUESTION_CHARS = 10_000;
    static final int MAX_SQL_CHARS = 100_000;

    private ExampleChecks() {}

    /** Why this question→SQL pair must not become an example, or empty when it may. */
    static Optional<String> whyNotStorable(String question, String sql) {
        if (question == null || question.isBlank()) return Optional.of("the question is empty");
        if (question.length() > MAX_QUESTION_CHARS) return Optional.of("the question is longer than " + MAX_QUESTION_CHARS + " characters");
        if (sql == null || sql.isBlank()) return Optional.of("the sql is empty");
        if (sql.length() > MAX_SQL_CHARS) return Optional.of("the sql is longer than " + MAX_SQL_CHARS + " characters");
        return QueryCheck.whyNotAQuery(sql).map(reason -> "the sql is not one read-only query: " + reason);
    }
}
