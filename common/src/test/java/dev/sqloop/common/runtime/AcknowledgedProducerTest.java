package dev.sqloop.common.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sqloop.common.SqloopHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/** Producing a record's outputs until the broker acknowledges them, against Kafka's own MockProducer. */
class AcknowledgedProducerTest {
    private static final RetryPolicy POLICY = new RetryPolicy(3, Duration.ofMillis(100), Duration.ofSeconds(1), 2.0);
    private static final ConsumerRecord<byte[], byte[]> INPUT = new ConsumerRecord<>("in", 0, 7L, -1L, TimestampType.CREATE_TIME,
            -1, -1, "k".getBytes(StandardCharsets.UTF_8), "{}".getBytes(StandardCharsets.UTF_8), new RecordHeaders(), Optional.empty());

    /** Acknowledges every send, except the next failures queued, which fail their acknowledgement. */
    private static final class Flaky extends MockProducer<byte[], byte[]> {
        final Deque<RuntimeException> failures = new ArrayDeque<>();

        Flaky() {
            super(true, null, new ByteArraySerializer(), new ByteArraySerializer());
        }

        @Override
        public synchronized Future<RecordMetadata> send(ProducerRecord<byte[], byte[]> record) {
            RuntimeException failure = failures.poll();
            if (failure != null) return CompletableFuture.failedFuture(failure);
            return super.send(record);
        }
    }

    private final Flaky producer = new Flaky();
    private final List<Duration> sleeps = new ArrayList<>();
    private final List<String> reasons = new ArrayList<>();

    private AcknowledgedProducer output(boolean stopping) {
        return new AcknowledgedProducer("s", producer, new DeadLetterReporter("s", reasons::add), POLICY, () -> stopping, d -> {
            sleeps.add(d);
            return true;
        });
    }

    private static ProducerRecord<byte[], byte[]> out(String topic) {
        return new ProducerRecord<>(topic, "k".getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void shouldReturnOnceEveryOutputIsAcknowledged() throws Exception {
        output(false).produce(INPUT, List.of(out("a"), out("b")));
        assertEquals(List.of("a", "b"), producer.history().stream().map(ProducerRecord::topic).toList());
        assertEquals(List.of(), sleeps);
    }

    @Test
    void shouldSendAgainAfterARetriableFailure() throws Exception {
        producer.failures.add(new NotLeaderOrFollowerException("moving"));
        output(false).produce(INPUT, List.of(out("a")));
        assertEquals(List.of("a"), producer.history().stream().map(ProducerRecord::topic).toList());
        assertEquals(1, sleeps.size(), "one backoff before the second send");
        assertEquals(List.of(), reasons);
    }

    @Test
    void shouldDeadLetterTheInputWhenTheBrokerRefusesAnOutputForGood() throws Exception {
        producer.failures.add(new RecordTooLargeException("too large"));
        output(false).produce(INPUT, List.of(out("a")));
        ProducerRecord<byte[], byte[]> dead = producer.history().getFirst();
        assertEquals("dlq", dead.topic());
        assertEquals("{}", new String(dead.value(), StandardCharsets.UTF_8), "the input, not the refused output");
        assertEquals(DeadLetterReporter.OUTPUT_REJECTED,
                new String(dead.headers().lastHeader(SqloopHeaders.ERROR_REASON).value(), StandardCharsets.UTF_8));
        assertEquals(List.of(DeadLetterReporter.OUTPUT_REJECTED), reasons);
    }

    @Test
    void shouldRetryARefusedDeadLetterRatherThanReplaceIt() throws Exception {
        producer.failures.add(new RecordTooLargeException("too large"));
        output(false).produce(INPUT, List.of(out("dlq")));
        assertEquals(List.of("dlq"), producer.history().stream().map(ProducerRecord::topic).toList());
        assertEquals(1, sleeps.size());
        assertEquals(List.of(), reasons, "no dead letter of a dead letter");
    }

    @Test
    void shouldAbandonWhenTheRunnerStops() {
        producer.failures.add(new NotLeaderOrFollowerException("moving"));
        assertThrows(RecordHandler.Abandoned.class, () -> output(true).produce(INPUT, List.of(out("a"))));
        assertEquals(List.of(), producer.history());
    }
}
