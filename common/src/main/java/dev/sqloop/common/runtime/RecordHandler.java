package dev.sqloop.common.runtime;

import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.SqloopHeaders;
import dev.sqloop.common.message.QuestionTask;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What becomes of one consumed record, without a consumer or a producer: decode it as the stage's input, end it if
 * its question or batch was cancelled or its deadline passed, run the stage, retry an {@link InfrastructureException} with the {@link RetryPolicy} (the only
 * place sqloop retries), and give up into the stage's {@code onGiveUp} outcome plus a dead letter. The answer is the
 * records to produce; {@link StageRunner} produces them and commits.
 */
public final class RecordHandler<I> {
    private static final Logger log = LoggerFactory.getLogger(RecordHandler.class);

    /** Records to produce for one input, and the decision that made them (a metrics tag). */
    public record Handled(String kind, List<ProducerRecord<byte[], byte[]>> records) {
        public Handled {
            records = List.copyOf(records);
        }
    }

    /** Thrown when the runner stops before the record could finish: it stays uncommitted and is delivered again. */
    public static final class Abandoned extends Exception {
        Abandoned() {
            super(null, null, false, false);
        }
    }

    /** Waits between retries; answers false when interrupted. */
    @FunctionalInterface
    public interface Sleeper {
        boolean sleep(Duration duration);

        Sleeper REAL = d -> {
            try {
                Thread.sleep(d);
                return true;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        };
    }

    private final Stage<I> stage;
    private final RetryPolicy retry;
    private final Clock clock;
    private final DeadLetterReporter deadLetters;
    private final BooleanSupplier stopping;
    private final Runnable onRetry;
    private final Sleeper sleeper;
    private final Cancellations cancellations;

    /**
     * @param stopping true once the runner stops: a record then waits no longer for a retry and is abandoned
     * @param onRetry told of every infrastructure retry (a metrics counter)
     */
    public RecordHandler(Stage<I> stage, RetryPolicy retry, Clock clock, DeadLetterReporter deadLetters,
                         BooleanSupplier stopping, Runnable onRetry, Sleeper sleeper) {
        this(stage, retry, clock, deadLetters, stopping, onRetry, sleeper, Cancellations.NONE);
    }

    /** @param cancellations which questions and batches are cancelled: such a record ends without the stage's work */
    public RecordHandler(Stage<I> stage, RetryPolicy retry, Clock clock, DeadLetterReporter deadLetters,
                         BooleanSupplier stopping, Runnable onRetry, Sleeper sleeper, Cancellations cancellations) {
        this.cancellations = Objects.requireNonNull(cancellations, "cancellations");
        this.stage = Objects.requireNonNull(stage, "stage");
        this.retry = Objects.requireNonNull(retry, "retry");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.deadLetters = Objects.requireNonNull(deadLetters, "deadLetters");
        this.stopping = Objects.requireNonNull(stopping, "stopping");
        this.onRetry = Objects.requireNonNull(onRetry, "onRetry");
        this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
    }

    public Handled handle(ConsumerRecord<byte[], byte[]> record) throws Abandoned {
        Map<String, String> headers = headersOf(record);
        I input;
        try {
            input = JsonCodec.decode(record.value(), stage.inputType());
        } catch (JsonCodec.DecodeException e) {
            log.warn("stage {}: undecodable record {}-{}@{} to the DLQ: {}", stage.name(), record.topic(),
                    record.partition(), record.offset(), e.getMessage());
            return new Handled("dlq", List.of(deadLetters.report(record, DeadLetterReporter.UNDECODABLE, e)));
        }
        if (stage.startsQuestions() && input instanceof QuestionTask task) {
            input = stage.inputType().cast(task.started(clock.instant()));
        }
        Instant deadline = deadlineOf(input, headers);
        Cancellations.CURRENT.set(() -> cancellations.cancelled(headers));
        try {
            return run(record, input, headers, deadline);
        } finally {
            Cancellations.CURRENT.remove();
        }
    }

    private Handled run(ConsumerRecord<byte[], byte[]> record, I input, Map<String, String> headers, Instant deadline)
            throws Abandoned {
        int attempt = 0;
        while (true) {
            Instant now = clock.instant();
            if (cancellations.cancelled(headers)) {
                return new Handled("cancelled", OutgoingRecords.of(stage.onCancelled(input, now), headers));
            }
            if (deadline != null && now.isAfter(deadline)) {
                return new Handled("deadline", OutgoingRecords.of(stage.onDeadline(input, deadline, now), headers));
            }
            try {
                Outcome outcome = stage.process(input);
                return new Handled(outcome.kind(), OutgoingRecords.of(outcome, headers));
            } catch (InfrastructureException e) {
                if (stopping.getAsBoolean()) throw new Abandoned();
                if (!retry.canRetry(attempt)) {
                    log.warn("stage {}: giving up on {} after {} infrastructure retries: {}", stage.name(),
                            record.key() == null ? "?" : new String(record.key(), StandardCharsets.UTF_8), attempt, e.toString());
                    return giveUp(record, input, headers, e, true);
                }
                attempt++;
                onRetry.run();
                // counted in the question itself, so its result and trace say how often this stage waited for infrastructure
                if (input instanceof QuestionTask task) input = stage.inputType().cast(task.withRetry(stage.name()));
                Duration delay = retry.delay(attempt, e.retryAfter().orElse(null));
                // one line per retry (issue 46: retries showed only in metrics): what, which, how many so far, how long
                log.info("stage {}: infrastructure retry {} of {} in {} ms (no attempt spent): {}", stage.name(), attempt,
                        record.key() == null ? "?" : new String(record.key(), StandardCharsets.UTF_8), delay.toMillis(), e.getMessage());
                if (!sleeper.sleep(delay)) throw new Abandoned();
            } catch (Cancellations.Cancelled e) {
                return new Handled("cancelled", OutgoingRecords.of(stage.onCancelled(input, clock.instant()), headers));
            } catch (InterruptedException e) {
                throw new Abandoned();
            } catch (Exception e) {
                if (stopping.getAsBoolean() && Thread.currentThread().isInterrupted()) throw new Abandoned();
                log.warn("stage {}: processing failed for {}-{}@{}, to the DLQ", stage.name(), record.topic(),
                        record.partition(), record.offset(), e);
                return giveUp(record, input, headers, e, false);
            }
        }
    }

    private Handled giveUp(ConsumerRecord<byte[], byte[]> record, I input, Map<String, String> headers, Exception cause,
                           boolean infrastructure) {
        List<ProducerRecord<byte[], byte[]>> out = new ArrayList<>(
                OutgoingRecords.of(stage.onGiveUp(input, cause, infrastructure, clock.instant()), headers));
        out.add(deadLetters.report(record, infrastructure ? DeadLetterReporter.RETRIES_EXHAUSTED
                : DeadLetterReporter.PROCESSING_FAILED, cause));
        return new Handled(infrastructure ? "gave_up" : "failed", out);
    }

    static Instant deadlineOf(Object input, Map<String, String> headers) {
        if (input instanceof QuestionTask task && task.deadline() != null) return task.deadline();
        String header = headers.get(SqloopHeaders.DEADLINE);
        if (header == null) return null;
        try {
            return Instant.ofEpochMilli(Long.parseLong(header.trim()));
        } catch (NumberFormatException e) {
            return null; // a malformed deadline imposes none; the message itself is still processed
        }
    }

    static Map<String, String> headersOf(ConsumerRecord<byte[], byte[]> record) {
        Map<String, String> headers = new LinkedHashMap<>();
        for (Header h : record.headers()) {
            if (h.value() != null) headers.put(h.key(), new String(h.value(), StandardCharsets.UTF_8));
        }
        return headers;
    }
}
