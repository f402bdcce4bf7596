package dev.sqloop.common.runtime;

import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.config.KafkaSettings;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the pipeline's entry stage may start another question: admission control for big batches. A batch is
 * accepted whole (one transaction on {@code retrieve-examples}), but if every question then entered the pipeline at
 * once, every stage's queue would hold the whole batch: each question's latency becomes the batch's length, the first
 * results come minutes late and the CPU goes to first steps nobody waits for yet. With admission, retrieve-examples
 * starts a question only while the questions queued further down the path ({@link #QUESTION_PATH}: records on those
 * topics their consumer groups have not committed) stay under a bound; the rest wait, durably, on its own topic.
 *
 * <p>The backlog is read from the broker (end offsets minus committed offsets, as any lag monitor does) by a daemon
 * thread every {@code interval}, so the gate costs nothing per record and holds across processes: every
 * retrieve-examples replica reads the same backlog (each may overshoot the bound by what it starts in one interval).
 * When the backlog cannot be read, the gate opens: a monitoring failure never stalls the pipeline.
 */
public interface Admission extends AutoCloseable {
    /** May the entry stage start another record now. */
    boolean open();

    @Override
    default void close() {}

    /** Always open (admission control off; stages other than the entry). */
    Admission ALWAYS = () -> true;

    /**
     * The question path after the entry stage: each topic a question's task passes through and the stage (consumer
     * group suffix) that reads it. A question is on exactly one of them, or in a stage, until it is final.
     */
    Map<String, String> QUESTION_PATH = questionPath();

    private static Map<String, String> questionPath() {
        Map<String, String> path = new LinkedHashMap<>();
        path.put(Topics.GENERATE.name(), "generate");
        path.put(Topics.REGENERATE.name(), "regenerate");
        path.put(Topics.STATIC_VALIDATE.name(), "static-validate");
        path.put(Topics.EXECUTE.name(), "execute");
        path.put(Topics.REPAIR_FEEDBACK.name(), "repair");
        return java.util.Collections.unmodifiableMap(path);
    }

    /**
     * Open while fewer than {@code maxBacklog} records wait on the question path; {@code maxBacklog} 0 turns it off.
     *
     * @param groupPrefix the consumer groups' prefix ({@code SQLOOP_GROUP_PREFIX}): group = prefix-stage
     */
    static Admission following(KafkaSettings kafka, String groupPrefix, long maxBacklog, Duration interval, MeterRegistry registry) {
        if (maxBacklog <= 0) return ALWAYS;
        Map<String, String> groups = new LinkedHashMap<>();
        QUESTION_PATH.forEach((topic, stage) -> groups.put(groupPrefix + "-" + stage, topic));
        return new Backlog(kafka, groups, maxBacklog, interval, registry);
    }

    /**
     * Records waiting for their group: Σ over each group's topic's partitions of end offset − the group's committed offset
     * (the log start when it has none), read from the broker as any lag monitor does.
     *
     * @param topicByGroup consumer group → the topic it reads
     */
    static long backlog(Admin admin, Map<String, String> topicByGroup, Duration timeout) throws Exception {
        long ms = timeout.toMillis();
        Map<String, TopicDescription> topics = admin.describeTopics(topicByGroup.values()).allTopicNames().get(ms, TimeUnit.MILLISECONDS);
        Map<String, ListConsumerGroupOffsetsSpec> specs = new HashMap<>();
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        topicByGroup.forEach((group, topic) -> {
            var partitions = topics.get(topic).partitions().stream().map(p -> new TopicPartition(topic, p.partition())).toList();
            specs.put(group, new ListConsumerGroupOffsetsSpec().topicPartitions(partitions));
            partitions.forEach(tp -> latest.put(tp, OffsetSpec.latest()));
        });
        Map<TopicPartition, Long> committed = new HashMap<>();
        admin.listConsumerGroupOffsets(specs).all().get(ms, TimeUnit.MILLISECONDS).values().forEach(offsets ->
                offsets.forEach((tp, o) -> {
                    if (o != null) committed.put(tp, o.offset());
                }));
        Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
        latest.keySet().stream().filter(tp -> !committed.containsKey(tp)).forEach(tp -> earliest.put(tp, OffsetSpec.earliest()));
        if (!earliest.isEmpty()) {
            admin.listOffsets(earliest).all().get(ms, TimeUnit.MILLISECONDS).forEach((tp, o) -> committed.put(tp, o.offset()));
        }
        long total = 0;
        for (var e : admin.listOffsets(latest).all().get(ms, TimeUnit.MILLISECONDS).entrySet()) {
            total += Math.max(0, e.getValue().offset() - committed.get(e.getKey()));
        }
        return total;
    }

    /** The backlog on the question path, read by a daemon thread; see {@link Admission}. */
    final class Backlog implements Admission {
        private static final Logger log = LoggerFactory.getLogger(Backlog.class);
        /** Not yet read, or unreadable: the gate is open. */
        static final long UNKNOWN = -1;
        /**
         * How long the backlog may stay unreadable before it is worth a warning: at every start the reader runs before
         * the broker answers and the topics exist (a timeout on a loaded host), and the gate is open meanwhile anyway.
         */
        static final Duration WARN_AFTER = Duration.ofSeconds(30);

        private final Map<String, String> topicByGroup;
        private final long maxBacklog;
        private final Duration interval;
        private final Admin admin;
        private final AtomicLong backlog = new AtomicLong(UNKNOWN);
        private final Thread reader;
        private volatile boolean running = true;

        Backlog(KafkaSettings kafka, Map<String, String> topicByGroup, long maxBacklog, Duration interval, MeterRegistry registry) {
            this.topicByGroup = Map.copyOf(topicByGroup);
            this.maxBacklog = maxBacklog;
            this.interval = interval;
            this.admin = KafkaClients.admin(kafka);
            Gauge.builder("sqloop.admission.backlog", backlog, AtomicLong::get)
                    .description("Records waiting on the question path, read for admission control (-1: not read)")
                    .register(registry);
            Gauge.builder("sqloop.admission.open", this, b -> b.open() ? 1 : 0)
                    .description("1 while the entry stage admits new questions, 0 while it waits for the backlog to fall")
                    .register(registry);
            this.reader = Thread.ofPlatform().daemon().name("sqloop-admission").start(this::readLoop);
        }

        @Override
        public boolean open() {
            long b = backlog.get();
            return b == UNKNOWN || b < maxBacklog;
        }

        /** The last backlog read, or {@link #UNKNOWN}. */
        public long backlog() {
            return backlog.get();
        }

        private void readLoop() {
            long failingSince = -1; // nanoTime of the first failure in a row, -1 while readable
            boolean warned = false;
            while (running) {
                try {
                    backlog.set(read());
                    if (warned) log.info("admission: backlog readable again ({})", backlog.get());
                    failingSince = -1;
                    warned = false;
                } catch (InterruptedException e) {
                    return;
                } catch (Exception e) {
                    backlog.set(UNKNOWN);
                    Throwable cause = e instanceof java.util.concurrent.ExecutionException && e.getCause() != null ? e.getCause() : e;
                    if (failingSince < 0) failingSince = System.nanoTime();
                    if (cause instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException) {
                        log.debug("admission: the question path's topics are not created yet");
                    } else if (!warned && System.nanoTime() - failingSince >= WARN_AFTER.toNanos()) {
                        log.warn("admission: cannot read the question path's backlog for {} s, admitting freely: {}",
                                WARN_AFTER.toSeconds(), cause.toString());
                        warned = true;
                    } else {
                        log.debug("admission: backlog not readable yet, admitting freely: {}", cause.toString());
                    }
                }
                try {
                    Thread.sleep(interval);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        /** The question path's backlog now ({@link Admission#backlog}). */
        long read() throws Exception {
            return Admission.backlog(admin, topicByGroup, Duration.ofMillis(Math.max(1_000, interval.toMillis() * 5)));
        }

        @Override
        public void close() {
            running = false;
            reader.interrupt();
            admin.close(Duration.ofSeconds(2));
        }
    }
}
