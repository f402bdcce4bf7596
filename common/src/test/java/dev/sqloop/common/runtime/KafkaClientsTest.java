package dev.sqloop.common.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.sqloop.common.config.KafkaSettings;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;

/**
 * The stage consumers' group membership settings: a short session by default, overridable, none under KIP-848; the
 * producers' delivery timeout: short by default, overridable, always one the producer accepts.
 */
class KafkaClientsTest {

    @Test
    void shouldBoundTheStallAfterACrashWithATenSecondSessionByDefault() {
        Map<String, Object> p = KafkaClients.consumerProperties(KafkaSettings.of("127.0.0.1:9092"), "g", 500, "c");
        assertEquals(10_000, p.get(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG));
        assertEquals(3_000, p.get(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG));
    }

    @Test
    void shouldLetSqloopKafkaSettingsOverrideTheSession() {
        KafkaSettings kafka = new KafkaSettings("127.0.0.1:9092", Map.of(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "45000"));
        Map<String, Object> p = KafkaClients.consumerProperties(kafka, "g", 500, "c");
        assertEquals("45000", p.get(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG));
        assertEquals(3_000, p.get(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG));
    }

    @Test
    void shouldSetNoSessionUnderTheConsumerGroupProtocolWhichRefusesIt() {
        KafkaSettings kafka = new KafkaSettings("127.0.0.1:9092", Map.of(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer"));
        Map<String, Object> p = KafkaClients.consumerProperties(kafka, "g", 500, "c");
        assertFalse(p.containsKey(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG));
        assertFalse(p.containsKey(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG));
        // and the consumer accepts what is left
        new org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]>(p).close();
    }

    @Test
    void shouldBoundAStuckSendWithATwentySecondDeliveryTimeoutByDefault() {
        Map<String, Object> p = KafkaClients.producerProperties(KafkaSettings.of("127.0.0.1:9092"), "c");
        assertEquals(20_000, p.get(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG));
        assertEquals(10_000, p.get(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG));
        assertEquals("all", p.get(ProducerConfig.ACKS_CONFIG));
        assertEquals(true, p.get(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG));
        new KafkaProducer<byte[], byte[]>(p).close();
    }

    @Test
    void shouldKeepTheDeliveryTimeoutAboveAnOverriddenRequestTimeout() {
        KafkaSettings kafka = new KafkaSettings("127.0.0.1:9092", Map.of(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "30000"));
        Map<String, Object> p = KafkaClients.producerProperties(kafka, "c");
        assertEquals(30_005, p.get(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG));
        // the producer accepts it (it refuses a delivery timeout below linger + request timeout)
        new KafkaProducer<byte[], byte[]>(p).close();
    }

    @Test
    void shouldLetSqloopKafkaSettingsOverrideTheDeliveryTimeout() {
        KafkaSettings kafka = new KafkaSettings("127.0.0.1:9092", Map.of(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000"));
        Map<String, Object> p = KafkaClients.producerProperties(kafka, "c");
        assertEquals("120000", p.get(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG));
        assertEquals(10_000, p.get(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG));
    }
}
