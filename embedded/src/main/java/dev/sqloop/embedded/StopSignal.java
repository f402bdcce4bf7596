package dev.sqloop.embedded;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Ctrl-C or SIGTERM for a command that runs until stopped ({@code serve}, {@code demo --serve}, {@code broker}): {@link #await()}
 * returns when the signal comes, and the JVM's exit then waits until this is {@link #close() closed}, after the
 * caller's own close. A shutdown hook that only released the main thread let the JVM halt in the middle of that close:
 * the gateway's Kafka Streams never wrote its checkpoints, and the next start logged its tasks as corrupted.
 */
final class StopSignal implements AutoCloseable {
    /** The longest the exit waits for a close that hangs. */
    static final Duration CLOSE_BOUND = Duration.ofMinutes(2);

    private final CountDownLatch stop = new CountDownLatch(1);
    private final CountDownLatch closed = new CountDownLatch(1);

    StopSignal() {
        Thread hook = Thread.ofPlatform().name("sqloop-stop").unstarted(() -> {
            stop.countDown();
            try {
                closed.await(CLOSE_BOUND.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        Runtime.getRuntime().addShutdownHook(hook);
        // a JVM that loaded chDB (demo --dialect clickhouse --serve) ends by _exit: not before this close
        dev.sqloop.testkit.engines.ChdbLibrary.exitAfter(hook, CLOSE_BOUND);
    }

    /** Blocks until Ctrl-C or SIGTERM. */
    void await() throws InterruptedException {
        stop.await();
    }

    /** The caller has closed what it ran: the JVM may exit. */
    @Override
    public void close() {
        closed.countDown();
    }
}
