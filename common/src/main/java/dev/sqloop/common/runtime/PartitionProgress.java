package dev.sqloop.common.runtime;

import java.util.concurrent.ConcurrentSkipListSet;

/**
 * Offsets of one assigned partition that were fetched but are not finished yet. The committable offset is
 * the lowest unfinished one, so a commit never passes a record still in flight (records finish out of order).
 * One instance per assignment: after a revoke, late completions land on a discarded instance.
 */
final class PartitionProgress {
    private final ConcurrentSkipListSet<Long> open = new ConcurrentSkipListSet<>();
    private volatile long next = -1;
    private volatile boolean revoked;
    private long lastCommitted = -1;

    /** Called by the consumer thread for every fetched record, in offset order. */
    void track(long offset) {
        open.add(offset);
        next = offset + 1;
    }

    /** Called by a worker once the record's outputs were acknowledged by the broker. */
    void complete(long offset) {
        open.remove(offset);
    }

    /** Records of this partition handed to workers and not finished (fetched-but-unstarted ones excluded). */
    private final java.util.concurrent.atomic.AtomicInteger running = new java.util.concurrent.atomic.AtomicInteger();

    void started() {
        running.incrementAndGet();
    }

    void finished() {
        running.decrementAndGet();
    }

    int running() {
        return running.get();
    }

    /** The offset to commit (next to read), or -1 when nothing new finished since the last commit. Consumer thread only. */
    long committable() {
        if (next < 0) return -1;
        Long first = open.ceiling(Long.MIN_VALUE);
        long candidate = first == null ? next : first;
        return candidate > lastCommitted ? candidate : -1;
    }

    void committed(long offset) {
        lastCommitted = Math.max(lastCommitted, offset);
    }

    /** An async commit failed: offer the same offset again at the next commit. */
    void commitFailed() {
        lastCommitted = -1;
    }

    void revoke() {
        revoked = true;
    }

    boolean revoked() {
        return revoked;
    }
}
