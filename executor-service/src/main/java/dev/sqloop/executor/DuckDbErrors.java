package dev.sqloop.executor;

import dev.sqloop.common.error.ErrorCategory;
import java.sql.SQLException;
import java.util.List;
import java.util.regex.Pattern;

/**
 * DuckDB failures by message type: DuckDB gives no SQLSTATE and no error code, but every message starts
 * with its exception type ({@code Binder Error:}, {@code Catalog Error:} …). Suggestions come from the
 * {@code Candidate bindings:} and {@code Did you mean} lines.
 */
final class DuckDbErrors implements ErrorClassifier {
    private static final Pattern COLUMN = Pattern.compile("(?:Referenced column|column named) \"([^\"]+)\"");
    private static final Pattern TABLE = Pattern.compile("Table with name \"?([^\"!\\s]+)\"?");
    private static final Pattern FUNCTION = Pattern.compile("Function with name \"?([^\"!\\s]+)\"?");
    private static final Pattern NO_MATCH = Pattern.compile("argument types '([^'(]+)\\(");

    @Override
    public EngineError classifyEngine(SQLException e, String message) {
        String first = message.lines().findFirst().orElse("");
        String type = first.contains(" Error:") ? first.substring(0, first.indexOf(" Error:")) : "";
        String candidatesLine = EngineMessages.line(message, "Candidate bindings:");
        if (candidatesLine == null) candidatesLine = EngineMessages.line(message, "Candidate tables:");
        if (candidatesLine == null) candidatesLine = EngineMessages.line(message, "Did you mean");
        List<String> candidates = candidatesLine == null ? List.of() : EngineMessages.doubleQuoted(candidatesLine);
        switch (type) {
            case "Parser":
                return EngineError.sql(ErrorCategory.SYNTAX_ERROR, message, EngineMessages.firstDoubleQuoted(first), List.of());
            case "Conversion":
                return EngineError.sql(ErrorCategory.TYPE_MISMATCH, message);
            case "INTERRUPT", "Interrupt":
                return EngineError.sql(ErrorCategory.TIMEOUT, message);
            case "Out of Memory":
                // the datasource's memory_limit: too expensive to run, which the repair loop treats like a timeout
                return EngineError.sql(ErrorCategory.TIMEOUT, message);
            case "Permission":
                return EngineError.sql(ErrorCategory.PERMISSION_DENIED, message);
            case "IO", "Connection":
                // the database file is gone, locked by a writer, or the connection was closed
                return EngineError.infrastructure(message);
            case "Catalog":
                if (first.contains("Function with name")) {
                    return EngineError.sql(ErrorCategory.UNSUPPORTED_FUNCTION, message, EngineMessages.group(FUNCTION, first), candidates);
                }
                if (first.contains("Table with name") || first.contains("Schema with name") || first.contains("does not exist")) {
                    return EngineError.sql(ErrorCategory.TABLE_NOT_FOUND, message, EngineMessages.group(TABLE, first), candidates);
                }
                return EngineError.sql(ErrorCategory.UNKNOWN, message);
            case "Binder":
                return binder(message, first, candidates);
            case "Invalid Input":
                if (first.contains("read-only mode") || first.contains("configuration has been locked")) {
                    return EngineError.sql(ErrorCategory.READ_ONLY_VIOLATION, message);
                }
                return EngineError.sql(ErrorCategory.UNKNOWN, message);
            default:
                return EngineError.sql(ErrorCategory.UNKNOWN, message);
        }
    }

    private static EngineError binder(String message, String first, List<String> candidates) {
        if (first.contains("Referenced column") || first.contains("does not have a column named")) {
            return EngineError.sql(ErrorCategory.COLUMN_NOT_FOUND, message, EngineMessages.group(COLUMN, first), candidates);
        }
        if (first.contains("Referenced table")) {
            return EngineError.sql(ErrorCategory.TABLE_NOT_FOUND, message, EngineMessages.firstDoubleQuoted(first), candidates);
        }
        if (first.contains("GROUP BY") || first.contains("aggregate") || first.contains("window function")) {
            return EngineError.sql(ErrorCategory.AGGREGATION_ERROR, message, EngineMessages.firstDoubleQuoted(first), List.of());
        }
        if (first.contains("Ambiguous reference")) {
            return EngineError.sql(ErrorCategory.JOIN_ERROR, message, EngineMessages.firstDoubleQuoted(first),
                    EngineMessages.singleQuoted(first.substring(first.indexOf("(use:") < 0 ? 0 : first.indexOf("(use:"))));
        }
        if (first.contains("No function matches the given name and argument types")) {
            // An operator (+, =, ||) with these types is a type mismatch; so is a known function given the wrong types.
            String fn = EngineMessages.group(NO_MATCH, first);
            return EngineError.sql(ErrorCategory.TYPE_MISMATCH, message, fn, List.of());
        }
        if (first.contains("Cannot compare") || first.contains("cast") || first.contains("type")) {
            return EngineError.sql(ErrorCategory.TYPE_MISMATCH, message);
        }
        return EngineError.sql(ErrorCategory.UNKNOWN, message);
    }
}
