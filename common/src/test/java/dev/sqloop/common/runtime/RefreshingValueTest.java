package dev.sqloop.common.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import dev.sqloop.testkit.ManualClock;
import org.junit.jupiter.api.Test;

class RefreshingValueTest {
    private static final Duration TTL = Duration.ofMinutes(10);
    private static final Duration PAUSE = Duration.ofSeconds(30);

    private final ManualClock clock = new ManualClock("2026-11-27T10:00:00Z");
    /** Reloads handed to the background, run when the test says. */
    private final List<Runnable> reloads = new ArrayList<>();
    private final List<Exception> reported = new ArrayList<>();

    private RefreshingValue<String> value(RefreshingValue.Loader<String> loader) {
        return new RefreshingValue<>(loader, TTL, PAUSE, clock, reloads::add, reported::add);
    }

    @Test
    void shouldLoadOnceForCallersArrivingTogetherOnAColdValue() throws Exception {
        AtomicInteger loads = new AtomicInteger();
        CountDownLatch release = new CountDownLatch(1);
        RefreshingValue<String> value = value(() -> {
            loads.incrementAndGet();
            release.await();
            return "schema";
        });
        ExecutorService callers = Executors.newFixedThreadPool(8);
        try {
            List<Future<String>> got = new ArrayList<>();
            for (int i = 0; i < 8; i++) got.add(callers.submit(value::get));
            Thread.sleep(200); // all eight are in get(): one loading, the rest waiting for it
            release.countDown();
            for (Future<String> f : got) assertEquals("schema", f.get(10, TimeUnit.SECONDS));
        } finally {
            callers.shutdownNow();
        }
        assertEquals(1, loads.get());
    }

    @Test
    void shouldServeTheValueInUseWhileOneReloadRunsAfterTheTtl() throws Exception {
        AtomicInteger loads = new AtomicInteger();
        RefreshingValue<String> value = value(() -> "v" + loads.incrementAndGet());
        assertEquals("v1", value.get());
        clock.advance(TTL.minusSeconds(1));
        assertEquals("v1", value.get());
        assertTrue(reloads.isEmpty(), "within the TTL nothing is reloaded");
        clock.advance(Duration.ofSeconds(1));
        assertEquals("v1", value.get(), "after the TTL the value in use answers at once");
        assertEquals("v1", value.get());
        assertEquals(1, reloads.size(), "one reload at a time, however many callers");
        assertEquals(1, loads.get(), "the reload runs in the background, not in the caller");
        Instant reloadStarted = clock.instant();
        reloads.removeFirst().run();
        assertEquals("v2", value.get());
        assertEquals(reloadStarted, value.loadedAt());
        assertTrue(reloads.isEmpty());
    }

    @Test
    void shouldKeepServingThroughFailedReloadsAndRetryAfterThePause() throws Exception {
        AtomicInteger loads = new AtomicInteger();
        boolean[] down = {false};
        RefreshingValue<String> value = value(() -> {
            loads.incrementAndGet();
            if (down[0]) throw new SQLException("connection refused");
            return "v" + loads.get();
        });
        assertEquals("v1", value.get());
        down[0] = true;
        clock.advance(TTL);
        assertEquals("v1", value.get());
        reloads.removeFirst().run();
        assertEquals(1, reported.size(), "a failed reload is reported");
        assertEquals("connection refused", reported.getFirst().getMessage());
        clock.advance(PAUSE.minusSeconds(1));
        assertEquals("v1", value.get(), "the value in use keeps serving");
        assertTrue(reloads.isEmpty(), "no reload within the pause after a failure");
        clock.advance(Duration.ofSeconds(1));
        down[0] = false;
        assertEquals("v1", value.get());
        reloads.removeFirst().run();
        assertEquals("v3", value.get(), "the source back: the next reload replaces the value");
        assertEquals(3, loads.get());
    }

    @Test
    void shouldFailAFirstLoadAndNotRetryItForEveryCallerQueuedBehindIt() throws Exception {
        AtomicInteger loads = new AtomicInteger();
        boolean[] down = {true};
        RefreshingValue<String> value = value(() -> {
            loads.incrementAndGet();
            if (down[0]) throw new SQLException("connection refused");
            return "schema";
        });
        assertEquals("connection refused", assertThrows(SQLException.class, value::get).getMessage());
        clock.advance(RefreshingValue.FIRST_LOAD_PAUSE.minusMillis(1));
        assertEquals("connection refused", assertThrows(SQLException.class, value::get).getMessage());
        assertEquals(1, loads.get(), "a caller within the pause gets the same failure without a load");
        assertNull(value.loadedAt());
        clock.advance(Duration.ofMillis(1));
        assertEquals("connection refused", assertThrows(SQLException.class, value::get).getMessage());
        assertEquals(2, loads.get(), "after the short pause a caller loads again (no value: the source may be back)");
        clock.advance(RefreshingValue.FIRST_LOAD_PAUSE);
        down[0] = false;
        assertEquals("schema", value.get());
        assertEquals(3, loads.get());
        assertTrue(reported.isEmpty(), "a first load's failure goes to its caller, not to the reload report");
    }

    @Test
    void shouldReloadOnItsOwnThreadByDefault() throws Exception {
        AtomicInteger loads = new AtomicInteger();
        List<String> threads = new java.util.concurrent.CopyOnWriteArrayList<>();
        RefreshingValue<String> value = new RefreshingValue<>(() -> {
            threads.add(Thread.currentThread().getName());
            return "v" + loads.incrementAndGet();
        }, TTL, PAUSE, clock, RefreshingValue.daemonThread("schema-reload-test"), reported::add);
        assertEquals("v1", value.get());
        clock.advance(TTL);
        assertEquals("v1", value.get());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!value.get().equals("v2") && System.nanoTime() < deadline) Thread.sleep(10);
        assertEquals("v2", value.get());
        assertEquals("schema-reload-test", threads.get(1));
    }
}
