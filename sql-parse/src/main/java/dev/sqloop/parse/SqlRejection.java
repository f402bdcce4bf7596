package dev.sqloop.parse;

import dev.sqloop.common.error.ErrorCategory;

/**
 * Thrown by a dialect parser when the SQL cannot be a single read-only query: a syntax error
 * ({@link ErrorCategory#SYNTAX_ERROR}, with the parser's line/column) or a write or evasion attempt
 * ({@link ErrorCategory#READ_ONLY_VIOLATION}). Never escapes the validator: it becomes an issue.
 */
public final class SqlRejection extends Exception {
    private final ErrorCategory category;
    private final String identifier;

    public SqlRejection(ErrorCategory category, String message, String identifier) {
        super(message, null, false, false);
        this.category = category;
        this.identifier = identifier;
    }

    /**
     * A parsed statement that is not a query, named as SQL names it ({@code CreateTableAsSelect} → {@code CREATE TABLE
     * AS SELECT}) so the repair prompt and the user read the statement they wrote, not a parser class.
     */
    static SqlRejection notAQuery(Object statement) {
        String kind = statement.getClass().getSimpleName().replaceAll("([a-z])([A-Z])", "$1 $2").toUpperCase(java.util.Locale.ROOT);
        return readOnly(kind + " statement: sqloop runs read-only queries only; write a single SELECT (or WITH … SELECT) instead", kind);
    }

    public static SqlRejection readOnly(String message, String identifier) {
        return new SqlRejection(ErrorCategory.READ_ONLY_VIOLATION, message, identifier);
    }

    public static SqlRejection syntax(String message) {
        return new SqlRejection(ErrorCategory.SYNTAX_ERROR, message, null);
    }

    public ErrorCategory category() {
        return category;
    }

    public String identifier() {
        return identifier;
    }
}
