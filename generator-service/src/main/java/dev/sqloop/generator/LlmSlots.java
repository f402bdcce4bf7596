package dev.sqloop.generator;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The LLM's concurrency limit with two lanes: a correction (a question already in repair) takes the next free slot
 * before any first attempt that waits. Within a lane, waiters are served in arrival order (a fair lock). Without
 * it, a batch queues every first attempt ahead of every correction, and a question's latency becomes the batch's
 * length. First attempts cannot starve corrections; corrections can hold first attempts back, which is the point:
 * their number is bounded by the questions in flight.
 */
final class LlmSlots {
    private final ReentrantLock lock = new ReentrantLock(true);
    private final Condition urgentTurn = lock.newCondition();
    private final Condition normalTurn = lock.newCondition();
    private final int capacity;
    private int free;
    private int urgentWaiting;

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
            free--;
        } finally {
            lock.unlock();
        }
    }

    void release() {
        lock.lock();
        try {
            if (free >= capacity) throw new IllegalStateException("released more slots than acquired");
            free++;
            if (urgentWaiting > 0) urgentTurn.signal();
            else normalTurn.signal();
        } finally {
            lock.unlock();
        }
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
