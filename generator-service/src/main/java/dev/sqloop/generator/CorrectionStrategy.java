package dev.sqloop.generator;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.EmptyAnswer;
import dev.sqloop.common.message.LinkedSchema;
import dev.sqloop.common.message.QuestionTask;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * What to tell the model for each kind of error (004_630e3c03098132d1.txt §5): one short instruction, plus
 * schema facts where they help (the columns of the tables the SQL uses, the available tables). The error text
 * itself is added by {@link CorrectionPromptBuilder}; these lines never repeat it.
 */
public enum CorrectionStrategy {
    COLUMN("Use only columns that exist in the schema; replace the unknown column."),
    AGGREGATION("Keep all aggregations; only add the missing columns to GROUP BY."),
    AGGREGATE_IN_WHERE("An aggregate cannot filter rows in WHERE: move that condition to HAVING after GROUP BY, or compute"
            + " the aggregate in a subquery and filter outside it."),
    WINDOW_IN_WHERE("A window function cannot be used in WHERE: compute it in a subquery or CTE, then filter on it in the"
            + " outer query."),
    NESTED_AGGREGATE("Aggregates cannot be nested: aggregate in a subquery first, then aggregate its result."),
    EMPTY_ANSWER("The query ran but returned nothing, and the question asks for rows: join each id to the id it refers to,"
            + " and check each filter's values against the data."),
    TABLE("Use only tables listed in the schema."),
    UNSUPPORTED_FUNCTION("Replace the function with a %s built-in of the same meaning."),
    TYPE_MISMATCH("Make both sides the same type: cast explicitly or use a literal of the column's type."),
    SYNTAX("Fix the %s syntax; return one complete statement."),
    JOIN("Qualify every column with its table alias and check the join conditions."),
    TIMEOUT("Make it cheaper: filter early, aggregate before joining, avoid cross joins and SELECT *."),
    TOO_EXPENSIVE("Read less: add a filter on the partition or date column of the largest table named, aggregate before"
            + " joining, select only the columns needed; a LIMIT helps only where the engine stops reading early."),
    CONSTRAINT_VIOLATION("Keep what works and change the SQL so it answers exactly what the question asks."),
    READ_ONLY("Only reading is allowed: answer with a single SELECT (or WITH) query."),
    LLM_OUTPUT_INVALID("Answer with exactly one %s query and nothing else."),
    GENERIC("Fix the error.");

    /** Caps the schema facts so the prompt stays concise on wide tables. */
    private static final int MAX_LISTED = 30;

    private final String instruction;

    CorrectionStrategy(String instruction) {
        this.instruction = instruction;
    }

    private static final java.util.regex.Pattern WINDOW_WHERE = java.util.regex.Pattern.compile(
            "window functions? (are not allowed )?in where|where clause cannot contain window|window functions inside where"
                    + "|invalid_where_condition.*(windowspecdefinition|\\bover\\b)|where clause cannot contain aggregations.*\\bover\\b",
            java.util.regex.Pattern.CASE_INSENSITIVE | java.util.regex.Pattern.DOTALL);
    private static final java.util.regex.Pattern AGGREGATE_WHERE = java.util.regex.Pattern.compile(
            "aggregate functions? (are not allowed )?in where|where clause cannot contain aggregat|invalid_where_condition"
                    + "|not yet supported place for udaf",
            java.util.regex.Pattern.CASE_INSENSITIVE | java.util.regex.Pattern.DOTALL);
    private static final java.util.regex.Pattern NESTED = java.util.regex.Pattern.compile(
            "aggregate function calls cannot be nested|cannot be nested|nested aggregat",
            java.util.regex.Pattern.CASE_INSENSITIVE);

    /**
     * The strategy for an error as the engine or the validator worded it: an aggregation error is not always a missing
     * GROUP BY column — an aggregate or a window function in WHERE, or nested aggregates, each need their own advice
     * (the probe's aggregate-in-WHERE faults got "only add the missing columns to GROUP BY").
     */
    public static CorrectionStrategy forIssue(ErrorCategory category, String message) {
        if (message != null && (message.startsWith(EmptyAnswer.NO_ROWS) || message.startsWith(EmptyAnswer.NULL_ROW))) return EMPTY_ANSWER;
        if (message != null && (category == ErrorCategory.AGGREGATION_ERROR || category == ErrorCategory.SYNTAX_ERROR
                || category == ErrorCategory.UNKNOWN)) {
            if (WINDOW_WHERE.matcher(message).find()) return WINDOW_IN_WHERE;
            if (AGGREGATE_WHERE.matcher(message).find()) return AGGREGATE_IN_WHERE;
            if (category == ErrorCategory.AGGREGATION_ERROR && NESTED.matcher(message).find()) return NESTED_AGGREGATE;
        }
        return forCategory(category);
    }

    public static CorrectionStrategy forCategory(ErrorCategory category) {
        return switch (category) {
            case COLUMN_NOT_FOUND -> COLUMN;
            case AGGREGATION_ERROR -> AGGREGATION;
            case TABLE_NOT_FOUND -> TABLE;
            case UNSUPPORTED_FUNCTION -> UNSUPPORTED_FUNCTION;
            case TYPE_MISMATCH -> TYPE_MISMATCH;
            case SYNTAX_ERROR -> SYNTAX;
            case JOIN_ERROR -> JOIN;
            case TIMEOUT -> TIMEOUT;
            case TOO_EXPENSIVE -> TOO_EXPENSIVE;
            case CONSTRAINT_VIOLATION -> CONSTRAINT_VIOLATION;
            case READ_ONLY_VIOLATION -> READ_ONLY;
            case LLM_OUTPUT_INVALID -> LLM_OUTPUT_INVALID;
            case PERMISSION_DENIED, CONNECTION_ERROR, UNKNOWN -> GENERIC;
        };
    }

    /** The instruction, with schema facts for column and table errors. */
    public String guidance(Dialect dialect, QuestionTask task) {
        String line = instruction.contains("%s") ? instruction.formatted(dialect.displayName()) : instruction;
        LinkedSchema schema = task.linkedSchema();
        if (schema == null || schema.tables().isEmpty()) return line;
        return switch (this) {
            case COLUMN -> {
                String sql = task.sql() == null ? "" : task.sql().toLowerCase(Locale.ROOT);
                List<LinkedSchema.Table> used = schema.tables().stream()
                        .filter(t -> sql.contains(simpleName(t.name()).toLowerCase(Locale.ROOT))).toList();
                List<LinkedSchema.Table> tables = used.isEmpty() ? schema.tables() : used;
                String columns = tables.stream()
                        .map(t -> simpleName(t.name()) + "(" + t.columns().stream().map(LinkedSchema.Column::name)
                                .limit(MAX_LISTED).collect(Collectors.joining(", ")) + ")")
                        .collect(Collectors.joining("; "));
                yield line + " Valid columns: " + columns + ".";
            }
            case TABLE -> line + " Tables: " + schema.tables().stream().map(LinkedSchema.Table::name).limit(MAX_LISTED)
                    .collect(Collectors.joining(", ")) + ".";
            default -> line;
        };
    }

    private static String simpleName(String qualified) {
        int dot = qualified.lastIndexOf('.');
        return dot < 0 ? qualified : qualified.substring(dot + 1);
    }
}
