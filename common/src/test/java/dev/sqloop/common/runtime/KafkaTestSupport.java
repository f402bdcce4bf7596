package dev.sqloop.common.runtime;

import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.config.KafkaSettings;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** Producing to and reading back from a real broker in tests. */
public final class KafkaTestSupport {
    private final KafkaSettings kafka;

    public KafkaTestSupport(String bootstrap) {
        this.kafka = KafkaSettings.of(bootstrap);
    }

    public KafkaSettings settings() {
        return kafka;
    }

    public void createTopics(int partitions, String... names) {
        List<Topics.Spec> specs = new ArrayList<>();
        for (String n : names) specs.add(new Topics.Spec(n, partitions, false));
        KafkaClients.ensureTopics(kafka, specs, Duration.ofSeconds(60));
    }

    /** The tests' producer: every record is sent right after its topic is created ({@link KafkaClients#oneRequestInFlight}). */
    private Producer<byte[], byte[]> producer() {
        return KafkaClients.oneRequestInFlight(kafka, "test-producer");
    }

    public void send(String topic, String key, byte[] value, Map<String, String> headers) {
        try (Producer<byte[], byte[]> p = producer()) {
            sendWith(p, topic, key, value, headers);
            p.flush();
        }
    }

    public static void sendWith(Producer<byte[], byte[]> p, String topic, String key, byte[] value, Map<String, String> headers) {
        RecordHeaders h = new RecordHeaders();
        headers.forEach((k, v) -> h.add(k, v.getBytes(StandardCharsets.UTF_8)));
        p.send(new ProducerRecord<>(topic, null, key == null ? null : key.getBytes(StandardCharsets.UTF_8), value, h));
    }

    /** Sends {@code count} probes and waits for every acknowledgement: a probe the broker did not take fails here. */
    public void sendProbes(String topic, int count) {
        try (Producer<byte[], byte[]> p = producer()) {
            List<java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata>> sent = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                Probe probe = new Probe("p-" + i, i, 0);
                sent.add(p.send(new ProducerRecord<>(topic, probe.id().getBytes(StandardCharsets.UTF_8), JsonCodec.encode(probe))));
            }
            p.flush();
            for (int i = 0; i < count; i++) {
                try {
                    sent.get(i).get();
                } catch (Exception e) {
                    throw new AssertionError("probe p-" + i + " was not acknowledged by the broker", e);
                }
            }
        }
    }

    /** Reads {@code topic} from the beginning until {@code done} holds for what was read, or the timeout. */
    public List<ConsumerRecord<byte[], byte[]>> readUntil(String topic, Duration timeout,
                                                          Predicate<List<ConsumerRecord<byte[], byte[]>>> done) {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "reader-" + UUID.randomUUID());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        List<ConsumerRecord<byte[], byte[]>> all = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            c.subscribe(List.of(topic));
            long deadline = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < deadline && !done.test(all)) {
                c.poll(Duration.ofMillis(200)).forEach(all::add);
            }
        }
        return all;
    }

    /** The distinct keys of {@code records}. */
    public static java.util.Set<String> distinctKeys(List<ConsumerRecord<byte[], byte[]>> records) {
        java.util.Set<String> keys = new java.util.HashSet<>();
        for (ConsumerRecord<byte[], byte[]> r : records) keys.add(new String(r.key(), StandardCharsets.UTF_8));
        return keys;
    }

    /** The ids {@link #sendProbes} produced for {@code count} probes. */
    public static java.util.Set<String> probeIds(int count) {
        java.util.Set<String> ids = new java.util.HashSet<>();
        for (int i = 0; i < count; i++) ids.add("p-" + i);
        return ids;
    }

    public static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        var h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}
