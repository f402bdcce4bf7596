package dev.sqloop.generator;

import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.config.KafkaSettings;
import dev.sqloop.common.message.Message;
import dev.sqloop.common.runtime.KafkaClients;
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

/** Sending messages to, and reading decoded messages back from, the real test broker. */
final class BrokerIo {
    private final KafkaSettings kafka;

    BrokerIo(String bootstrap) {
        this.kafka = KafkaSettings.of(bootstrap);
        KafkaClients.ensureTopics(kafka, Topics.ALL, Duration.ofSeconds(60));
    }

    KafkaSettings settings() {
        return kafka;
    }

    void send(String topic, Message... messages) {
        try (Producer<byte[], byte[]> p = KafkaClients.producer(kafka, "it-producer")) {
            for (Message m : messages) {
                RecordHeaders h = new RecordHeaders();
                m.headers().forEach((k, v) -> h.add(k, v.getBytes(StandardCharsets.UTF_8)));
                p.send(new ProducerRecord<>(topic, null, m.key().getBytes(StandardCharsets.UTF_8), JsonCodec.encode(m), h));
            }
            p.flush();
        }
    }

    /** Reads {@code topic} from the start, decoding as {@code type}, until {@code done} holds or the timeout. */
    <T> List<T> readUntil(String topic, Class<T> type, Duration timeout, Predicate<List<T>> done) {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "reader-" + UUID.randomUUID());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        List<T> all = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            c.subscribe(List.of(topic));
            long deadline = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < deadline && !done.test(all)) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    try {
                        all.add(JsonCodec.decode(r.value(), type));
                    } catch (JsonCodec.DecodeException e) {
                        throw new AssertionError("undecodable record on " + topic, e);
                    }
                }
            }
        }
        return all;
    }
}
