package dev.sqloop.common.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {
    private final RetryPolicy policy = new RetryPolicy(3, Duration.ofMillis(100), Duration.ofSeconds(1), 2.0);

    @Test
    void shouldGrowDelaysExponentiallyWithinJitterBounds() {
        for (int i = 0; i < 200; i++) {
            long first = policy.delay(1, null).toMillis();
            long third = policy.delay(3, null).toMillis();
            assertTrue(first >= 50 && first <= 100, "retry 1 within [50,100]: " + first);
            assertTrue(third >= 200 && third <= 400, "retry 3 within [200,400]: " + third);
        }
    }

    @Test
    void shouldCapDelaysAtMaxBackoff() {
        long tenth = policy.delay(10, null).toMillis();
        assertTrue(tenth >= 500 && tenth <= 1000, "capped: " + tenth);
    }

    @Test
    void shouldHonourRetryAfterButNotBeyondMaxBackoff() {
        assertEquals(Duration.ofMillis(700), policy.delay(1, Duration.ofMillis(700)));
        assertEquals(Duration.ofSeconds(1), policy.delay(1, Duration.ofSeconds(30)));
    }

    @Test
    void shouldStopAfterTheBudget() {
        assertTrue(policy.canRetry(2));
        assertFalse(policy.canRetry(3));
    }

    @Test
    void shouldRejectNonsense() {
        assertThrows(IllegalArgumentException.class, () -> new RetryPolicy(-1, Duration.ZERO, Duration.ZERO, 2));
        assertThrows(IllegalArgumentException.class, () -> new RetryPolicy(1, Duration.ZERO, Duration.ZERO, 0.5));
    }
}
