package dev.sqloop.common.message;

import dev.sqloop.common.error.ErrorCategory;
import java.util.List;
import java.util.Objects;

/**
 * One problem a stage found with an attempt's SQL: its category, the message (engine text or validator
 * reason), the offending identifier when known and near candidates ("did you mean").
 */
public record Issue(String stage, ErrorCategory category, String message, String identifier, List<String> candidates) {
    public Issue {
        Objects.requireNonNull(category, "category");
        message = message == null ? "" : message;
        candidates = candidates == null ? List.of() : List.copyOf(candidates);
    }

    public static Issue of(String stage, ErrorCategory category, String message) {
        return new Issue(stage, category, message, null, List.of());
    }
}
