package dev.sqloop.gateway;

import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Slows API-key guessing, on the API and the console's sign-in alike: a client address that presented
 * {@link #MAX_WRONG_KEYS} unknown keys within {@link #WINDOW} is refused (429, with Retry-After) whatever key it
 * presents until that window has passed. A missing key is no guess and does not count. Addresses are those the
 * gateway sees (a proxy in front makes them one: put the limit at the proxy then).
 */
final class KeyGuesses {
    static final int MAX_WRONG_KEYS = 20;
    static final Duration WINDOW = Duration.ofMinutes(1);
    /** Addresses remembered at most; past it the expired windows go, and if none has, the oldest half. */
    static final int MAX_CLIENTS = 10_000;

    private record Window(Instant start, int wrong) {}

    private final Map<String, Window> byClient = new ConcurrentHashMap<>();

    /** Seconds until {@code client} may try again, 0 when it may now. */
    long lockedFor(String client, Instant now) {
        Window w = byClient.get(client);
        if (w == null || w.wrong() < MAX_WRONG_KEYS) return 0;
        long left = Duration.between(now, w.start().plus(WINDOW)).toSeconds();
        if (left <= 0) {
            byClient.remove(client, w);
            return 0;
        }
        return left;
    }

    /** {@code client} presented an unknown key. */
    void wrongKey(String client, Instant now) {
        if (byClient.size() >= MAX_CLIENTS) evict(now);
        byClient.compute(client, (c, w) -> w == null || !now.isBefore(w.start().plus(WINDOW))
                ? new Window(now, 1) : new Window(w.start(), w.wrong() + 1));
    }

    /** Addresses remembered now. */
    int clients() {
        return byClient.size();
    }

    private void evict(Instant now) {
        byClient.values().removeIf(w -> !now.isBefore(w.start().plus(WINDOW)));
        if (byClient.size() < MAX_CLIENTS) return;
        int drop = byClient.size() / 2;
        for (Iterator<String> it = byClient.keySet().iterator(); it.hasNext() && drop-- > 0; ) {
            it.next();
            it.remove();
        }
    }

    /** The refusal a locked-out client gets. */
    static ApiError refusal(long seconds) {
        return new ApiError(429, "too_many_requests", "too many unknown API keys from this address; try again in " + seconds
                + " s", null, null);
    }
}
