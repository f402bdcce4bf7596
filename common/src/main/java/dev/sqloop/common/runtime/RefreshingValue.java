package dev.sqloop.common.runtime;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * A value read from a slow, fallible source (a warehouse's schema, its catalog) and kept for a time-to-live.
 * <ul>
 *   <li>Only the first load is waited for, and by one caller at a time: the callers that arrive meanwhile (a batch's
 *       hundreds of questions on a cold cache) wait for it instead of each loading.</li>
 *   <li>After the TTL the previous value keeps serving while one load in the background replaces it: a reload of a
 *       large warehouse's schema (a query per table) never stalls the callers.</li>
 *   <li>While loads fail, the previous value keeps serving, and the next load waits {@code retryPause}: a metadata
 *       outage neither empties the value nor sends a load per caller at the failing source.</li>
 *   <li>A failed first load throws to the caller that ran it, and to every caller within {@link #FIRST_LOAD_PAUSE} of
 *       it without another load: the callers queued behind it would each wait for the same timeout. The pause is short,
 *       since with no value yet every caller fails meanwhile (a runner's retries of an outage must see the source back
 *       soon after it is).</li>
 * </ul>
 */
public final class RefreshingValue<V> {

    /** Reads a fresh value; never null. */
    @FunctionalInterface
    public interface Loader<V> {
        V load() throws Exception;
    }

    /** After a failed first load, how long callers get its failure without another load (at most {@code retryPause}). */
    public static final Duration FIRST_LOAD_PAUSE = Duration.ofSeconds(2);

    private record Loaded<V>(V value, Instant at) {}

    private record Failed(Exception cause, Instant at) {}

    private final Loader<V> loader;
    private final Duration ttl;
    private final Duration retryPause;
    private final Clock clock;
    private final Executor background;
    private final Consumer<Exception> onReloadFailure;
    private final Object firstLoad = new Object();
    private final AtomicBoolean reloading = new AtomicBoolean();
    private volatile Loaded<V> loaded;
    private volatile Failed failed;

    /**
     * @param background runs the reloads after the TTL (one at a time)
     * @param onReloadFailure told of each failed reload (the previous value keeps serving), to log it
     */
    public RefreshingValue(Loader<V> loader, Duration ttl, Duration retryPause, Clock clock, Executor background,
                           Consumer<Exception> onReloadFailure) {
        this.loader = Objects.requireNonNull(loader, "loader");
        this.ttl = Objects.requireNonNull(ttl, "ttl");
        this.retryPause = Objects.requireNonNull(retryPause, "retryPause");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.background = Objects.requireNonNull(background, "background");
        this.onReloadFailure = Objects.requireNonNull(onReloadFailure, "onReloadFailure");
    }

    /** Runs each reload on a daemon thread of its own named {@code threadName} (a reload is rare and may block for long). */
    public static Executor daemonThread(String threadName) {
        return task -> Thread.ofPlatform().daemon().name(threadName).start(task);
    }

    /** The value: the cached one (a reload started in the background when it is older than the TTL), else a first load. */
    public V get() throws Exception {
        Loaded<V> current = loaded;
        if (current != null) {
            Instant now = clock.instant();
            if (!now.isBefore(current.at().plus(ttl)) && !pausing(now) && reloading.compareAndSet(false, true)) {
                try {
                    background.execute(this::reload);
                } catch (RejectedExecutionException e) {
                    reloading.set(false);
                }
            }
            return current.value();
        }
        synchronized (firstLoad) {
            current = loaded;
            if (current != null) return current.value();
            Instant now = clock.instant();
            Failed last = failed;
            Duration pause = retryPause.compareTo(FIRST_LOAD_PAUSE) < 0 ? retryPause : FIRST_LOAD_PAUSE;
            if (last != null && now.isBefore(last.at().plus(pause))) throw last.cause();
            try {
                V value = Objects.requireNonNull(loader.load(), "loaded value");
                loaded = new Loaded<>(value, now);
                failed = null;
                return value;
            } catch (Exception e) {
                failed = new Failed(e, clock.instant());
                throw e;
            }
        }
    }

    /** Whether a load failed less than the retry pause ago. */
    private boolean pausing(Instant now) {
        Failed last = failed;
        return last != null && now.isBefore(last.at().plus(retryPause));
    }

    private void reload() {
        try {
            Instant started = clock.instant();
            try {
                V value = Objects.requireNonNull(loader.load(), "loaded value");
                loaded = new Loaded<>(value, started);
                failed = null;
            } catch (Exception e) {
                failed = new Failed(e, clock.instant());
                onReloadFailure.accept(e);
            }
        } finally {
            reloading.set(false);
        }
    }

    /** When the value in use was loaded; null before a first load. */
    public Instant loadedAt() {
        Loaded<V> current = loaded;
        return current == null ? null : current.at();
    }
}
