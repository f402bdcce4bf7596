package dev.sqloop.common.runtime;

import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.SqloopHeaders;
import dev.sqloop.common.Topics;
import dev.sqloop.common.message.Message;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.message.Tombstone;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.InvalidOffsetException;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one {@link Stage} on one input topic: consume → process concurrently → produce → commit.
 *
 * <p>One platform thread owns the consumer. Every fetched record is processed on its own virtual thread,
 * up to {@link RunnerSettings#maxInFlight()} at once, so a stage that waits seconds on an LLM or a warehouse
 * keeps hundreds of records moving on a single partition. Records finish out of order; an offset is
 * committed only when every record below it has finished and its outputs were acknowledged by the
 * broker (at-least-once; downstream stages are idempotent by question id and attempt).
 *
 * <p>Infrastructure failures ({@link InfrastructureException}) are retried here with backoff and jitter,
 * the only place that retries. Undecodable records, and records that keep failing past the budget, go to
 * the {@code dlq} topic with the original key, value and headers plus {@code sqloop.error.*} headers.
 */
public final class StageRunner<I> implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(StageRunner.class);
    private static final Duration COMMIT_INTERVAL = Duration.ofMillis(200);
    private static final Duration PAUSED_POLL = Duration.ofMillis(5);

    /** The lifecycle of a runner, exposed for health and readiness. */
    public enum State { CREATED, RUNNING, STOPPING, STOPPED, FAILED }

    private record Work(ConsumerRecord<byte[], byte[]> record, PartitionProgress progress, Instant receivedAt) {}

    /** Records to produce for one input, and the decision that made them (a metrics tag). */
    private record Result(String kind, List<ProducerRecord<byte[], byte[]>> records) {}

    /** Thrown inside a worker when the runner stops before the record could finish: it stays uncommitted. */
    private static final class Abandoned extends Exception {
        Abandoned() {
            super(null, null, false, false);
        }
    }

    private final Stage<I> stage;
    private final String inputTopic;
    private final Consumer<byte[], byte[]> consumer;
    private final Producer<byte[], byte[]> producer;
    private final RunnerSettings settings;
    private final MeterRegistry registry;
    private final Clock clock;
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
    private final Counter retries;

    private volatile boolean running = true;
    private volatile boolean stopping;
    private volatile State state = State.CREATED;
    private volatile Throwable failure;
    private boolean paused;
    private long lastCommitNanos;

    public StageRunner(Stage<I> stage, String inputTopic, Consumer<byte[], byte[]> consumer,
                       Producer<byte[], byte[]> producer, RunnerSettings settings, MeterRegistry registry, Clock clock) {
        this.stage = stage;
        this.inputTopic = inputTopic;
        this.consumer = consumer;
        this.producer = producer;
        this.settings = settings;
        this.registry = registry;
        this.clock = clock;
        this.pauseThreshold = Math.max(1, Math.min(settings.maxPollRecords(), settings.maxInFlight()));
        this.workers = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("sqloop-" + stage.name() + "-", 0).factory());
        this.consumerThread = Thread.ofPlatform().name("sqloop-" + stage.name() + "-consumer").unstarted(this::runLoop);
        this.retries = Counter.builder("sqloop.stage.infrastructure.retries").description("Infrastructure retries (never repair attempts)")
                .tag("stage", stage.name()).register(registry);
        Gauge.builder("sqloop.stage.inflight", inFlight, AtomicInteger::get).description("Records being processed")
                .tag("stage", stage.name()).register(registry);
        Gauge.builder("sqloop.stage.buffered", pendingCount, AtomicInteger::get).description("Records fetched, waiting for a slot")
                .tag("stage", stage.name()).register(registry);
    }

    /** Closes these with the runner (client metrics binders, a producer the runner owns). */
    public StageRunner<I> closing(AutoCloseable closeable) {
        closeables.add(closeable);
        return this;
    }

    public StageRunner<I> start() {
        consumerThread.start();
        return this;
    }

    public String stageName() {
        return stage.name();
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
                Instant now = clock.instant();
                for (ConsumerRecord<byte[], byte[]> record : records) {
                    PartitionProgress p = progress.get(new TopicPartition(record.topic(), record.partition()));
                    if (p == null) continue; // revoked during this poll; it will be fetched again by its new owner
                    p.track(record.offset());
                    pending.add(new Work(record, p, now));
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
            consumer.commitSync(offsets, Duration.ofSeconds(10));
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
            sleepQuietly(Duration.ofMillis(10));
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
        while (busy.get() > 0 && System.nanoTime() < deadline) sleepQuietly(Duration.ofMillis(10));
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
        String kind = "abandoned";
        boolean slotHeld = true;
        try {
            Result result = evaluate(work);
            kind = result.kind();
            slotHeld = false;
            releaseSlot();
            produce(work, result.records());
            work.progress().complete(work.record().offset());
        } catch (Abandoned e) {
            kind = "abandoned";
        } catch (Throwable t) {
            kind = "abandoned";
            log.error("stage {}: unexpected failure at {}-{}@{}; stopping the runner", stage.name(), work.record().topic(),
                    work.record().partition(), work.record().offset(), t);
            failure = t;
            running = false;
            consumer.wakeup();
        } finally {
            if (slotHeld) releaseSlot();
            work.progress().finished();
            busy.decrementAndGet();
            sample.stop(Timer.builder("sqloop.stage.duration").description("Time to process one record in a stage")
                    .tag("stage", stage.name()).tag("outcome", kind).publishPercentileHistogram()
                    .register(registry));
        }
    }

    private void releaseSlot() {
        inFlight.decrementAndGet();
        dispatch();
    }

    private Result evaluate(Work work) throws Abandoned {
        ConsumerRecord<byte[], byte[]> record = work.record();
        Map<String, String> headers = headersOf(record);
        I input;
        try {
            input = JsonCodec.decode(record.value(), stage.inputType());
        } catch (JsonCodec.DecodeException e) {
            log.warn("stage {}: undecodable record {}-{}@{} to the DLQ: {}", stage.name(), record.topic(),
                    record.partition(), record.offset(), e.getMessage());
            return new Result("dlq", List.of(deadLetter(record, "undecodable", e)));
        }
        Instant deadline = deadlineOf(input, headers);
        int attempt = 0;
        while (true) {
            Instant now = clock.instant();
            if (deadline != null && now.isAfter(deadline)) {
                return new Result("deadline", toRecords(stage.onDeadline(input, deadline, now), headers));
            }
            try {
                Outcome outcome = stage.process(input, new StageContext(headers, work.receivedAt(), attempt));
                return new Result(outcome.kind(), toRecords(outcome, headers));
            } catch (InfrastructureException e) {
                if (stopping) throw new Abandoned();
                if (!settings.retry().canRetry(attempt)) {
                    log.warn("stage {}: giving up on {} after {} infrastructure retries: {}", stage.name(),
                            record.key() == null ? "?" : new String(record.key(), StandardCharsets.UTF_8), attempt, e.toString());
                    return giveUp(record, input, headers, e, true);
                }
                attempt++;
                retries.increment();
                Duration delay = settings.retry().delay(attempt, e.retryAfter().orElse(null));
                log.debug("stage {}: infrastructure retry {} in {}: {}", stage.name(), attempt, delay, e.toString());
                if (!sleepQuietly(delay)) throw new Abandoned();
            } catch (InterruptedException e) {
                throw new Abandoned();
            } catch (Exception e) {
                if (stopping && Thread.currentThread().isInterrupted()) throw new Abandoned();
                log.warn("stage {}: processing failed for {}-{}@{}, to the DLQ", stage.name(), record.topic(),
                        record.partition(), record.offset(), e);
                return giveUp(record, input, headers, e, false);
            }
        }
    }

    private Result giveUp(ConsumerRecord<byte[], byte[]> record, I input, Map<String, String> headers, Exception cause,
                          boolean infrastructure) {
        List<ProducerRecord<byte[], byte[]>> out = new ArrayList<>(
                toRecords(stage.onGiveUp(input, cause, infrastructure, clock.instant()), headers));
        out.add(deadLetter(record, infrastructure ? "retries_exhausted" : "processing_failed", cause));
        return new Result(infrastructure ? "gave_up" : "failed", out);
    }

    private static Instant deadlineOf(Object input, Map<String, String> headers) {
        if (input instanceof QuestionTask task && task.deadline() != null) return task.deadline();
        String header = headers.get(SqloopHeaders.DEADLINE);
        if (header == null) return null;
        try {
            return Instant.ofEpochMilli(Long.parseLong(header.trim()));
        } catch (NumberFormatException e) {
            return null; // a malformed deadline imposes none; the message itself is still processed
        }
    }

    /** Produces and waits for the broker's acknowledgement; retries until it succeeds or the runner stops. */
    private void produce(Work work, List<ProducerRecord<byte[], byte[]>> records) throws Abandoned {
        int attempt = 0;
        List<ProducerRecord<byte[], byte[]>> toSend = records;
        while (true) {
            List<Future<RecordMetadata>> acks = new ArrayList<>(toSend.size());
            try {
                for (ProducerRecord<byte[], byte[]> r : toSend) acks.add(producer.send(r));
                for (Future<RecordMetadata> ack : acks) ack.get();
                return;
            } catch (InterruptedException e) {
                throw new Abandoned();
            } catch (ExecutionException | KafkaException e) {
                Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
                if (stopping) throw new Abandoned();
                boolean alreadyDeadLetter = toSend.size() == 1 && Topics.DLQ.equals(toSend.get(0).topic());
                if (!(cause instanceof RetriableException) && !alreadyDeadLetter) {
                    // An output the broker will never take (too large, invalid): dead-letter the input instead.
                    log.warn("stage {}: output rejected ({}), input to the DLQ", stage.name(), cause.toString());
                    toSend = List.of(deadLetter(work.record(), "output_rejected", cause));
                    continue;
                }
                attempt++;
                log.warn("stage {}: produce failed (try {}), retrying: {}", stage.name(), attempt, cause.toString());
                if (!sleepQuietly(settings.retry().delay(Math.min(attempt, 10), null))) throw new Abandoned();
            }
        }
    }

    private List<ProducerRecord<byte[], byte[]>> toRecords(Outcome outcome, Map<String, String> incoming) {
        if (!(outcome instanceof Outcome.Send send)) return List.of();
        List<ProducerRecord<byte[], byte[]>> out = new ArrayList<>(send.emissions().size());
        for (Outcome.Emission emission : send.emissions()) {
            Message message = emission.message();
            Map<String, String> headers = new LinkedHashMap<>();
            incoming.forEach((k, v) -> {
                if (!k.startsWith(SqloopHeaders.ERROR_PREFIX) && !k.equals(SqloopHeaders.PREVIOUS_SQL)) headers.put(k, v);
            });
            headers.putAll(message.headers());
            headers.put(SqloopHeaders.TRACEPARENT, TraceParent.child(incoming.get(SqloopHeaders.TRACEPARENT)));
            RecordHeaders recordHeaders = new RecordHeaders();
            headers.forEach((k, v) -> recordHeaders.add(k, v.getBytes(StandardCharsets.UTF_8)));
            byte[] key = message.key() == null ? null : message.key().getBytes(StandardCharsets.UTF_8);
            // the one place a null value is produced: a deletion on a compacted topic
            byte[] value = message instanceof Tombstone ? null : JsonCodec.encode(message);
            out.add(new ProducerRecord<>(emission.topic(), null, key, value, recordHeaders));
        }
        return out;
    }

    private ProducerRecord<byte[], byte[]> deadLetter(ConsumerRecord<byte[], byte[]> record, String reason, Throwable cause) {
        registry.counter("sqloop.dlq.records", "stage", stage.name(), "reason", reason).increment();
        RecordHeaders headers = new RecordHeaders();
        for (Header h : record.headers()) {
            if (!h.key().startsWith(SqloopHeaders.ERROR_PREFIX)) headers.add(h);
        }
        String message = cause.getMessage() == null ? "" : cause.getMessage();
        if (message.length() > 4000) message = message.substring(0, 4000) + "…";
        headers.add(SqloopHeaders.ERROR_TOPIC, utf8(record.topic()));
        headers.add(SqloopHeaders.ERROR_PARTITION, utf8(Integer.toString(record.partition())));
        headers.add(SqloopHeaders.ERROR_OFFSET, utf8(Long.toString(record.offset())));
        headers.add(SqloopHeaders.ERROR_STAGE, utf8(stage.name()));
        headers.add(SqloopHeaders.ERROR_REASON, utf8(reason));
        headers.add(SqloopHeaders.ERROR_CLASS, utf8(cause.getClass().getName()));
        headers.add(SqloopHeaders.ERROR_MESSAGE, utf8(message));
        return new ProducerRecord<>(Topics.DLQ, null, record.key(), record.value(), headers);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static Map<String, String> headersOf(ConsumerRecord<byte[], byte[]> record) {
        Map<String, String> headers = new LinkedHashMap<>();
        for (Header h : record.headers()) {
            if (h.value() != null) headers.put(h.key(), new String(h.value(), StandardCharsets.UTF_8));
        }
        return headers;
    }

    private static boolean sleepQuietly(Duration d) {
        try {
            Thread.sleep(d);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    // ---------------------------------------------------------------- shutdown

    /** Graceful stop: no new records start; in-flight ones finish (up to the shutdown timeout) and are committed. */
    @Override
    public void close() {
        running = false;
        consumer.wakeup();
        try {
            consumerThread.join(settings.shutdownTimeout().plusSeconds(15).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits until the runner stopped (after {@link #close()} or a fatal error). */
    public boolean awaitStopped(Duration timeout) throws InterruptedException {
        consumerThread.join(timeout.toMillis());
        return !consumerThread.isAlive();
    }
}
