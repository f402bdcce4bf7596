package dev.sqloop.embedded;

import dev.sqloop.testkit.TestDirs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.config.KafkaSettings;
import dev.sqloop.common.runtime.KafkaClients;
import dev.sqloop.testkit.EmbeddedKafka;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;

/** {@code ./sqloop broker}: sqloop's topics created, and a restart on the same directory keeps address and records. */
class BrokerIT {
    @Test
    void shouldComeBackAtTheSameAddressWithItsTopicsAndRecords() throws Exception {
        Path dir = TestDirs.create("sqloop-broker-it-");
        String address;
        try (EmbeddedKafka broker = Broker.start(dir)) {
            address = broker.bootstrapServers();
            KafkaSettings kafka = new KafkaSettings(address, Map.of());
            try (Admin admin = KafkaClients.admin(kafka)) {
                Set<String> names = admin.listTopics().names().get();
                for (Topics.Spec spec : Topics.ALL) assertTrue(names.contains(spec.name()), spec.name() + " missing");
            }
            try (Producer<byte[], byte[]> p = KafkaClients.producer(kafka, "broker-it")) {
                p.send(new ProducerRecord<>(Topics.FEEDBACK.name(), "k".getBytes(StandardCharsets.UTF_8),
                        "kept".getBytes(StandardCharsets.UTF_8))).get();
            }
        }
        try (EmbeddedKafka again = Broker.start(dir)) {
            assertEquals(address, again.bootstrapServers(), "same address after a restart");
            try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(Map.of("bootstrap.servers", address),
                    new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
                TopicPartition tp = new TopicPartition(Topics.FEEDBACK.name(), 0);
                c.assign(List.of(tp));
                c.seekToBeginning(List.of(tp));
                String value = null;
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (value == null && System.nanoTime() < deadline) {
                    for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) value = new String(r.value(), StandardCharsets.UTF_8);
                }
                assertEquals("kept", value, "the record survives the restart");
            }
        }
    }
}
