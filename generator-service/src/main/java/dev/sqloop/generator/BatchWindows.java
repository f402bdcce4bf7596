package dev.sqloop.generator;

import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.runtime.InfrastructureException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gathers generate requests into windows (by count, bytes and age) and records each sealed window durably before any
 * of its requests is acknowledged: the generate stage's call {@link #enqueue} returns only once the window holding its
 * task is on the {@code llm-batches} topic, so the runner commits the input then and not before. A generator that stops
 * earlier leaves the input uncommitted and takes it out of the open window: it is delivered again, never lost and never
 * in two windows. The runner's in-flight limit bounds a window: the generate runners get at least {@code maxRequests}.
 */
public final class BatchWindows implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(BatchWindows.class);

    /** Writes a sealed window and returns once it is acknowledged (the Kafka producer in production). */
    @FunctionalInterface
    public interface Recorder {
        void record(ProviderBatch window) throws Exception;
    }

    private record Pending(QuestionTask task, long bytes, CompletableFuture<String> recorded) {}

    private final ProviderBatchSettings settings;
    private final Recorder recorder;
    private final Clock clock;
    private final Object lock = new Object();
    private final ScheduledExecutorService timer;
    private List<Pending> open = new ArrayList<>();
    private long openBytes;
    private Instant openedAt;

    public BatchWindows(ProviderBatchSettings settings, Recorder recorder, Clock clock) {
        this.settings = settings;
        this.recorder = recorder;
        this.clock = clock;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform().daemon().name("llm-batch-windows").unstarted(r));
        long tick = Math.max(10, Math.min(1000, settings.maxAge().toMillis() / 4));
        timer.scheduleWithFixedDelay(this::sealIfOld, tick, tick, TimeUnit.MILLISECONDS);
    }

    /**
     * Puts {@code task} in the open window and waits until that window is recorded.
     *
     * @return the window's id
     * @throws InterruptedException when the runner stops first: the task is no longer in any window
     * @throws InfrastructureException when the window could not be recorded: the runner retries the task
     */
    public String enqueue(QuestionTask task) throws InterruptedException {
        Pending p = new Pending(task, JsonCodec.encode(task).length, new CompletableFuture<>());
        List<List<Pending>> toSeal = new ArrayList<>(2);
        synchronized (lock) {
            // the window would outgrow its byte limit with this task: seal it first, the task opens the next
            if (!open.isEmpty() && openBytes + p.bytes() > settings.maxBytes()) toSeal.add(takeOpen());
            if (open.isEmpty()) openedAt = clock.instant();
            open.add(p);
            openBytes += p.bytes();
            if (open.size() >= settings.maxRequests() || openBytes >= settings.maxBytes()) toSeal.add(takeOpen());
        }
        for (List<Pending> window : toSeal) seal(window);
        try {
            return await(p, true);
        } catch (InterruptedException e) {
            synchronized (lock) {
                if (open.remove(p)) {
                    openBytes -= p.bytes();
                    if (open.isEmpty()) openedAt = null;
                    throw e;
                }
            }
            // already being sealed: its window will hold it, so the input must be acknowledged after all
            return await(p, false);
        }
    }

    private static String await(Pending p, boolean interruptible) throws InterruptedException {
        try {
            return interruptible ? p.recorded().get() : p.recorded().join();
        } catch (java.util.concurrent.ExecutionException | CompletionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw cause instanceof InfrastructureException ie ? ie
                    : new InfrastructureException("recording the provider batch window failed: " + cause, cause);
        }
    }

    /** Requests waiting in the open window. */
    public int openRequests() {
        synchronized (lock) {
            return open.size();
        }
    }

    private List<Pending> takeOpen() {
        List<Pending> window = open;
        open = new ArrayList<>();
        openBytes = 0;
        openedAt = null;
        return window;
    }

    void sealIfOld() {
        List<Pending> window = null;
        synchronized (lock) {
            if (openedAt != null && !Duration.between(openedAt, clock.instant()).minus(settings.maxAge()).isNegative()) window = takeOpen();
        }
        if (window != null) seal(window);
    }

    private void seal(List<Pending> window) {
        if (window.isEmpty()) return;
        ProviderBatch sealed = ProviderBatch.sealed(newWindowId(), clock.instant(), window.stream().map(Pending::task).toList());
        try {
            recorder.record(sealed);
            log.info("llm batch: window {} sealed with {} request(s)", sealed.windowId(), window.size());
            window.forEach(p -> p.recorded().complete(sealed.windowId()));
        } catch (Exception e) {
            if (e instanceof InterruptedException) Thread.currentThread().interrupt();
            log.warn("llm batch: recording window {} failed, its {} request(s) will be retried: {}", sealed.windowId(), window.size(), e.toString());
            InfrastructureException failure = new InfrastructureException("recording the provider batch window failed: " + e, e);
            window.forEach(p -> p.recorded().completeExceptionally(failure));
        }
    }

    private String newWindowId() {
        return "w-" + clock.millis() + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
