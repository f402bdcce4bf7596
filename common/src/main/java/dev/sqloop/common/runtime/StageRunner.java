package dev.sqloop.common.runtime;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.InvalidOffsetException;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one {@link Stage} on one input topic: consume → process concurrently → produce → commit. This class is the
 * consumer loop (poll and its error sorting, flow control, commits and rebalances, dispatch to workers); what becomes of one record is {@link RecordHandler}'s, how a message becomes a record is
 * {@link OutgoingRecords}', dead letters are {@link DeadLetterReporter}'s, and producing until acknowledged is {@link AcknowledgedProducer}'s.
 *
 * <p>One platform thread owns the consumer. Every fetched record is processed on its own virtual thread,
 * up to {@link RunnerSettings#maxInFlight()} at once, so a stage that waits seconds on an LLM or a warehouse
 * keeps hundreds of records moving on a single partition. Records finish out of order; an offset is
 * committed only when every record below it has finished and its outputs were acknowledged by the
 * broker (at-least-once; downstream stages are idempotent by question id and attempt).
 *
 * <p>Infrastructure failures ({@link InfrastructureException}) are retried by the {@link RecordHandler} with
 * backoff and jitter, the only place that retries. Undecodable records, and records that keep failing past the budget, go to
 * the {@code dlq} topic with the original key, value and headers plus {@code sqloop.error.*} headers.
 */
public final class StageRunner<I> implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(StageRunner.class);
    /** Counter, tags stage, reason: records dead-lettered ({@code sqloop_dlq_records_total}). */
    static final String DLQ_RECORDS = DeadLetterReporter.METRIC;
    private static final Duration COMMIT_INTERVAL = Duration.ofMillis(200);
    private static final Duration PAUSED_POLL = Duration.ofMillis(5);

    /** The lifecycle of a runner, exposed for health and readiness. */
    public enum State { CREATED, RUNNING, STOPPING, STOPPED, FAILED }

    private record Work(ConsumerRecord<byte[], byte[]> record, PartitionProgress progress) {}

    private final Stage<I> stage;
    private final String inputTopic;
    private final Consumer<byte[], byte[]> consumer;
    private final RunnerSettings settings;
    private final MeterRegistry registry;
    private final RecordHandler<I> handler;
    private final AcknowledgedProducer output;
    private final List<AutoCloseable> closeables = new ArrayList<>();

    private final Map<TopicPartition, PartitionProgress> progress = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<Work> pending = new ConcurrentLinkedQueue<>();
    private final AtomicInteger pendingCount = new AtomicInteger();
    private final AtomicInteger inFlight = new AtomicInteger();
    /** Records being processed or waiting for their outputs to be acknowledged. */
    private final AtomicInteger busy = new AtomicInteger();
    private final int pauseThreshold;
    private final ExecutorService workers;
    private final Thread consumerThread;
    /** Starts records when a slot frees (see {@link #releaseSlot}); parked otherwise. */
    private final Thread dispatcher;
    private final AtomicBoolean dispatchWanted = new AtomicBoolean();
    private final Counter retries;
    private volatile Admission admission = Admission.ALWAYS;

    private volatile boolean running = true;
    private final AtomicBoolean stopRequested = new AtomicBoolean();
    private volatile boolean stopping;
    private volatile State state = State.CREATED;
    private volatile Throwable failure;
    private boolean paused;
    private long lastCommitNanos;

    public StageRunner(Stage<I> stage, String inputTopic, Consumer<byte[], byte[]> consumer,
                       Producer<byte[], byte[]> producer, RunnerSettings settings, MeterRegistry registry, Clock clock) {
        this(stage, inputTopic, consumer, producer, settings, registry, clock, Cancellations.NONE);
    }

    /** @param cancellations cancelled questions and batches: their records end at once ({@link Stage#onCancelled}) */
    public StageRunner(Stage<I> stage, String inputTopic, Consumer<byte[], byte[]> consumer, Producer<byte[], byte[]> producer,
                       RunnerSettings settings, MeterRegistry registry, Clock clock, Cancellations cancellations) {
        this.stage = stage;
        this.inputTopic = inputTopic;
        this.consumer = consumer;
        this.settings = settings;
        this.registry = registry;
        this.pauseThreshold = Math.max(1, Math.min(settings.maxPollRecords(), settings.maxInFlight()));
        this.workers = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("sqloop-" + stage.name() + "-", 0).factory());
        this.consumerThread = Thread.ofPlatform().name("sqloop-" + stage.name() + "-consumer").unstarted(this::runLoop);
        this.dispatcher = Thread.ofPlatform().daemon().name("sqloop-" + stage.name() + "-dispatch").unstarted(this::dispatchLoop);
        this.retries = Counter.builder("sqloop.stage.infrastructure.retries").description("Infrastructure retries (never repair attempts)")
                .tag("stage", stage.name()).register(registry);
        // At zero from the start: the first dead letter of a stage is an increase Prometheus sees (a series born at 1
        // is not), so the "dead letters growing" alert fires on it.
        for (String reason : DeadLetterReporter.REASONS) registry.counter(DLQ_RECORDS, "stage", stage.name(), "reason", reason);
        DeadLetterReporter deadLetters = new DeadLetterReporter(stage.name(),
                reason -> registry.counter(DLQ_RECORDS, "stage", stage.name(), "reason", reason).increment());
        this.handler = new RecordHandler<>(stage, settings.retry(), clock, deadLetters, () -> stopping, retries::increment,
                RecordHandler.Sleeper.REAL, cancellations);
        this.output = new AcknowledgedProducer(stage.name(), producer, deadLetters, settings.retry(), () -> stopping,
                RecordHandler.Sleeper.REAL);
        // tagged by topic too: one stage may have two runners (generate reads generate and its priority lane regenerate)
        Gauge.builder("sqloop.stage.inflight", inFlight, AtomicInteger::get).description("Records being processed")
                .tag("stage", stage.name()).tag("topic", inputTopic).register(registry);
        Gauge.builder("sqloop.stage.unacknowledged", this, StageRunner::unacknowledged)
                .description("Records done, their outputs waiting for the broker's acknowledgement")
                .tag("stage", stage.name()).tag("topic", inputTopic).register(registry);
        Gauge.builder("sqloop.stage.buffered", pendingCount, AtomicInteger::get).description("Records fetched, waiting for a slot")
                .tag("stage", stage.name()).tag("topic", inputTopic).register(registry);
    }

    /**
     * Starts records only while {@code gate} is open (the pipeline's entry stage: see {@link Admission}); fetched
     * records wait meanwhile, and fetching pauses once a poll's worth waits. Closed with the runner.
     */
    public StageRunner<I> admitting(Admission gate) {
        this.admission = java.util.Objects.requireNonNull(gate, "gate");
        closeables.add(gate);
        return this;
    }

    /** Closes these with the runner (client metrics binders, a producer the runner owns). */
    public StageRunner<I> closing(AutoCloseable closeable) {
        closeables.add(closeable);
        return this;
    }

    public StageRunner<I> start() {
        consumerThread.start();
        dispatcher.start();
        return this;
    }

    public String stageName() {
        return stage.name();
    }

    /** The pure stage this runner feeds (benchmarks call it directly, as a sequential agent would). */
    public Stage<I> stage() {
        return stage;
    }

    public String inputTopic() {
        return inputTopic;
    }

    /** The consumer group this runner reads {@link #inputTopic()} in. */
    public String groupId() {
        return settings.groupId();
    }

    public State state() {
        return state;
    }

    /** Healthy while running or starting; a runner that died on a fatal consumer error is not. */
    public boolean healthy() {
        return state == State.CREATED || state == State.RUNNING || state == State.STOPPING;
    }

    public boolean ready() {
        return state == State.RUNNING;
    }

    public Throwable failure() {
        return failure;
    }

    public int inFlight() {
        return inFlight.get();
    }

    // ---------------------------------------------------------------- consumer thread

    private void runLoop() {
        try {
            consumer.subscribe(List.of(inputTopic), new Rebalance());
            state = State.RUNNING;
            log.info("stage {} consuming {} as group {} with up to {} records in flight", stage.name(), inputTopic,
                    settings.groupId(), settings.maxInFlight());
            while (running) {
                ConsumerRecords<byte[], byte[]> records;
                try {
                    // While paused the buffer drains at the stage's pace: look again soon so fetching resumes
                    // before the workers run dry (a 100 ms paused poll cost ~15 % throughput at 256 in flight).
                    records = consumer.poll(paused ? PAUSED_POLL : settings.pollTimeout());
                } catch (WakeupException e) {
                    continue;
                } catch (AuthorizationException | UnsupportedVersionException | RecordDeserializationException e) {
                    throw e; // cannot recover: stop the worker (Kafka's example consumer does the same)
                } catch (InvalidOffsetException e) {
                    // No valid committed offset: re-read from the start rather than skip records.
                    log.warn("stage {}: invalid offsets for {}, seeking to beginning", stage.name(), e.partitions());
                    consumer.seekToBeginning(e.partitions());
                    continue;
                } catch (KafkaException e) {
                    log.warn("stage {}: poll failed, continuing: {}", stage.name(), e.toString());
                    continue;
                }
                for (ConsumerRecord<byte[], byte[]> record : records) {
                    PartitionProgress p = progress.get(new TopicPartition(record.topic(), record.partition()));
                    if (p == null) continue; // revoked during this poll; it will be fetched again by its new owner
                    p.track(record.offset());
                    pending.add(new Work(record, p));
                    pendingCount.incrementAndGet();
                }
                dispatch();
                flowControl();
                commitIfDue();
            }
        } catch (Throwable t) {
            failure = t;
            log.error("stage {} stopped on a fatal error", stage.name(), t);
        } finally {
            drainAndClose();
        }
    }

    /** Stops fetching while a full poll is buffered, so memory stays bounded whatever the stage's latency. */
    private void flowControl() {
        boolean full = pendingCount.get() >= pauseThreshold;
        if (full) {
            consumer.pause(consumer.assignment()); // also covers partitions assigned since the last pause
            paused = true;
        } else if (paused) {
            consumer.resume(consumer.paused());
            paused = false;
        }
    }

    private void commitIfDue() {
        long now = System.nanoTime();
        if (now - lastCommitNanos < COMMIT_INTERVAL.toNanos()) return;
        lastCommitNanos = now;
        Map<TopicPartition, OffsetAndMetadata> offsets = committable(progress.keySet());
        if (offsets.isEmpty()) return;
        consumer.commitAsync(offsets, (done, error) -> {
            if (error != null) {
                log.warn("stage {}: commit failed, will commit again: {}", stage.name(), error.toString());
                done.keySet().forEach(tp -> {
                    PartitionProgress p = progress.get(tp);
                    if (p != null) p.commitFailed();
                });
            }
        });
    }

    private Map<TopicPartition, OffsetAndMetadata> committable(Collection<TopicPartition> partitions) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (TopicPartition tp : partitions) {
            PartitionProgress p = progress.get(tp);
            if (p == null) continue;
            long offset = p.committable();
            if (offset >= 0) {
                offsets.put(tp, new OffsetAndMetadata(offset));
                p.committed(offset);
            }
        }
        return offsets;
    }

    private void commitSync(Collection<TopicPartition> partitions) {
        Map<TopicPartition, OffsetAndMetadata> offsets = committable(partitions);
        if (offsets.isEmpty()) return;
        try {
            try {
                consumer.commitSync(offsets, Duration.ofSeconds(10));
            } catch (org.apache.kafka.common.errors.WakeupException e) {
                // a stop's wakeup fires in the first blocking call: here when the loop saw the stop before polling
                // again; it fires once, so the commit goes through the second time
                consumer.commitSync(offsets, Duration.ofSeconds(10));
            }
        } catch (KafkaException e) {
            // The records stay uncommitted and are processed again: at-least-once, never lost.
            log.warn("stage {}: final commit failed: {}", stage.name(), e.toString());
        }
    }

    private final class Rebalance implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            release(partitions);
            awaitRunning(partitions, settings.revokeTimeout());
            commitSync(partitions);
            partitions.forEach(progress::remove);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            partitions.forEach(tp -> progress.put(tp, new PartitionProgress()));
            log.info("stage {} assigned {}", stage.name(), partitions);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            release(partitions);
            partitions.forEach(progress::remove);
        }
    }

    /** Drops buffered, unstarted records of these partitions; their new owner fetches them again. */
    private void release(Collection<TopicPartition> partitions) {
        for (TopicPartition tp : partitions) {
            PartitionProgress p = progress.get(tp);
            if (p != null) p.revoke();
        }
        pending.removeIf(w -> {
            boolean drop = w.progress().revoked();
            if (drop) pendingCount.decrementAndGet();
            return drop;
        });
    }

    private void awaitRunning(Collection<TopicPartition> partitions, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            boolean busy = partitions.stream().map(progress::get).anyMatch(p -> p != null && p.running() > 0);
            if (!busy) return;
            RecordHandler.Sleeper.REAL.sleep(Duration.ofMillis(10));
        }
        log.warn("stage {}: records of revoked partitions still running after {}; they will be processed again",
                stage.name(), timeout);
    }

    private void drainAndClose() {
        state = State.STOPPING;
        stopping = true;
        pending.clear();
        pendingCount.set(0);
        long deadline = System.nanoTime() + settings.shutdownTimeout().toNanos();
        while (busy.get() > 0 && System.nanoTime() < deadline) RecordHandler.Sleeper.REAL.sleep(Duration.ofMillis(10));
        if (busy.get() > 0) {
            log.warn("stage {}: {} records still in flight after {}; released for redelivery", stage.name(),
                    busy.get(), settings.shutdownTimeout());
        }
        workers.shutdownNow();
        try {
            workers.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        commitSync(progress.keySet());
        try {
            consumer.close(org.apache.kafka.clients.consumer.CloseOptions.timeout(Duration.ofSeconds(5)));
        } catch (RuntimeException e) {
            log.warn("stage {}: consumer close failed: {}", stage.name(), e.toString());
        }
        for (AutoCloseable c : closeables) {
            try {
                c.close();
            } catch (Exception e) {
                log.warn("stage {}: close failed: {}", stage.name(), e.toString());
            }
        }
        state = failure == null ? State.STOPPED : State.FAILED;
        log.info("stage {} stopped", stage.name());
    }

    // ---------------------------------------------------------------- workers

    private void dispatch() {
        while (!stopping) {
            int current = inFlight.get();
            if (current >= settings.maxInFlight()) return;
            if (busy.get() >= 2 * settings.maxInFlight()) return; // see #unacknowledged
            if (!admission.open()) return; // the consumer loop dispatches again after each poll
            if (!inFlight.compareAndSet(current, current + 1)) continue;
            Work work = pending.poll();
            if (work == null) {
                inFlight.decrementAndGet();
                if (pending.isEmpty()) return;
                continue;
            }
            pendingCount.decrementAndGet();
            if (work.progress().revoked()) {
                inFlight.decrementAndGet();
                continue;
            }
            work.progress().started();
            busy.incrementAndGet();
            try {
                workers.execute(() -> handle(work));
            } catch (java.util.concurrent.RejectedExecutionException e) {
                work.progress().finished();
                busy.decrementAndGet();
                inFlight.decrementAndGet();
                return; // shutting down: the record stays uncommitted
            }
        }
    }

    /**
     * Processes one record on its own virtual thread. The in-flight slot covers the stage's work only: once the
     * outcome is known the slot goes to the next record, and this thread waits for the broker's acknowledgement
     * before marking the offset finished (so commits still never pass an unacknowledged output).
     */
    private void handle(Work work) {
        Timer.Sample sample = Timer.start(registry);
        org.slf4j.MDC.put(LOG_CONTEXT, logContext(work.record()));
        String kind = "abandoned";
        boolean slotHeld = true;
        try {
            RecordHandler.Handled result = handler.handle(work.record());
            kind = result.kind();
            slotHeld = false;
            releaseSlot();
            output.produce(work.record(), result.records());
            work.progress().complete(work.record().offset());
        } catch (RecordHandler.Abandoned e) {
            kind = "abandoned";
        } catch (Throwable t) {
            kind = "abandoned";
            log.error("stage {}: unexpected failure at {}-{}@{}; stopping the runner", stage.name(), work.record().topic(),
                    work.record().partition(), work.record().offset(), t);
            failure = t;
            requestStop();
        } finally {
            org.slf4j.MDC.remove(LOG_CONTEXT);
            if (slotHeld) releaseSlot();
            work.progress().finished();
            busy.decrementAndGet();
            wakeDispatcher(); // an acknowledgement may let the next record start (#unacknowledged)
            sample.stop(Timer.builder("sqloop.stage.duration").description("Time to process one record in a stage")
                    .tag("stage", stage.name()).tag("outcome", kind).publishPercentileHistogram()
                    .register(registry));
        }
    }

    /** The logging MDC key ({@code %X{sqloop}} in the log pattern): the record's question id and trace id. */
    public static final String LOG_CONTEXT = "sqloop";

    static String logContext(org.apache.kafka.clients.consumer.ConsumerRecord<byte[], byte[]> record) {
        Map<String, String> headers = RecordHandler.headersOf(record);
        String question = headers.get(dev.sqloop.common.SqloopHeaders.QUESTION_ID);
        String trace = TraceParent.traceId(headers.get(dev.sqloop.common.SqloopHeaders.TRACEPARENT));
        return (question == null ? "" : "q=" + question + " ") + (trace == null ? "" : "trace=" + trace + " ");
    }

    /**
     * Frees the slot and has the dispatcher thread start the next record. Not started from here: this runs on a
     * virtual thread, and a virtual thread started from a carrier goes to that carrier's own queue, which the carrier
     * drains before it looks at anything submitted from outside. A CPU-bound stage then fed itself from its own
     * completions and starved every other stage in the JVM: in `bench pipeline`, retrieve-examples handled nearly the
     * whole 1,500-question batch before generate's first record got a carrier (first LLM call 10 s after the batch
     * was accepted, both cores busy). Started from a platform thread, every stage's records wait in the scheduler's
     * shared queues and take turns.
     */
    private void releaseSlot() {
        inFlight.decrementAndGet();
        wakeDispatcher();
    }

    private void wakeDispatcher() {
        if (!pending.isEmpty() && dispatchWanted.compareAndSet(false, true)) java.util.concurrent.locks.LockSupport.unpark(dispatcher);
    }

    /**
     * Records whose stage work is done and whose outputs wait for the broker's acknowledgement. They hold no
     * in-flight slot (a slow acknowledgement should not idle the stage), but they are bounded too: no record starts
     * while twice {@link RunnerSettings#maxInFlight()} are between their start and their acknowledgement. Without
     * that bound a CPU-bound stage whose broker falls behind kept starting records and queueing their outputs in the
     * producer, where they expired unsent after the delivery timeout and were sent again (2,066 such expiries in a
     * 10,000-question `bench pipeline --regime cpu` run, 6,536 in a 30,000-question one). At the bound the stage
     * waits for acknowledgements, so it runs at the rate the broker takes its outputs.
     */
    public int unacknowledged() {
        return Math.max(0, busy.get() - inFlight.get());
    }

    private void dispatchLoop() {
        while (!stopping && consumerThread.isAlive()) { // started after the consumer thread
            if (dispatchWanted.getAndSet(false)) {
                dispatch();
            } else {
                java.util.concurrent.locks.LockSupport.parkNanos(this, 100_000_000L);
            }
        }
    }

    // ---------------------------------------------------------------- shutdown

    /**
     * Asks the runner to stop and returns at once: no new records start; in-flight ones finish (up to the shutdown
     * timeout) and are committed on the runner's own thread. {@link #close()} waits for that.
     */
    public void requestStop() {
        running = false;
        // once: a second wakeup, after the loop ended, would break the final commit instead of a poll
        if (stopRequested.compareAndSet(false, true)) consumer.wakeup();
    }

    /** Graceful stop: no new records start; in-flight ones finish (up to the shutdown timeout) and are committed. */
    @Override
    public void close() {
        requestStop();
        try {
            consumerThread.join(settings.shutdownTimeout().plusSeconds(15).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Stops {@code runners} together: each is asked to stop, then each is waited for. Closing them one after another
     * cost a service the sum of their stops — leaving the consumer group and closing the producer take ~0.2–0.5 s each
     * (measured: ~5 s for the embedded pipeline's nine runners) — where together they take the longest one.
     */
    public static void closeAll(java.util.Collection<? extends StageRunner<?>> runners) {
        runners.forEach(StageRunner::requestStop);
        runners.forEach(StageRunner::close);
    }

    /** Waits until the runner stopped (after {@link #close()} or a fatal error). */
    public boolean awaitStopped(Duration timeout) throws InterruptedException {
        consumerThread.join(timeout.toMillis());
        return !consumerThread.isAlive();
    }
}
