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
 * @param overBudget for {@code too_expensive}: how many times over the datasource's budget the engine's estimate was
 *     (the largest ratio among the limits it broke), so the repair worker can tell whether a repair lowered it; null
 *     for every other issue
 */
public record Issue(String stage, ErrorCategory category, String message, String identifier, List<String> candidates,
                    boolean hint, Double overBudget) {
    public Issue {
        Objects.requireNonNull(category, "category");
        message = message == null ? "" : message;
        candidates = candidates == null ? List.of() : List.copyOf(candidates);
    }

    public Issue(String stage, ErrorCategory category, String message, String identifier, List<String> candidates,
                 boolean hint) {
        this(stage, category, message, identifier, candidates, hint, null);
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
