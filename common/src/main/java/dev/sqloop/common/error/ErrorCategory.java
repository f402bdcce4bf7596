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
    /**
     * Not run: the engine's estimate of what the query would read or cost is over the datasource's budget
     * ({@code _MAX_SCAN_ROWS}, {@code _MAX_SCAN_BYTES}, {@code _MAX_COST}). Repaired like other errors; a repair that
     * does not lower the estimate ends the question ({@link Outcomes#NON_RETRYABLE}).
     */
    TOO_EXPENSIVE,
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
