package dev.sqloop.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.runtime.InfrastructureException;
import dev.sqloop.testkit.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The windowing of generate requests: sealed by count, bytes and age; a task leaves its window when its input is abandoned. */
class BatchWindowsTest {
    private final ManualClock clock = new ManualClock(Instant.parse("2026-12-02T05:00:00Z"));
    private final List<ProviderBatch> recorded = new CopyOnWriteArrayList<>();

    private static ProviderBatchSettings settings(int maxRequests, long maxBytes, Duration maxAge) {
        return new ProviderBatchSettings(true, maxRequests, maxBytes, maxAge, Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofHours(26));
    }

    private static QuestionTask task(String id) {
        return QuestionTask.create(id, "t", "demo", "How many orders in " + id + "?", 3, Instant.parse("2026-12-02T04:59:00Z"));
    }

    /** Waits (bounded) until {@code n} tasks sit in the open window. */
    private static void awaitOpen(BatchWindows windows, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (windows.openRequests() != n) {
            assertTrue(System.nanoTime() < deadline, "open requests " + windows.openRequests() + ", expected " + n);
            Thread.sleep(5);
        }
    }

    @Test
    void shouldSealAWindowAtItsRequestCountAndAnswerOnlyOnceItIsRecorded() throws Exception {
        ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
        try (BatchWindows windows = new BatchWindows(settings(3, 1_000_000, Duration.ofHours(1)), recorded::add, clock)) {
            Future<String> a = threads.submit(() -> windows.enqueue(task("q1")));
            Future<String> b = threads.submit(() -> windows.enqueue(task("q2")));
            awaitOpen(windows, 2);
            assertTrue(!a.isDone() && !b.isDone(), "no request answered before its window is recorded");
            String w = windows.enqueue(task("q3"));
            assertEquals(w, a.get(30, TimeUnit.SECONDS));
            assertEquals(w, b.get(30, TimeUnit.SECONDS));
            assertEquals(1, recorded.size());
            assertEquals(w, recorded.getFirst().windowId());
            assertEquals(ProviderBatch.State.SEALED, recorded.getFirst().state());
            assertEquals(3, recorded.getFirst().tasks().size());
            assertEquals(0, windows.openRequests());
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void shouldSealAWindowBeforeItOutgrowsItsByteLimit() throws Exception {
        long oneTask = dev.sqloop.common.JsonCodec.encode(task("q1")).length;
        ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
        // room for two tasks, not three
        try (BatchWindows windows = new BatchWindows(settings(100, oneTask * 2 + oneTask / 2, Duration.ofHours(1)), recorded::add, clock)) {
            Future<String> a = threads.submit(() -> windows.enqueue(task("q1")));
            awaitOpen(windows, 1);
            Future<String> b = threads.submit(() -> windows.enqueue(task("q2")));
            awaitOpen(windows, 2);
            Future<String> c = threads.submit(() -> windows.enqueue(task("q3")));
            String first = a.get(30, TimeUnit.SECONDS);
            assertEquals(first, b.get(30, TimeUnit.SECONDS));
            awaitOpen(windows, 1);
            assertTrue(!c.isDone(), "the third task opened the next window");
            assertEquals(List.of(2), recorded.stream().map(w -> w.tasks().size()).toList());
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void shouldSealAWindowWhenItsOldestRequestHasWaitedItsMaxAge() throws Exception {
        ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
        try (BatchWindows windows = new BatchWindows(settings(100, 1_000_000, Duration.ofHours(1)), recorded::add, clock)) {
            Future<String> a = threads.submit(() -> windows.enqueue(task("q1")));
            awaitOpen(windows, 1);
            clock.advance(Duration.ofMinutes(59));
            windows.sealIfOld();
            assertEquals(0, recorded.size(), "younger than its max age");
            clock.advance(Duration.ofMinutes(1));
            windows.sealIfOld();
            assertEquals(recorded.getFirst().windowId(), a.get(30, TimeUnit.SECONDS));
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void shouldTakeAnAbandonedRequestOutOfItsWindow() throws Exception {
        try (BatchWindows windows = new BatchWindows(settings(100, 1_000_000, Duration.ofHours(1)), recorded::add, clock)) {
            Thread waiter = Thread.ofVirtual().start(() -> {
                try {
                    windows.enqueue(task("q1"));
                } catch (InterruptedException expected) {
                    // the runner stopped: the input stays uncommitted
                }
            });
            awaitOpen(windows, 1);
            waiter.interrupt();
            waiter.join(30_000);
            assertEquals(0, windows.openRequests(), "a request whose input will be delivered again is in no window");
            clock.advance(Duration.ofHours(2));
            windows.sealIfOld();
            assertEquals(0, recorded.size(), "nothing left to submit");
        }
    }

    @Test
    void shouldFailItsRequestsForARetryWhenTheWindowCannotBeRecorded() {
        BatchWindows.Recorder broken = w -> {
            throw new java.util.concurrent.TimeoutException("broker away");
        };
        try (BatchWindows windows = new BatchWindows(settings(1, 1_000_000, Duration.ofHours(1)), broken, clock)) {
            InfrastructureException e = assertThrows(InfrastructureException.class, () -> windows.enqueue(task("q1")));
            assertTrue(e.getMessage().contains("broker away"), e.getMessage());
        }
    }
}
