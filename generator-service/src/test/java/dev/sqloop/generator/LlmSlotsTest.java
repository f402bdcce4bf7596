package dev.sqloop.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LlmSlotsTest {

    @Test
    void shouldGiveAFreedSlotToACorrectionBeforeFirstAttemptsThatWaitedLonger() throws Exception {
        LlmSlots slots = new LlmSlots(1);
        slots.acquire(false);
        List<String> order = new CopyOnWriteArrayList<>();
        Thread first1 = waiter(slots, false, "first-1", order);
        awaitWaiting(first1);
        Thread first2 = waiter(slots, false, "first-2", order);
        awaitWaiting(first2);
        Thread correction = waiter(slots, true, "correction", order);
        awaitWaiting(correction);

        slots.release();
        for (Thread t : List.of(first1, first2, correction)) t.join(TimeUnit.SECONDS.toMillis(10));
        assertEquals(List.of("correction", "first-1", "first-2"), order, "corrections first, then first attempts in arrival order");
        assertEquals(1, slots.available());
    }

    @Test
    void shouldLetFirstAttemptsThroughWhileSlotsAreFree() throws Exception {
        LlmSlots slots = new LlmSlots(2);
        slots.acquire(false);
        slots.acquire(true);
        assertEquals(0, slots.available());
        slots.release();
        slots.release();
        assertEquals(2, slots.available());
        assertThrows(IllegalStateException.class, slots::release);
    }

    @Test
    void shouldIntegrateTheSlotsHeldOverTime() throws Exception {
        LlmSlots slots = new LlmSlots(4);
        assertEquals(0.0, slots.busySeconds(), 1e-3, "nothing held yet");
        slots.acquire(false);
        slots.acquire(true);
        assertEquals(2, slots.inUse());
        long start = System.nanoTime();
        Thread.sleep(200);
        slots.release();
        double held = (System.nanoTime() - start) / 1e9;
        Thread.sleep(100);
        slots.release();
        double afterBoth = slots.busySeconds();
        // two slots for `held` seconds, then one for 0.1 s or more: at least 0.5 slot-seconds, and no more than what the
        // two slots could have been held for between their acquisition and now
        assertTrue(afterBoth >= 2 * 0.2 + 0.1, "two slots for 0.2 s and one for 0.1 s more: " + afterBoth);
        assertTrue(afterBoth <= 2 * held + (System.nanoTime() - start) / 1e9, "no more than held: " + afterBoth);
        Thread.sleep(50);
        assertEquals(afterBoth, slots.busySeconds(), 1e-9, "free slots add nothing");
        assertEquals(0, slots.inUse());
        assertEquals(4, slots.capacity());
    }

    /** Each waiter takes a slot, notes its turn and gives the slot back, so the next in line can go. */
    private static Thread waiter(LlmSlots slots, boolean correction, String name, List<String> order) {
        return Thread.ofPlatform().name(name).start(() -> {
            try {
                slots.acquire(correction);
                order.add(name);
                slots.release();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }

    private static void awaitWaiting(Thread t) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (t.getState() != Thread.State.WAITING && System.nanoTime() < deadline) Thread.sleep(5);
        assertTrue(t.getState() == Thread.State.WAITING, name(t) + " waits for a slot");
    }

    private static String name(Thread t) {
        return t.getName();
    }
}
