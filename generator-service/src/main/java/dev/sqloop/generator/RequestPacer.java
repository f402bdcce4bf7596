package dev.sqloop.generator;

import java.time.Duration;

/**
 * An optional rate limit on LLM calls: spaces calls at least {@code 1/perSecond} apart across all threads of a
 * worker, so a burst of retries or a large batch does not trip the endpoint's own limit. Off at 0.
 */
public final class RequestPacer {
    public static final RequestPacer OFF = new RequestPacer(0);

    private final long intervalNanos;
    private long nextSlot;

    public RequestPacer(double perSecond) {
        this.intervalNanos = perSecond <= 0 ? 0 : (long) (1_000_000_000L / perSecond);
        this.nextSlot = System.nanoTime();
    }

    /** Blocks until this caller's slot; each call reserves the next one. */
    public void await() throws InterruptedException {
        if (intervalNanos == 0) return;
        long slot;
        synchronized (this) {
            long now = System.nanoTime();
            slot = Math.max(now, nextSlot);
            nextSlot = slot + intervalNanos;
        }
        long wait = slot - System.nanoTime();
        if (wait > 0) Thread.sleep(Duration.ofNanos(wait));
    }
}
