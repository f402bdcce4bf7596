package dev.sqloop.common.message;

import dev.sqloop.common.error.ErrorCategory;
import java.util.List;
import java.util.Objects;

/**
 * One problem a stage found with an attempt's SQL: its category, the message (engine text or validator
 * reason), the offending identifier when known and near candidates ("did you mean").
 *
 * @param hint true for a doubt from a heuristic (the question's wording, a sampled value) that never fails a
 *     query on its own: the SQL runs when nothing but hints was found, and a correction prompt does not present
 *     a hint as an error. False for errors (parse, read-only, unknown table/column/function, aggregation, type).
 */
public record Issue(String stage, ErrorCategory category, String message, String identifier, List<String> candidates,
                    boolean hint) {
    public Issue {
        Objects.requireNonNull(category, "category");
        message = message == null ? "" : message;
        candidates = candidates == null ? List.of() : List.copyOf(candidates);
    }

    /** An error. */
    public Issue(String stage, ErrorCategory category, String message, String identifier, List<String> candidates) {
        this(stage, category, message, identifier, candidates, false);
    }

    public static Issue of(String stage, ErrorCategory category, String message) {
        return new Issue(stage, category, message, null, List.of());
    }

    /** A heuristic doubt that does not fail a query on its own. */
    public static Issue hint(String stage, ErrorCategory category, String message, String identifier) {
        return new Issue(stage, category, message, identifier, List.of(), true);
    }

    public boolean error() {
        return !hint;
    }
}
