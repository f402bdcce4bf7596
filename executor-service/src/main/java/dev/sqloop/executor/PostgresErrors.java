package dev.sqloop.executor;

import dev.sqloop.common.error.ErrorCategory;
import java.sql.SQLException;
import java.util.List;
import java.util.regex.Pattern;

/**
 * PostgreSQL failures by SQLSTATE, the engine's stable code. The hint line ("Perhaps you meant to reference
 * the column …") becomes the candidates.
 */
final class PostgresErrors implements ErrorClassifier {
    private static final Pattern COLUMN = Pattern.compile("column \"?([^\"\\s]+)\"? does not exist");
    private static final Pattern RELATION = Pattern.compile("(?:relation|table|schema) \"([^\"]+)\"");
    private static final Pattern FUNCTION = Pattern.compile("function ([^\\s(]+)\\(");
    private static final Pattern GROUP_COLUMN = Pattern.compile("column \"([^\"]+)\" must appear in the GROUP BY");

    @Override
    public EngineError classifyEngine(SQLException e, String message) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        String first = message.lines().findFirst().orElse("");
        String hint = EngineMessages.line(message, "Hint:");
        List<String> candidates = hint == null ? List.of() : EngineMessages.doubleQuoted(hint);
        if (isInfrastructure(state)) return EngineError.infrastructure(message);
        ErrorCategory category = switch (state) {
            case "42703" -> ErrorCategory.COLUMN_NOT_FOUND;
            case "42P01", "3F000" -> ErrorCategory.TABLE_NOT_FOUND;
            // grouping_error, and windowing_error (a window function in WHERE)
            case "42803", "42P20" -> ErrorCategory.AGGREGATION_ERROR;
            // PostgreSQL reports an unknown function and a known one with wrong argument types alike.
            case "42883" -> first.contains("operator does not exist") ? ErrorCategory.TYPE_MISMATCH : ErrorCategory.UNSUPPORTED_FUNCTION;
            case "42725" -> ErrorCategory.UNSUPPORTED_FUNCTION;
            case "42804", "22P02", "42846", "22007", "22008", "22003", "22018" -> ErrorCategory.TYPE_MISMATCH;
            case "42702", "42P09", "42712" -> ErrorCategory.JOIN_ERROR;
            case "42601" -> ErrorCategory.SYNTAX_ERROR;
            // the query's own cost: cancelled at statement_timeout, past temp_file_limit, behind a lock past lock_timeout,
            // a value past PostgreSQL's own 1 GB bound (54000, "requested length too large")
            case "57014", "53400", "55P03", "54000" -> ErrorCategory.TIMEOUT;
            case "42501" -> ErrorCategory.PERMISSION_DENIED;
            case "25006" -> ErrorCategory.READ_ONLY_VIOLATION;
            case "22012" -> ErrorCategory.UNKNOWN;
            default -> state.startsWith("42") ? ErrorCategory.SYNTAX_ERROR
                    : state.startsWith("22") ? ErrorCategory.TYPE_MISMATCH : ErrorCategory.UNKNOWN;
        };
        String identifier = switch (category) {
            case COLUMN_NOT_FOUND -> EngineMessages.group(COLUMN, first);
            case TABLE_NOT_FOUND -> EngineMessages.group(RELATION, first);
            case AGGREGATION_ERROR -> EngineMessages.group(GROUP_COLUMN, first);
            case UNSUPPORTED_FUNCTION -> EngineMessages.group(FUNCTION, first);
            default -> null;
        };
        if (identifier == null && category != ErrorCategory.SYNTAX_ERROR) identifier = EngineMessages.firstDoubleQuoted(first);
        return EngineError.sql(category, message, identifier, candidates);
    }

    /**
     * Server going away or refusing work: class 08 (connection), 53 (insufficient resources: too many
     * connections), 57P01-57P05 (shutdown, crash recovery), 28 (authentication) and 3D000 (no such database):
     * a warehouse problem that another attempt at the same SQL may not meet.
     */
    static boolean isInfrastructure(String state) {
        // 53400 is not: temp_file_limit refuses what this query would spill, whoever else runs
        return state.startsWith("08") || (state.startsWith("53") && !state.equals("53400")) || state.startsWith("57P") || state.startsWith("28")
                || state.equals("3D000") || state.startsWith("58");
    }
}
