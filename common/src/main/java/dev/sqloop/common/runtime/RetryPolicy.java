package dev.sqloop.common.runtime;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Infrastructure retry: exponential backoff with full jitter, bounded by a number of retries.
 * The one place sqloop decides how long to wait before trying the same step again.
 */
public record RetryPolicy(int maxRetries, Duration initialBackoff, Duration maxBackoff, double multiplier) {
    public static final RetryPolicy DEFAULT = new RetryPolicy(5, Duration.ofMillis(200), Duration.ofSeconds(10), 2.0);

    public RetryPolicy {
        if (maxRetries < 0) throw new IllegalArgumentException("maxRetries must be >= 0");
        if (multiplier < 1.0) throw new IllegalArgumentException("multiplier must be >= 1");
    }

    public boolean canRetry(int retriesSoFar) {
        return retriesSoFar < maxRetries;
    }

    /**
     * Delay before retry number {@code retry} (1-based): a random point in [cap/2, cap] where cap grows
     * exponentially, so that many records failing together do not retry in lockstep. A server's
     * Retry-After wins when present, still capped at {@code maxBackoff}.
     */
    public Duration delay(int retry, Duration retryAfter) {
        if (retryAfter != null && !retryAfter.isNegative()) {
            return retryAfter.compareTo(maxBackoff) > 0 ? maxBackoff : retryAfter;
        }
        double cap = Math.min(maxBackoff.toMillis(), initialBackoff.toMillis() * Math.pow(multiplier, retry - 1));
        long millis = (long) (cap / 2 + ThreadLocalRandom.current().nextDouble() * cap / 2);
        return Duration.ofMillis(Math.max(1, millis));
    }
}
