package dev.sqloop.common.runtime;

import java.time.Duration;
import java.util.Optional;

/**
 * A failure of something the stage depends on (LLM endpoint, warehouse, store) that may pass: the runner
 * retries the same step with backoff. It never counts as a repair attempt and never changes the SQL.
 */
public class InfrastructureException extends RuntimeException {
    private final transient Duration retryAfter;

    public InfrastructureException(String message, Throwable cause) {
        this(message, cause, null);
    }

    /** @param retryAfter the server's own hint (HTTP Retry-After), honoured instead of the computed backoff */
    public InfrastructureException(String message, Throwable cause, Duration retryAfter) {
        super(message, cause);
        this.retryAfter = retryAfter;
    }

    public Optional<Duration> retryAfter() {
        return Optional.ofNullable(retryAfter);
    }
}
