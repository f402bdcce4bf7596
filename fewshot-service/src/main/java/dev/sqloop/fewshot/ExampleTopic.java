package dev.sqloop.fewshot;

import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.config.KafkaSettings;
import dev.sqloop.common.message.ExampleRecord;
import dev.sqloop.common.runtime.KafkaClients;
import dev.sqloop.common.runtime.Outcome;
import dev.sqloop.store.ExampleStore;
import dev.sqloop.store.StoredExample;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The fewshot service's side of the compacted {@code examples} topic, which mirrors its store for readers that
 * cannot open it (the gateway's {@code /v1/examples}). Stages publish each change as part of their outcome, after
 * the store write, so the runner's at-least-once delivery covers it; {@link #sync} publishes whatever the topic
 * missed (examples seeded while the service was down, a topic that was lost) when the service starts.
 */
public final class ExampleTopic {
    private ExampleTopic() {}

    /** What a {@link #sync} changed on the topic. */
    public record SyncReport(long stored, int published, int removed) {}

    public static ExampleRecord recordOf(StoredExample e) {
        return new ExampleRecord(0, Questions.exampleId(e.datasource(), e.question(), e.owner()).toString(), e.datasource(), e.question(),
                e.sql(), e.dialect(), e.source(), e.tenant(), e.notes(), e.tags(), e.createdAt(), e.shared());
    }

    /** The stored example, published under its id ({@code kind} tags the stage's outcome metrics). */
    public static Outcome.Send published(String kind, StoredExample stored) {
        return Outcome.send(kind, Topics.EXAMPLES, recordOf(stored));
    }

    /**
     * An example captured from a question, published with its provenance (the batch and question): the topic's record
     * is what lets the gateway find one batch's captures and roll them back together.
     */
    public static Outcome.Send captured(String kind, StoredExample stored, String batchId, String questionId) {
        return Outcome.send(kind, Topics.EXAMPLES, recordOf(stored).capturedFrom(batchId, questionId));
    }

    /**
     * {@code owner}'s example of this question (the shared one when null) is gone. Published whether or not the store had it: a redelivered command
     * finds nothing to delete but must still reach readers that missed the first tombstone.
     */
    public static Outcome.Send removed(String kind, String datasource, String question, String owner) {
        return Outcome.tombstone(kind, Topics.EXAMPLES, Questions.exampleId(datasource, question, owner).toString());
    }

    /**
     * Makes the topic match the store: publishes every example whose latest record differs and tombstones ids the
     * store no longer holds. Reads the topic first and the store second, so a change another replica makes meanwhile
     * (store write, then publish) is never overwritten with its older state.
     */
    public static SyncReport sync(ExampleStore store, KafkaSettings kafka, Duration timeout) {
        Map<String, byte[]> onTopic = readLatest(kafka, timeout);
        List<ProducerRecord<byte[], byte[]>> changes = new ArrayList<>();
        Set<String> stored = new HashSet<>();
        int[] published = {0};
        store.forEachExample(e -> {
            ExampleRecord r = withProvenance(recordOf(e), onTopic.get(recordOf(e).id()));
            stored.add(r.id());
            byte[] value = JsonCodec.encode(r);
            if (!Arrays.equals(value, onTopic.get(r.id()))) {
                changes.add(new ProducerRecord<>(Topics.EXAMPLES.name(), utf8(r.id()), value));
                published[0]++;
            }
        });
        int removed = 0;
        for (String id : onTopic.keySet()) {
            if (!stored.contains(id)) {
                changes.add(new ProducerRecord<>(Topics.EXAMPLES.name(), utf8(id), null));
                removed++;
            }
        }
        send(kafka, changes, timeout);
        return new SyncReport(stored.size(), published[0], removed);
    }

    /**
     * The store keeps no provenance (the batch and question an example was captured from): the topic's record does, and
     * a sync keeps it for the same example rather than republishing it without (which would lose a batch's roll back).
     */
    static ExampleRecord withProvenance(ExampleRecord fromStore, byte[] onTopic) {
        if (onTopic == null || !ExampleRecord.AUTO.equals(fromStore.source())) return fromStore;
        try {
            ExampleRecord topic = JsonCodec.decode(onTopic, ExampleRecord.class);
            return topic.batchId() == null && topic.questionId() == null ? fromStore : fromStore.capturedFrom(topic.batchId(), topic.questionId());
        } catch (JsonCodec.DecodeException e) {
            return fromStore; // an unreadable record is replaced by the store's
        }
    }

    /** The latest value of every live key on the topic, read from the beginning to the current end. */
    private static Map<String, byte[]> readLatest(KafkaSettings kafka, Duration timeout) {
        Map<String, Object> props = KafkaClients.consumerProperties(kafka, "unused", 2000, "sqloop-examples-sync");
        props.remove(ConsumerConfig.GROUP_ID_CONFIG); // assigned partitions, nothing committed
        Map<String, byte[]> latest = new HashMap<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(Topics.EXAMPLES.name(), timeout).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
            while (partitions.stream().anyMatch(tp -> consumer.position(tp, timeout) < end.get(tp))) {
                if (System.nanoTime() > deadline) throw new IllegalStateException("examples topic not read to its end within " + timeout);
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    String key = r.key() == null ? null : new String(r.key(), StandardCharsets.UTF_8);
                    if (key == null) continue;
                    if (r.value() == null) latest.remove(key);
                    else latest.put(key, r.value());
                }
            }
        }
        return latest;
    }

    private static void send(KafkaSettings kafka, List<ProducerRecord<byte[], byte[]>> records, Duration timeout) {
        if (records.isEmpty()) return;
        try (Producer<byte[], byte[]> producer = KafkaClients.producer(kafka, "sqloop-examples-sync")) {
            List<Future<RecordMetadata>> acks = new ArrayList<>(records.size());
            for (ProducerRecord<byte[], byte[]> r : records) acks.add(producer.send(r));
            producer.flush();
            for (Future<RecordMetadata> ack : acks) ack.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while publishing examples", e);
        } catch (Exception e) {
            throw new IllegalStateException("publishing examples to " + Topics.EXAMPLES + " failed: " + e.getMessage(), e);
        }
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
