package dev.sqloop.validator.parse;

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
