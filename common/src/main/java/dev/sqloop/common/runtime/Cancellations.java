package dev.sqloop.common.runtime;

import dev.sqloop.common.SqloopHeaders;
import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.config.KafkaSettings;
import dev.sqloop.common.message.Cancellation;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which questions and batches are cancelled: the compacted {@code cancellations} topic read whole, from the beginning,
 * by a consumer of its own (no group: every runner sees every cancellation) on a daemon thread. A record is looked
 * up by its {@code sqloop-question-id} and {@code sqloop-batch-id} headers, so nothing is decoded for it. A
 * cancellation reaches a runner a poll after it is written; a record already in a stage finishes that stage and
 * is ended at the next one.
 */
public interface Cancellations extends AutoCloseable {
    boolean cancelled(Map<String, String> headers);

    @Override
    default void close() {}

    /** Nothing is ever cancelled (tests, tools). */
    Cancellations NONE = headers -> false;

    /**
     * Whether the record this thread is handling has been cancelled since it started: set by the runner around each
     * record (one virtual thread per record), so a stage's costly call can look again after a wait.
     */
    ThreadLocal<java.util.function.BooleanSupplier> CURRENT = ThreadLocal.withInitial(() -> () -> false);

    /**
     * A cancellation point: throws {@link Cancelled} when the record being handled on this thread was cancelled
     * meanwhile. The LLM client calls it after waiting for a concurrency slot and the rate pacer, before the request:
     * records queued behind the LLM's limits would otherwise each spend a call after their batch was cancelled.
     */
    static void checkpoint() {
        if (CURRENT.get().getAsBoolean()) throw new Cancelled();
    }

    /** The record's question or batch was cancelled while a stage worked on it; the runner ends it as cancelled. */
    final class Cancelled extends RuntimeException {
        public Cancelled() {
            super("cancelled", null, false, false);
        }
    }

    /** The keys a record's headers match ({@code question:<id>}, {@code batch:<id>}). */
    static boolean matches(Set<String> cancelled, Map<String, String> headers) {
        if (cancelled.isEmpty()) return false;
        String q = headers.get(SqloopHeaders.QUESTION_ID);
        String b = headers.get(SqloopHeaders.BATCH_ID);
        return (q != null && cancelled.contains(Cancellation.QUESTION + q)) || (b != null && cancelled.contains(Cancellation.BATCH + b));
    }

    /** Follows the topic on a daemon thread until closed. */
    static Cancellations follow(KafkaSettings kafka, String clientId) {
        return new Follower(kafka, clientId);
    }

    final class Follower implements Cancellations {
        private static final Logger log = LoggerFactory.getLogger(Follower.class);
        private final Set<String> cancelled = ConcurrentHashMap.newKeySet();
        private final KafkaConsumer<byte[], byte[]> consumer;
        private final Thread thread;
        private volatile boolean running = true;

        Follower(KafkaSettings kafka, String clientId) {
            Map<String, Object> p = new HashMap<>(kafka.clientOverrides());
            p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
            p.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId + "-cancellations");
            p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
            p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
            this.consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
            this.thread = Thread.ofPlatform().daemon().name(clientId + "-cancellations").unstarted(this::run);
            thread.start();
        }

        private void run() {
            try {
                List<TopicPartition> partitions = List.of();
                while (running && partitions.isEmpty()) {
                    try {
                        partitions = consumer.partitionsFor(Topics.CANCELLATIONS.name(), Duration.ofSeconds(10)).stream()
                                .map(i -> new TopicPartition(i.topic(), i.partition())).toList();
                    } catch (org.apache.kafka.common.errors.TimeoutException notYet) {
                        partitions = List.of();
                    }
                    if (partitions.isEmpty()) Thread.sleep(1000); // the topic is created by whoever starts first
                }
                consumer.assign(partitions);
                consumer.seekToBeginning(partitions);
                while (running) {
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                        if (r.key() == null) continue;
                        String key = new String(r.key(), StandardCharsets.UTF_8);
                        if (r.value() == null) cancelled.remove(key);
                        else cancelled.add(key);
                    }
                }
            } catch (WakeupException | InterruptedException e) {
                // closing
            } catch (RuntimeException e) {
                if (running) log.warn("cancellations: following {} stopped: {}", Topics.CANCELLATIONS.name(), e.toString());
            } finally {
                consumer.close(Duration.ofSeconds(2));
            }
        }

        @Override
        public boolean cancelled(Map<String, String> headers) {
            return Cancellations.matches(cancelled, headers);
        }

        @Override
        public void close() {
            running = false;
            consumer.wakeup();
            try {
                thread.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
