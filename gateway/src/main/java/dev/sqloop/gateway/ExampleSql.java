package dev.sqloop.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.common.Dialect;
import dev.sqloop.parse.DialectParsers;
import dev.sqloop.parse.SqlRejection;
import java.util.Optional;

/**
 * The one rule for SQL that becomes a few-shot example, whichever endpoint makes it: {@code POST /v1/examples} and a
 * feedback {@code save} (with the SQL passed in the body or the question's own). It must be a string, not empty, at
 * most {@code SQLOOP_GATEWAY_MAX_SQL_CHARS} long, and exactly one read-only query as the validator's own parser for the
 * datasource's dialect reads it ({@link DialectParsers}: the lexical pre-pass that ends statements and comments where
 * the engine does, then the parse tree's read-only and side-effect policies); otherwise a 400 naming the field with the
 * parser's reason. The lexical check used before passed {@code SELECT 1 --\r; DROP TABLE orders} (issue 44): engines
 * end a {@code --} comment at {@code \r}, so a second statement hid behind it. The fewshot service checks the same again
 * before storing.
 */
final class ExampleSql {
    private ExampleSql() {}

    /** The {@code field} of a JSON body as example SQL for {@code dialect}: a 400 when absent, not a string or not acceptable. */
    static String fromJson(JsonNode value, String field, Dialect dialect, GatewayConfig config) {
        if (value == null || value.isNull()) throw ApiError.badRequest(field + " is required", field);
        if (!value.isTextual()) throw ApiError.badRequest(field + " must be a string", field);
        return require(value.asText(), field, dialect, config);
    }

    /** {@code sql} (stripped) when it may become an example of a {@code dialect} datasource; a 400 naming {@code field} otherwise. */
    static String require(String sql, String field, Dialect dialect, GatewayConfig config) {
        String s = bounded(sql, field, config);
        whyNotAQuery(s, dialect).ifPresent(reason -> {
            throw ApiError.badRequest(field + " must be one read-only query in " + dialect.displayName() + ": " + reason, field);
        });
        return s;
    }

    /** {@code sql} stripped, when not empty and within the length limit; a 400 naming {@code field} otherwise. */
    static String bounded(String sql, String field, GatewayConfig config) {
        String s = sql == null ? "" : sql.strip();
        if (s.isEmpty()) throw ApiError.badRequest(field + " must not be empty", field);
        if (s.length() > config.maxSqlChars()) throw ApiError.badRequest(field + " is longer than " + config.maxSqlChars() + " characters", field);
        return s;
    }

    /** The parser's reason {@code sql} is not exactly one read-only query of {@code dialect}; empty when it is. */
    static Optional<String> whyNotAQuery(String sql, Dialect dialect) {
        try {
            DialectParsers.forDialect(dialect).parse(sql);
            return Optional.empty();
        } catch (SqlRejection r) {
            return Optional.of(r.getMessage());
        } catch (RuntimeException | StackOverflowError e) {
            // a parser defect on an unusual text must not let it through unchecked (the validator refuses it the same way)
            return Optional.of("the parser could not analyse it (" + e.getClass().getSimpleName() + "); write it more simply");
        }
    }
}
