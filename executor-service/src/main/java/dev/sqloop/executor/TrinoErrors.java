package dev.sqloop.executor;

import dev.sqloop.common.error.ErrorCategory;
import java.sql.SQLException;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Trino failures by error name. trino-jdbc exposes only the numeric code ({@code getErrorCode()}, SQLSTATE
 * is null), so the codes of Trino's {@code StandardErrorCode} are mapped back to their names first; a
 * client that sees the REST protocol's {@code errorName} can call {@link #categoryOf(String)} directly.
 */
final class TrinoErrors implements ErrorClassifier {
    private static final Pattern PREFIX = Pattern.compile("^Query failed \\(#[^)]*\\): ");
    private static final Pattern QUOTED = Pattern.compile("'([^']+)'");

    /** Trino's StandardErrorCode values this classifier cares about (USER_ERROR from 0, INTERNAL from 65536). */
    static final Map<Integer, String> NAMES = Map.ofEntries(
            Map.entry(0, "GENERIC_USER_ERROR"), Map.entry(1, "SYNTAX_ERROR"), Map.entry(3, "USER_CANCELED"),
            Map.entry(4, "PERMISSION_DENIED"), Map.entry(5, "NOT_FOUND"), Map.entry(6, "FUNCTION_NOT_FOUND"),
            Map.entry(7, "INVALID_FUNCTION_ARGUMENT"), Map.entry(8, "DIVISION_BY_ZERO"),
            Map.entry(9, "INVALID_CAST_ARGUMENT"), Map.entry(10, "OPERATOR_NOT_FOUND"), Map.entry(13, "NOT_SUPPORTED"),
            Map.entry(19, "NUMERIC_VALUE_OUT_OF_RANGE"), Map.entry(23, "READ_ONLY_VIOLATION"),
            Map.entry(28, "SUBQUERY_MULTIPLE_ROWS"), Map.entry(32, "AMBIGUOUS_FUNCTION_CALL"),
            Map.entry(43, "TYPE_NOT_FOUND"), Map.entry(44, "CATALOG_NOT_FOUND"), Map.entry(45, "SCHEMA_NOT_FOUND"),
            Map.entry(46, "TABLE_NOT_FOUND"), Map.entry(47, "COLUMN_NOT_FOUND"), Map.entry(58, "TYPE_MISMATCH"),
            Map.entry(59, "INVALID_LITERAL"), Map.entry(62, "AMBIGUOUS_NAME"), Map.entry(63, "INVALID_COLUMN_REFERENCE"),
            Map.entry(64, "MISSING_GROUP_BY"), Map.entry(67, "NESTED_AGGREGATION"), Map.entry(73, "EXPRESSION_NOT_AGGREGATE"),
            Map.entry(65536, "GENERIC_INTERNAL_ERROR"), Map.entry(65541, "NO_NODES_AVAILABLE"),
            Map.entry(65545, "SERVER_SHUTTING_DOWN"), Map.entry(65548, "SERVER_STARTING_UP"),
            Map.entry(131073, "EXCEEDED_GLOBAL_MEMORY_LIMIT"), Map.entry(131075, "EXCEEDED_TIME_LIMIT"),
            Map.entry(131079, "EXCEEDED_CPU_LIMIT"));

    @Override
    public EngineError classifyEngine(SQLException e, String raw) {
        String message = PREFIX.matcher(raw).replaceFirst("");
        // the coordinator answered HTTP 502/503/504 before a query existed: no Trino error code at all
        String name = message.contains("statusCode=50") ? "SERVER_UNAVAILABLE" : NAMES.get(e.getErrorCode());
        if (name == null) name = e.getErrorCode() >= 65536 && e.getErrorCode() < 131072 ? "GENERIC_INTERNAL_ERROR" : "UNKNOWN";
        if (isInfrastructure(name)) return EngineError.infrastructure(message);
        ErrorCategory category = categoryOf(name);
        // "Unexpected parameters (varchar(5), integer) for function date_trunc": the function exists, the types do not fit.
        if (category == ErrorCategory.UNSUPPORTED_FUNCTION && message.contains("Unexpected parameters")) {
            category = ErrorCategory.TYPE_MISMATCH;
        }
        // an aggregate or a window function in WHERE (EXPRESSION_NOT_SCALAR): a misuse of aggregation, not an unknown
        if (message.contains("WHERE clause cannot contain aggregations")) category = ErrorCategory.AGGREGATION_ERROR;
        String identifier = EngineMessages.group(QUOTED, message);
        return EngineError.sql(category, message, identifier, java.util.List.of());
    }

    static boolean isInfrastructure(String errorName) {
        return switch (errorName) {
            case "NO_NODES_AVAILABLE", "SERVER_SHUTTING_DOWN", "SERVER_STARTING_UP", "SERVER_UNAVAILABLE",
                 "REMOTE_HOST_GONE", "TOO_MANY_REQUESTS_FAILED" -> true;
            default -> false;
        };
    }

    /** The taxonomy category of a Trino error name. */
    static ErrorCategory categoryOf(String errorName) {
        return switch (errorName) {
            case "COLUMN_NOT_FOUND", "INVALID_COLUMN_REFERENCE" -> ErrorCategory.COLUMN_NOT_FOUND;
            case "TABLE_NOT_FOUND", "SCHEMA_NOT_FOUND", "CATALOG_NOT_FOUND" -> ErrorCategory.TABLE_NOT_FOUND;
            case "EXPRESSION_NOT_AGGREGATE", "MISSING_GROUP_BY", "NESTED_AGGREGATION" -> ErrorCategory.AGGREGATION_ERROR;
            case "FUNCTION_NOT_FOUND", "AMBIGUOUS_FUNCTION_CALL" -> ErrorCategory.UNSUPPORTED_FUNCTION;
            case "TYPE_MISMATCH", "OPERATOR_NOT_FOUND", "INVALID_CAST_ARGUMENT", "INVALID_LITERAL", "TYPE_NOT_FOUND",
                 "NUMERIC_VALUE_OUT_OF_RANGE", "INVALID_FUNCTION_ARGUMENT" -> ErrorCategory.TYPE_MISMATCH;
            case "AMBIGUOUS_NAME" -> ErrorCategory.JOIN_ERROR;
            case "SYNTAX_ERROR" -> ErrorCategory.SYNTAX_ERROR;
            case "EXCEEDED_TIME_LIMIT", "USER_CANCELED", "EXCEEDED_CPU_LIMIT" -> ErrorCategory.TIMEOUT;
            case "PERMISSION_DENIED" -> ErrorCategory.PERMISSION_DENIED;
            case "READ_ONLY_VIOLATION" -> ErrorCategory.READ_ONLY_VIOLATION;
            case "NO_NODES_AVAILABLE", "SERVER_SHUTTING_DOWN", "SERVER_STARTING_UP", "SERVER_UNAVAILABLE" -> ErrorCategory.CONNECTION_ERROR;
            default -> ErrorCategory.UNKNOWN;
        };
    }
}
