package dev.sqloop.executor;

import dev.sqloop.common.error.ErrorCategory;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;

/**
 * HiveServer2-protocol failures, for Spark Thrift Server and Hive (both through hive-jdbc). Spark names an
 * error class in brackets ({@code [UNRESOLVED_COLUMN.WITH_SUGGESTION]}) with a SQLSTATE; Hive gives its error
 * number in {@code getErrorCode()} and {@code [Error 10004]}. Spark's server stack trace is already cut; this also
 * drops the wrapper prefix and the logical plan Spark appends to an analysis error, keeping the error class, its
 * text with the engine's suggestions, and the position.
 */
final class HiveErrors implements ErrorClassifier {
    private static final Pattern SPARK_CLASS = Pattern.compile("\\[(_?[A-Z][A-Z0-9_]+)(?:\\.[A-Z_]+)?]");
    private static final Pattern HIVE_NUMBER = Pattern.compile("\\[Error (\\d+)]");
    private static final Pattern SPARK_SUGGESTION = Pattern.compile("Did you mean one of the following\\? \\[([^\\]]*)]");
    private static final Pattern COULD_BE = Pattern.compile("could be: \\[([^\\]]*)]");
    private static final Pattern HIVE_COLUMNS = Pattern.compile("possible column names are: ([^)]*)\\)");
    private static final Pattern HIVE_NAME = Pattern.compile("'([^']+)'");
    private static final Pattern INVALID_FUNCTION = Pattern.compile("Invalid function (\\S+)");
    private static final Pattern AMBIGUOUS_COLUMN = Pattern.compile("Column (\\S+) Found in more than One");
    private static final Pattern SERVER_ANSWER = Pattern.compile("Error while (?:compiling|processing) statement");
    /** {@code HiveSQLException: Error running query: [CLASS] org.apache.spark.sql.AnalysisException: } before the text. */
    private static final Pattern SPARK_PREFIX = Pattern.compile(
            "^(?:[\\w.$]*HiveSQLException: )?(?:Error running query: )?(?:\\[[A-Z0-9_.]+] )?(?:[\\w.$]+Exception: )?\\s*");
    /** A possibly qualified backticked name: {@code `a`.`nme`}. */
    private static final Pattern BACKTICKED_NAME = Pattern.compile("`[^`]+`(?:\\.`[^`]+`)*");

    /**
     * Hive reports a failed MapReduce job with SQLSTATE 08S01 (a connection-failure class) although the server
     * answered; such a message starts with the statement phase ({@code Error while compiling statement: FAILED:
     * Execution Error, return code 2 from …MapRedTask}). Those are SQL outcomes; a lost or refused connection
     * ({@code Could not open client transport}, a Thrift transport error) still goes the infrastructure way.
     */
    @Override
    public EngineError classify(SQLException e) {
        String message = EngineMessages.clean(e);
        if (!(e instanceof java.sql.SQLTimeoutException) && SERVER_ANSWER.matcher(message).lookingAt()
                && !message.contains("TTransportException")) {
            return classifyEngine(e, message);
        }
        return ErrorClassifier.super.classify(e);
    }

    @Override
    public EngineError classifyEngine(SQLException e, String message) {
        String sparkClass = EngineMessages.group(SPARK_CLASS, message);
        if (sparkClass != null) return spark(sparkClass, message);
        if (message.contains("TTransportException") || message.contains("Could not open client transport")) {
            return EngineError.infrastructure(message);
        }
        String number = EngineMessages.group(HIVE_NUMBER, message);
        int code = number != null ? Integer.parseInt(number) : e.getErrorCode();
        ErrorCategory category = switch (code) {
            case 10004, 10002 -> ErrorCategory.COLUMN_NOT_FOUND;
            case 10001, 10072 -> ErrorCategory.TABLE_NOT_FOUND;
            case 10025, 10128 -> ErrorCategory.AGGREGATION_ERROR;
            case 10011 -> ErrorCategory.UNSUPPORTED_FUNCTION;
            case 10014, 10016 -> ErrorCategory.TYPE_MISMATCH;
            default -> {
                if (message.contains("ParseException")) yield ErrorCategory.SYNTAX_ERROR;
                if (message.contains("Found in more than One Tables")) yield ErrorCategory.JOIN_ERROR;
                if (message.contains("ClassCastException")) yield ErrorCategory.TYPE_MISMATCH;
                if (message.contains("Permission denied") || message.contains("HiveAccessControlException")) {
                    yield ErrorCategory.PERMISSION_DENIED;
                }
                yield ErrorCategory.UNKNOWN;
            }
        };
        List<String> candidates = List.of();
        String columns = EngineMessages.group(HIVE_COLUMNS, message);
        if (columns != null) candidates = Arrays.stream(columns.split(",")).map(String::strip).toList();
        String identifier = switch (category) {
            case UNSUPPORTED_FUNCTION -> EngineMessages.group(INVALID_FUNCTION, message);
            case JOIN_ERROR -> EngineMessages.group(AMBIGUOUS_COLUMN, message);
            default -> EngineMessages.group(HIVE_NAME, message);
        };
        return EngineError.sql(category, message, identifier, candidates);
    }

    private static EngineError spark(String errorClass, String message) {
        ErrorCategory category = switch (errorClass) {
            case "UNRESOLVED_COLUMN", "UNRESOLVED_FIELD", "UNRESOLVED_MAP_KEY" -> ErrorCategory.COLUMN_NOT_FOUND;
            case "TABLE_OR_VIEW_NOT_FOUND", "SCHEMA_NOT_FOUND" -> ErrorCategory.TABLE_NOT_FOUND;
            case "MISSING_GROUP_BY", "MISSING_AGGREGATION", "GROUP_BY_AGGREGATE", "NESTED_AGGREGATE_FUNCTION", "INVALID_WHERE_CONDITION",
                 "_LEGACY_ERROR_TEMP_1034"
                    -> ErrorCategory.AGGREGATION_ERROR;
            case "UNRESOLVED_ROUTINE", "WRONG_NUM_ARGS" -> ErrorCategory.UNSUPPORTED_FUNCTION;
            case "DATATYPE_MISMATCH", "CAST_INVALID_INPUT", "INVALID_TYPED_LITERAL" -> ErrorCategory.TYPE_MISMATCH;
            case "PARSE_SYNTAX_ERROR", "PARSE_EMPTY_STATEMENT" -> ErrorCategory.SYNTAX_ERROR;
            case "AMBIGUOUS_REFERENCE", "AMBIGUOUS_COLUMN_OR_FIELD" -> ErrorCategory.JOIN_ERROR;
            case "INSUFFICIENT_PERMISSIONS" -> ErrorCategory.PERMISSION_DENIED;
            default -> ErrorCategory.UNKNOWN;
        };
        String list = EngineMessages.group(SPARK_SUGGESTION, message);
        if (list == null) list = EngineMessages.group(COULD_BE, message);
        List<String> candidates = list == null ? List.of()
                : Arrays.stream(list.split(",")).map(s -> s.replace("`", "").strip()).filter(s -> !s.isEmpty()).toList();
        String text = sparkText(message);
        String name = EngineMessages.group(Pattern.compile("(" + BACKTICKED_NAME.pattern() + ")"), text);
        // the backticked name is the offending object only for name errors; elsewhere it is advice (`try_cast`)
        String identifier = switch (category) {
            case SYNTAX_ERROR -> EngineMessages.group(HIVE_NAME, text);
            case COLUMN_NOT_FOUND, TABLE_NOT_FOUND, UNSUPPORTED_FUNCTION, JOIN_ERROR -> name == null ? null : name.replace("`", "");
            default -> errorClass.equals("CAST_INVALID_INPUT") ? EngineMessages.group(HIVE_NAME, text) : EngineMessages.firstDoubleQuoted(text);
        };
        return EngineError.sql(category, text, identifier, candidates);
    }

    /**
     * The error without the wrapper prefix and without the analyzed plan: an analysis error's text ends with
     * {@code ";"} (after {@code line 1 pos 7}) and the plan follows on the next line.
     */
    static String sparkText(String message) {
        String m = SPARK_PREFIX.matcher(message).replaceFirst("");
        int plan = m.indexOf(";\n");
        return (plan >= 0 ? m.substring(0, plan + 1) : m).strip();
    }
}
