package dev.sqloop.common.runtime;

import dev.sqloop.common.topic.Topic;
import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.config.KafkaSettings;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Builds Kafka clients with sqloop's settings, and creates topics. */
public final class KafkaClients {
    private KafkaClients() {}

    public static Map<String, Object> consumerProperties(KafkaSettings kafka, String groupId, int maxPollRecords, String clientId) {
        Map<String, Object> p = new HashMap<>();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        // The runner commits itself, only offsets whose records (and all below) finished.
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        // A new group reads from the start: at-least-once, nothing skipped.
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, maxPollRecords);
        // The gateway writes a batch in one transaction: never work on a batch that was aborted.
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        p.putAll(membershipDefaults(kafka));
        p.putAll(kafka.clientOverrides());
        return p;
    }

    /**
     * A dead member's session timeout is how long its partitions wait after a SIGKILL: the restarted (or any other)
     * member's join waits for the dead one until its session expires. Kafka's 45 s default stalled a stage ~45 s per
     * crash (measured by {@code PipelineCrashIT}); 10 s with a heartbeat every 3 s (Kafka's defaults before 3.0) bounds
     * it at about 10 s. Heartbeats come from the consumer's own background thread, not from the poll loop, so a busy
     * stage does not miss them; a spurious expiry (a pause over 10 s) costs a rebalance, in which finished records are
     * committed and the rest redelivered. {@code SQLOOP_KAFKA_SESSION_TIMEOUT_MS} / {@code _HEARTBEAT_INTERVAL_MS}
     * override it. With {@code group.protocol=consumer} (KIP-848) the broker owns the session timeout and the client
     * refuses these settings, so none is set then. The gateway's Kafka Streams consumers take the same defaults.
     */
    public static Map<String, Object> membershipDefaults(KafkaSettings kafka) {
        String protocol = kafka.clientOverrides().getOrDefault(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
        if (!protocol.equalsIgnoreCase("classic")) return Map.of();
        return Map.of(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, (int) SESSION_TIMEOUT.toMillis(),
                ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, (int) HEARTBEAT_INTERVAL.toMillis());
    }

    /** A stage consumer's default session timeout ({@link #membershipDefaults}). */
    public static final Duration SESSION_TIMEOUT = Duration.ofSeconds(10);
    static final Duration HEARTBEAT_INTERVAL = Duration.ofSeconds(3);

    public static Map<String, Object> producerProperties(KafkaSettings kafka, String clientId) {
        Map<String, Object> p = new HashMap<>();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        // Many virtual threads send at once: a few ms of linger batches them into fewer requests.
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) REQUEST_TIMEOUT.toMillis());
        p.putAll(kafka.clientOverrides());
        if (!kafka.clientOverrides().containsKey(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG)) {
            // Kafka refuses a delivery timeout below linger + request timeout: keep it above an overridden request timeout
            long floor = Long.parseLong(p.get(ProducerConfig.LINGER_MS_CONFIG).toString())
                    + Long.parseLong(p.get(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG).toString());
            p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) Math.max(DELIVERY_TIMEOUT.toMillis(), floor));
        }
        return p;
    }

    /**
     * How long a send may stay unacknowledged before the producer gives it up, retries included; the runner's
     * {@code AcknowledgedProducer} then sends it again. This bounds a Kafka defect seen on a broker failover
     * (matching KAFKA-15591; {@code ClusterFailoverIT}): when a partition's leader dies with two batches of one idempotent
     * producer in flight, the later batch can reach the new leader first, which has no state for that producer and
     * accepts it; the earlier one is then refused with {@code OUT_OF_ORDER_SEQUENCE_NUMBER} at every retry until this
     * timeout expires it. Kafka's 120 s default held those questions ~2 minutes after the failover. 20 s bounds it, with
     * a request timeout of 10 s (Kafka's 30 s would not fit below it). {@code SQLOOP_KAFKA_DELIVERY_TIMEOUT_MS} /
     * {@code _REQUEST_TIMEOUT_MS} override them.
     */
    public static final Duration DELIVERY_TIMEOUT = Duration.ofSeconds(20);
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

    public static Producer<byte[], byte[]> producer(KafkaSettings kafka, String clientId) {
        return new KafkaProducer<>(producerProperties(kafka, clientId));
    }

    /**
     * A producer that keeps one request in flight per connection, for a loader that sends fire-and-forget to a topic
     * created a moment before. With several in flight, a request refused by the new partition (not yet led) can be
     * overtaken by the next one, which the broker takes as the partition's first; the first is then refused as out of
     * order at every retry until its delivery timeout drops it (KAFKA-15591, fixed from Kafka 4.5). The stages do not
     * need this: they resend whatever is not acknowledged in time.
     */
    public static Producer<byte[], byte[]> oneRequestInFlight(KafkaSettings kafka, String clientId) {
        Map<String, Object> p = producerProperties(kafka, clientId);
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        return new KafkaProducer<>(p);
    }

    /**
     * A runner for {@code stage} on {@code inputTopic} with its own consumer and producer, both closed with the
     * runner, and Kafka client metrics (consumer lag among them) bound to {@code registry}.
     */
    public static <I> StageRunner<I> runner(Stage<I> stage, Topic<I> inputTopic, KafkaSettings kafka,
                                            RunnerSettings settings, MeterRegistry registry) {
        return runner(stage, inputTopic.name(), kafka, settings, registry);
    }

    /** The same on a topic outside the registry (tests, benchmarks). */
    public static <I> StageRunner<I> runner(Stage<I> stage, String inputTopic, KafkaSettings kafka,
                                            RunnerSettings settings, MeterRegistry registry) {
        String clientId = settings.groupId() + "-" + Long.toHexString(System.nanoTime());
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(
                consumerProperties(kafka, settings.groupId(), settings.maxPollRecords(), clientId + "-consumer"));
        Producer<byte[], byte[]> producer = producer(kafka, clientId + "-producer");
        KafkaClientMetrics consumerMetrics = new KafkaClientMetrics(consumer, List.of(), metricsScheduler(clientId), METRICS_REFRESH);
        KafkaClientMetrics producerMetrics = new KafkaClientMetrics(producer, List.of(), metricsScheduler(clientId), METRICS_REFRESH);
        consumerMetrics.bindTo(registry);
        producerMetrics.bindTo(registry);
        Cancellations cancellations = Cancellations.follow(kafka, clientId);
        return new StageRunner<>(stage, inputTopic, consumer, producer, settings, registry, Clock.systemUTC(), cancellations)
                .closing(cancellations)
                .closing(consumerMetrics)
                .closing(producerMetrics)
                .closing(() -> producer.close(Duration.ofSeconds(10)));
    }

    /**
     * How often Kafka client metrics are looked for anew. Per-partition lag exists only once a partition is assigned;
     * Micrometer's default (60 s) left a new or rebalanced consumer's lag unseen for a minute.
     */
    static final Duration METRICS_REFRESH = Duration.ofSeconds(5);

    /** One daemon thread per binder: the binder shuts its scheduler down when closed, so it cannot be shared. */
    private static java.util.concurrent.ScheduledExecutorService metricsScheduler(String clientId) {
        return java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
                r -> Thread.ofPlatform().daemon().name("kafka-metrics-" + clientId).unstarted(r));
    }

    public static Admin admin(KafkaSettings kafka) {
        Map<String, Object> p = new HashMap<>(kafka.clientOverrides());
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        return Admin.create(p);
    }

    /** Creates missing topics from the registry (replication factor from the broker default), then waits for leaders. */
    public static void ensureTopics(KafkaSettings kafka, List<Topics.Spec> specs, Duration timeout) {
        try (Admin admin = admin(kafka)) {
            Set<String> existing = admin.listTopics().names().get();
            List<NewTopic> missing = specs.stream().filter(s -> !existing.contains(s.name()))
                    .map(s -> {
                        NewTopic t = new NewTopic(s.name(), java.util.Optional.of(s.partitions()), java.util.Optional.empty());
                        return s.compacted() ? t.configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT)) : t;
                    })
                    .toList();
            if (!missing.isEmpty()) {
                try {
                    admin.createTopics(missing).all().get();
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) throw e;
                }
            }
            awaitLeaders(admin, specs.stream().map(Topics.Spec::name).collect(Collectors.toSet()), timeout);
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot create topics: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topics", e);
        }
    }

    /** {@code createTopics} returns before every partition has a leader; producing then fails for a while. */
    private static void awaitLeaders(Admin admin, Set<String> names, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                boolean ready = admin.describeTopics(names).allTopicNames().get().values().stream()
                        .allMatch(d -> d.partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty()));
                if (ready) return;
            } catch (ExecutionException e) {
                // metadata not propagated yet: keep waiting
            }
            if (System.nanoTime() > deadline) throw new IllegalStateException("topics " + names + " have no leaders after " + timeout);
            Thread.sleep(50);
        }
    }
}
