package dev.sqloop.gateway;

import dev.sqloop.common.topic.Topic;
import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.message.BatchManifest;
import dev.sqloop.common.message.ExampleCommand;
import dev.sqloop.common.message.FeedbackCommand;
import dev.sqloop.common.message.Message;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.runtime.OutgoingRecords;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.RecordMetadata;

/** Turns validated requests into records on {@code retrieve-examples} (and batch manifests, feedback, example commands). */
final class Submitter {
    private static final Duration ACK_TIMEOUT = Duration.ofSeconds(30);

    private final Producer<byte[], byte[]> producer;
    private final Producer<byte[], byte[]> batchProducer;
    private final GatewayConfig config;
    private final Clock clock;

    /**
     * @param producer idempotent, for single records (one record is atomic by itself)
     * @param batchProducer transactional (initialized), so a batch and its manifest land all together or not at all,
     *                      even when the broker fails half way; stages read committed records only
     */
    Submitter(Producer<byte[], byte[]> producer, Producer<byte[], byte[]> batchProducer, GatewayConfig config, Clock clock) {
        this.producer = producer;
        this.batchProducer = batchProducer;
        this.config = config;
        this.clock = clock;
    }

    /** A stable id for an idempotent client id (same tenant + client id → same question), else a random one. */
    static String questionId(String tenant, String clientId) {
        if (clientId == null) return UUID.randomUUID().toString();
        return UUID.nameUUIDFromBytes((tenant + "\u0000" + clientId).getBytes(StandardCharsets.UTF_8)).toString();
    }

    /**
     * A batch question's id: random without a client id, else derived from tenant, batch and client id. Scoped to the
     * batch, so a later batch reusing a client id gets a question of its own and an earlier batch never changes.
     */
    static String batchQuestionId(String tenant, String batchId, String clientId) {
        if (clientId == null) return UUID.randomUUID().toString();
        return UUID.nameUUIDFromBytes((tenant + "\u0000" + batchId + "\u0000" + clientId).getBytes(StandardCharsets.UTF_8)).toString();
    }

    QuestionTask task(String questionId, String tenant, String batchId, QuestionRequest r) {
        Instant now = clock.instant();
        // the dialect is resolved here, once: every stage reads it from the task (QuestionRequest refused unknown datasources)
        return QuestionTask.create(questionId, tenant, r.datasource(), r.question(), r.maxAttempts(), now)
                .withDialect(config.datasources().get(r.datasource()))
                .withBatch(batchId, now.plus(config.questionTimeout()), r.metadata())
                .withInstructions(r.instructions())
                .withCapture(r.capture())
                .withCandidatesWanted(r.candidates());
    }

    /**
     * A batch and its manifest in one transaction; on failure nothing of it is visible and the caller may retry.
     *
     * @param traceparent the request's W3C trace context (the records continue it), or null for a new trace
     */
    void submitBatch(BatchManifest manifest, List<QuestionTask> tasks, String traceparent) {
        transaction(manifest, tasks, traceparent);
    }

    /** Questions (retried ones) in one transaction, without a manifest: all of them or none. */
    void submitAll(List<QuestionTask> tasks, String traceparent) {
        transaction(null, tasks, traceparent);
    }

    private void transaction(BatchManifest manifest, List<QuestionTask> tasks, String traceparent) {
        synchronized (batchProducer) { // one transaction at a time per producer
            try {
                batchProducer.beginTransaction();
                if (manifest != null) batchProducer.send(OutgoingRecords.fresh(Topics.BATCHES, manifest, traceparent));
                for (QuestionTask t : tasks) batchProducer.send(OutgoingRecords.fresh(Topics.RETRIEVE_EXAMPLES, t, traceparent));
                batchProducer.commitTransaction();
            } catch (org.apache.kafka.common.errors.ProducerFencedException e) {
                throw new ApiError(503, "unavailable", "another gateway took over this producer: " + e.getMessage(), null, null);
            } catch (org.apache.kafka.common.KafkaException e) {
                try {
                    batchProducer.abortTransaction();
                } catch (RuntimeException ignored) {
                    // the transaction times out on the broker anyway; nothing of it becomes visible
                }
                throw new ApiError(503, "unavailable", "the queue did not accept the batch: " + e.getMessage(), null, null);
            }
        }
    }

    /** Sends and waits until the broker acknowledged every record; a failure is a 503 and the caller may retry. */
    <M extends Message> void send(List<M> messages, Topic<M> topic, String traceparent) {
        List<Future<RecordMetadata>> acks = new ArrayList<>(messages.size());
        for (M m : messages) acks.add(producer.send(OutgoingRecords.fresh(topic, m, traceparent)));
        producer.flush();
        try {
            for (Future<RecordMetadata> ack : acks) ack.get(ACK_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new ApiError(503, "unavailable", "the queue did not accept the submission: " + e.getMessage(), null, null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ApiError(503, "unavailable", "interrupted", null, null);
        }
    }

    void submitQuestions(List<QuestionTask> tasks, String traceparent) {
        send(tasks, Topics.RETRIEVE_EXAMPLES, traceparent);
    }

    void submitFeedback(FeedbackCommand command) {
        send(List.of(command), Topics.FEEDBACK, null);
    }

    void submitCancellation(dev.sqloop.common.message.Cancellation cancellation) {
        send(List.of(cancellation), Topics.CANCELLATIONS, null);
    }

    void submitExampleCommand(ExampleCommand command) {
        send(List.of(command), Topics.EXAMPLE_COMMANDS, null);
    }

    Instant now() {
        return clock.instant();
    }
}
