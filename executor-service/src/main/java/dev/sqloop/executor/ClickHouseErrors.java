package dev.sqloop.executor;

import dev.sqloop.common.error.ErrorCategory;
import java.sql.SQLException;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * ClickHouse failures by the engine's error name, the same from chDB in-process and from a server over jdbc-v2: every
 * message reads {@code Code: N. DB::Exception: … (NAME)}. The identifier is the first backticked or quoted name,
 * candidates come from {@code Maybe you meant …}.
 */
final class ClickHouseErrors implements ErrorClassifier {
    private static final Pattern CODE = Pattern.compile("Code: (\\d+)[.,] ");
    private static final Pattern NAME = Pattern.compile("\\(([A-Z][A-Z0-9_]+)\\)(?: \\(version [^)]*\\))?\\.?\\s*$");
    private static final Pattern BACKTICKED = Pattern.compile("`([^`]+)`");
    private static final Pattern QUOTED = Pattern.compile("'([^']+)'");
    /** "Maybe you meant: ['notIn']" (functions, columns) or "Maybe you meant system.one?" (tables). */
    private static final Pattern MAYBE_LIST = Pattern.compile("Maybe you meant:? \\[([^\\]]*)\\]");
    private static final Pattern MAYBE_ONE = Pattern.compile("Maybe you meant ([^\\s\\[?]+)\\?");
    /** Servers before 19.x (Debian's 18.16) name without quotes: "Unknown identifier: t2.rn", "Table shop.x doesn't exist". */
    private static final Pattern OLD_NAME = Pattern.compile(
            "(?:Unknown identifier: |Unknown function |Table |Database |Column )([A-Za-z_][\\w.]*)");
    /**
     * jdbc-v2's words when a SELECT came back without a result set: the driver asks for RowBinaryWithNamesAndTypes in the
     * {@code X-ClickHouse-Format} header, a server older than the driver ignores it and answers TabSeparated.
     */
    static final String NO_RESULT_SET = "executeQuery() requires a ResultSet";
    /** A server without an EXPLAIN statement (18.16) stops at its first word: the datasource's explain mode, not the SQL. */
    private static final Pattern NO_EXPLAIN = Pattern.compile("Syntax error: failed at position 1(?: \\([^)]*\\))?: EXPLAIN ");

    /** ClickHouse's names for the codes of the taxonomy, for a message whose name was cut (a long message ends early). */
    private static final java.util.Map<Integer, String> NAMES = java.util.Map.ofEntries(
            java.util.Map.entry(6, "CANNOT_PARSE_TEXT"), java.util.Map.entry(43, "ILLEGAL_TYPE_OF_ARGUMENT"),
            java.util.Map.entry(46, "UNKNOWN_FUNCTION"), java.util.Map.entry(47, "UNKNOWN_IDENTIFIER"),
            java.util.Map.entry(53, "TYPE_MISMATCH"), java.util.Map.entry(60, "UNKNOWN_TABLE"),
            java.util.Map.entry(62, "SYNTAX_ERROR"), java.util.Map.entry(81, "UNKNOWN_DATABASE"),
            java.util.Map.entry(158, "TOO_MANY_ROWS"), java.util.Map.entry(159, "TIMEOUT_EXCEEDED"),
            java.util.Map.entry(164, "READONLY"), java.util.Map.entry(184, "ILLEGAL_AGGREGATION"),
            java.util.Map.entry(215, "NOT_AN_AGGREGATE"), java.util.Map.entry(241, "MEMORY_LIMIT_EXCEEDED"),
            java.util.Map.entry(307, "TOO_MANY_BYTES"), java.util.Map.entry(352, "AMBIGUOUS_COLUMN_NAME"),
            java.util.Map.entry(386, "NO_COMMON_TYPE"), java.util.Map.entry(394, "QUERY_WAS_CANCELLED"),
            java.util.Map.entry(396, "TOO_MANY_ROWS_OR_BYTES"), java.util.Map.entry(403, "INVALID_JOIN_ON_EXPRESSION"),
            java.util.Map.entry(497, "ACCESS_DENIED"));

    @Override
    public EngineError classifyEngine(SQLException e, String message) {
        if (message != null && message.startsWith(NO_RESULT_SET)) return tooOld(message);
        return classify(code(message, e.getErrorCode()), name(message), message);
    }

    /**
     * A server that ran the query but answered in a format the driver cannot read: no repair of the SQL helps and retrying
     * does not either, so a connection error that ends the question (not an infrastructure failure, which is retried).
     */
    static EngineError tooOld(String driverMessage) {
        return EngineError.sql(ErrorCategory.CONNECTION_ERROR, "the ClickHouse server returned no result jdbc-v2 can read: it"
                + " ignored the driver's X-ClickHouse-Format header (RowBinaryWithNamesAndTypes), as servers before 19.x do"
                + " (Debian's clickhouse-server 18.16); the server is too old for the driver, use a newer ClickHouse. Driver: "
                + driverMessage);
    }

    /** The error of a ClickHouse message, from chDB or a server. */
    static EngineError classify(int code, String name, String message) {
        if (name == null || name.isEmpty()) name = NAMES.getOrDefault(code, "");
        if (code == 62 && NO_EXPLAIN.matcher(message).find()) {
            return EngineError.sql(ErrorCategory.CONNECTION_ERROR, "the ClickHouse server has no EXPLAIN (Debian's 18.16 has"
                    + " none): set the datasource's validation mode to limit. Server: " + message);
        }
        ErrorCategory category = categoryOf(name);
        if (category == ErrorCategory.CONNECTION_ERROR) return EngineError.infrastructure(message);
        String identifier = EngineMessages.group(BACKTICKED, message);
        if (identifier == null) identifier = EngineMessages.group(QUOTED, message);
        if (identifier == null && message.contains("e.displayText() = ")) identifier = EngineMessages.group(OLD_NAME, message);
        return EngineError.sql(category, message, identifier, candidates(message));
    }

    /** The category of a ClickHouse error name ({@code src/Common/ErrorCodes.cpp}). */
    static ErrorCategory categoryOf(String name) {
        return switch (name) {
            case "UNKNOWN_IDENTIFIER", "NO_SUCH_COLUMN_IN_TABLE", "THERE_IS_NO_COLUMN" -> ErrorCategory.COLUMN_NOT_FOUND;
            case "UNKNOWN_TABLE", "UNKNOWN_DATABASE" -> ErrorCategory.TABLE_NOT_FOUND;
            case "UNKNOWN_FUNCTION", "UNKNOWN_AGGREGATE_FUNCTION" -> ErrorCategory.UNSUPPORTED_FUNCTION;
            case "SYNTAX_ERROR" -> ErrorCategory.SYNTAX_ERROR;
            case "NOT_AN_AGGREGATE", "ILLEGAL_AGGREGATION" -> ErrorCategory.AGGREGATION_ERROR;
            case "TYPE_MISMATCH", "ILLEGAL_TYPE_OF_ARGUMENT", "NO_COMMON_TYPE", "CANNOT_PARSE_TEXT", "CANNOT_CONVERT_TYPE",
                 "CANNOT_PARSE_DATE", "CANNOT_PARSE_DATETIME", "CANNOT_PARSE_NUMBER", "NUMBER_OF_ARGUMENTS_DOESNT_MATCH",
                 "ILLEGAL_COLUMN", "BAD_ARGUMENTS", "CANNOT_READ_ARRAY_FROM_TEXT" -> ErrorCategory.TYPE_MISMATCH;
            case "AMBIGUOUS_COLUMN_NAME", "AMBIGUOUS_IDENTIFIER", "INVALID_JOIN_ON_EXPRESSION" -> ErrorCategory.JOIN_ERROR;
            // the datasource's time limit, or the memory it may use: too costly to run as written (DuckDB's out of memory
            // is read the same way)
            case "TIMEOUT_EXCEEDED", "QUERY_WAS_CANCELLED", "MEMORY_LIMIT_EXCEEDED" -> ErrorCategory.TIMEOUT;
            // the datasource's scan budget (max_rows_to_read / max_bytes_to_read) or result bound, enforced by the engine
            case "TOO_MANY_ROWS", "TOO_MANY_BYTES", "TOO_MANY_ROWS_OR_BYTES" -> ErrorCategory.TOO_EXPENSIVE;
            case "READONLY" -> ErrorCategory.READ_ONLY_VIOLATION;
            case "ACCESS_DENIED", "NOT_ENOUGH_PRIVILEGES" -> ErrorCategory.PERMISSION_DENIED;
            case "NETWORK_ERROR", "SOCKET_TIMEOUT", "ALL_CONNECTION_TRIES_FAILED", "TOO_MANY_SIMULTANEOUS_QUERIES",
                 "ABORTED", "TABLE_IS_READ_ONLY_BECAUSE_OF_SHUTDOWN" -> ErrorCategory.CONNECTION_ERROR;
            default -> ErrorCategory.UNKNOWN;
        };
    }

    static int code(String message, int fallback) {
        Matcher m = CODE.matcher(message == null ? "" : message);
        return m.find() ? Integer.parseInt(m.group(1)) : fallback;
    }

    static String name(String message) {
        Matcher m = NAME.matcher(message == null ? "" : message.strip());
        return m.find() ? m.group(1) : "";
    }

    private static List<String> candidates(String message) {
        Matcher list = MAYBE_LIST.matcher(message);
        if (list.find()) return EngineMessages.singleQuoted(list.group(1));
        Matcher one = MAYBE_ONE.matcher(message);
        return one.find() ? List.of(one.group(1)) : List.of();
    }
}
