package dev.sqloop.generator;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The LLM's concurrency limit with two lanes: a correction (a question already in repair) takes the next free slot
 * before any first attempt that waits. Within a lane, waiters are served in arrival order (a fair lock). Without
 * it, a batch queues every first attempt ahead of every correction, and a question's latency becomes the batch's
 * length. First attempts cannot starve corrections; corrections can hold first attempts back, which is the point:
 * their number is bounded by the questions in flight.
 *
 * <p>It also keeps the integral of slots held over time ({@link #busySeconds()}): held slot-seconds over {@code
 * capacity ×} elapsed seconds is how full the limit was kept, which tells an operator whether the LLM's concurrency
 * limit or something before it binds.
 */
final class LlmSlots {
    private final ReentrantLock lock = new ReentrantLock(true);
    private final Condition urgentTurn = lock.newCondition();
    private final Condition normalTurn = lock.newCondition();
    private final int capacity;
    private int free;
    private int urgentWaiting;
    private long busyNanos;
    private long lastChangeNanos = System.nanoTime();

    LlmSlots(int capacity) {
        if (capacity < 1) throw new IllegalArgumentException("capacity must be ≥ 1: " + capacity);
        this.capacity = capacity;
        this.free = capacity;
    }

    /** Blocks until a slot is free for this lane; {@code correction} waiters go first. */
    void acquire(boolean correction) throws InterruptedException {
        lock.lockInterruptibly();
        try {
            if (correction) {
                urgentWaiting++;
                try {
                    while (free == 0) urgentTurn.await();
                } finally {
                    urgentWaiting--;
                }
            } else {
                while (free == 0 || urgentWaiting > 0) normalTurn.await();
            }
            account();
            free--;
        } finally {
            lock.unlock();
        }
    }

    /**
     * A slot, then the pacer's turn: what every LLM client waits for before a call. Holding the slot it took when the
     * wait ends; an interrupt while waiting gives the slot back and ends as an {@link InfrastructureException}.
     */
    void acquirePaced(boolean correction, RequestPacer pacer) {
        try {
            acquire(correction);
            try {
                pacer.await();
            } catch (InterruptedException e) {
                release();
                throw e;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new dev.sqloop.common.runtime.InfrastructureException("interrupted while waiting for an LLM slot", e);
        }
    }

    void release() {
        lock.lock();
        try {
            if (free >= capacity) throw new IllegalStateException("released more slots than acquired");
            account();
            free++;
            if (urgentWaiting > 0) urgentTurn.signal();
            else normalTurn.signal();
        } finally {
            lock.unlock();
        }
    }

    /** Adds the slots held since the last change to the integral; called under the lock before every change. */
    private void account() {
        long now = System.nanoTime();
        busyNanos += (capacity - free) * (now - lastChangeNanos);
        lastChangeNanos = now;
    }

    /** Slot-seconds held since this limit was created (a slot held for 2 s counts 2). */
    double busySeconds() {
        lock.lock();
        try {
            account();
            return busyNanos / 1e9;
        } finally {
            lock.unlock();
        }
    }

    int capacity() {
        return capacity;
    }

    int inUse() {
        return capacity - available();
    }

    int available() {
        lock.lock();
        try {
            return free;
        } finally {
            lock.unlock();
        }
    }
}
