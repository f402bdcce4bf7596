package dev.sqloop.generator;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.error.ErrorCategory;
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
    TABLE("Use only tables listed in the schema."),
    UNSUPPORTED_FUNCTION("Replace the function with a %s built-in of the same meaning."),
    TYPE_MISMATCH("Make both sides the same type: cast explicitly or use a literal of the column's type."),
    SYNTAX("Fix the %s syntax; return one complete statement."),
    JOIN("Qualify every column with its table alias and check the join conditions."),
    TIMEOUT("Make it cheaper: filter early, aggregate before joining, avoid cross joins and SELECT *."),
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
