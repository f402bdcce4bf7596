package dev.sqloop.executor;

import dev.sqloop.common.error.ErrorCategory;
import java.util.List;

/**
 * An engine failure read from the engine's own signal: its taxonomy category, the message (stack trace cut),
 * the offending identifier and the engine's suggestions, and whether it is an infrastructure failure
 * (retried unchanged) rather than a property of the SQL.
 *
 * @param overBudget for {@code too_expensive} ({@link CostGuard}): how many times over its budget the estimate was
 */
public record EngineError(ErrorCategory category, String message, String identifier, List<String> candidates,
                          boolean infrastructure, Double overBudget) {
    public EngineError {
        candidates = candidates == null ? List.of() : List.copyOf(candidates);
        message = message == null ? "" : message;
    }

    public EngineError(ErrorCategory category, String message, String identifier, List<String> candidates, boolean infrastructure) {
        this(category, message, identifier, candidates, infrastructure, null);
    }

    public EngineError withMessage(String newMessage) {
        return new EngineError(category, newMessage, identifier, candidates, infrastructure, overBudget);
    }

    public static EngineError sql(ErrorCategory category, String message, String identifier, List<String> candidates) {
        return new EngineError(category, message, identifier, candidates, false);
    }

    public static EngineError sql(ErrorCategory category, String message) {
        return new EngineError(category, message, null, List.of(), false);
    }

    public static EngineError infrastructure(String message) {
        return new EngineError(ErrorCategory.CONNECTION_ERROR, message, null, List.of(), true);
    }
}
