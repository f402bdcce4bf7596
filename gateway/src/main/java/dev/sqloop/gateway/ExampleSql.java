package dev.sqloop.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.common.sql.QueryCheck;

/**
 * The one rule for SQL that becomes a few-shot example, whichever endpoint makes it: {@code POST /v1/examples} and a
 * feedback {@code save} (with the SQL passed in the body or the question's own). It must be a string, not empty, at
 * most {@code SQLOOP_GATEWAY_MAX_SQL_CHARS} long and one read-only query ({@link QueryCheck}); otherwise a 400 naming
 * the field. The fewshot service checks the same again before storing.
 */
final class ExampleSql {
    private ExampleSql() {}

    /** The {@code field} of a JSON body as example SQL: a 400 when absent, not a string or not acceptable. */
    static String fromJson(JsonNode value, String field, GatewayConfig config) {
        if (value == null || value.isNull()) throw ApiError.badRequest(field + " is required", field);
        if (!value.isTextual()) throw ApiError.badRequest(field + " must be a string", field);
        return require(value.asText(), field, config);
    }

    /** {@code sql} (stripped) when it may become an example; a 400 naming {@code field} otherwise. */
    static String require(String sql, String field, GatewayConfig config) {
        String s = sql == null ? "" : sql.strip();
        if (s.isEmpty()) throw ApiError.badRequest(field + " must not be empty", field);
        if (s.length() > config.maxSqlChars()) throw ApiError.badRequest(field + " is longer than " + config.maxSqlChars() + " characters", field);
        QueryCheck.whyNotAQuery(s).ifPresent(reason -> {
            throw ApiError.badRequest(field + " must be one read-only query: " + reason, field);
        });
        return s;
    }
}
