package dev.sqloop.common.error;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** The error taxonomy shared by the validator, the executor, the repair worker and the metrics. */
public enum ErrorCategory {
    COLUMN_NOT_FOUND,
    TABLE_NOT_FOUND,
    AGGREGATION_ERROR,
    SYNTAX_ERROR,
    TYPE_MISMATCH,
    UNSUPPORTED_FUNCTION,
    JOIN_ERROR,
    TIMEOUT,
    PERMISSION_DENIED,
    CONNECTION_ERROR,
    READ_ONLY_VIOLATION,
    CONSTRAINT_VIOLATION,
    LLM_OUTPUT_INVALID,
    UNKNOWN;

    /** Wire and metric form: {@code column_not_found}. */
    @JsonValue
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    @JsonCreator
    public static ErrorCategory fromWire(String value) {
        return valueOf(value.trim().toUpperCase(Locale.ROOT));
    }

    /** Categories where asking the LLM again cannot help: the repair loop stops on them. */
    public boolean retryable() {
        return this != PERMISSION_DENIED && this != CONNECTION_ERROR;
    }
}
