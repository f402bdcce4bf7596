package dev.sqloop.common.runtime;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.RetriableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Produces one input's outputs and returns only once the broker acknowledged all of them, so the runner may mark the
 * input finished (its offset becomes committable). A retriable failure sends them again with backoff until it works or
 * the runner stops (at-least-once: a resend may duplicate, consumers are idempotent); outputs the broker will never take
 * (too large, invalid) are replaced by a dead letter of the input.
 */
final class AcknowledgedProducer {
    private static final Logger log = LoggerFactory.getLogger(AcknowledgedProducer.class);

    private final String stage;
    private final Producer<byte[], byte[]> producer;
    private final DeadLetterReporter deadLetters;
    private final RetryPolicy retry;
    private final BooleanSupplier stopping;
    private final RecordHandler.Sleeper sleeper;

    AcknowledgedProducer(String stage, Producer<byte[], byte[]> producer, DeadLetterReporter deadLetters, RetryPolicy retry,
                         BooleanSupplier stopping, RecordHandler.Sleeper sleeper) {
        this.stage = Objects.requireNonNull(stage, "stage");
        this.producer = Objects.requireNonNull(producer, "producer");
        this.deadLetters = Objects.requireNonNull(deadLetters, "deadLetters");
        this.retry = Objects.requireNonNull(retry, "retry");
        this.stopping = Objects.requireNonNull(stopping, "stopping");
        this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
    }

    /** @throws RecordHandler.Abandoned when the runner stops first: the input stays uncommitted */
    void produce(ConsumerRecord<byte[], byte[]> input, List<ProducerRecord<byte[], byte[]>> records) throws RecordHandler.Abandoned {
        int attempt = 0;
        List<ProducerRecord<byte[], byte[]>> toSend = records;
        while (true) {
            List<Future<RecordMetadata>> acks = new ArrayList<>(toSend.size());
            try {
                for (ProducerRecord<byte[], byte[]> r : toSend) acks.add(producer.send(r));
                for (Future<RecordMetadata> ack : acks) ack.get();
                return;
            } catch (InterruptedException e) {
                throw new RecordHandler.Abandoned();
            } catch (ExecutionException | KafkaException e) {
                Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
                if (stopping.getAsBoolean()) throw new RecordHandler.Abandoned();
                boolean alreadyDeadLetter = toSend.size() == 1 && DeadLetterReporter.isDeadLetter(toSend.get(0));
                if (!(cause instanceof RetriableException) && !alreadyDeadLetter) {
                    // An output the broker will never take (too large, invalid): dead-letter the input instead.
                    log.warn("stage {}: output rejected ({}), input to the DLQ", stage, cause.toString());
                    toSend = List.of(deadLetters.report(input, DeadLetterReporter.OUTPUT_REJECTED, cause));
                    continue;
                }
                attempt++;
                log.warn("stage {}: produce failed (try {}), retrying: {}", stage, attempt, cause.toString());
                if (!sleeper.sleep(retry.delay(Math.min(attempt, 10), null))) throw new RecordHandler.Abandoned();
            }
        }
    }
}
