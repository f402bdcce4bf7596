package dev.sqloop.common.runtime;

import dev.sqloop.common.SqloopHeaders;
import dev.sqloop.common.topic.Topics;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Turns a record a stage could not handle into a dead letter for the {@code dlq} topic, in the manner of Kafka
 * Connect's {@code DeadLetterQueueReporter}: the original key, value and headers unchanged (earlier
 * {@code sqloop.error.*} headers replaced), plus {@code sqloop.error.{topic,partition,offset,stage,reason,
 * exception.class,exception.message}}.
 */
public final class DeadLetterReporter {
    /** The value could not be decoded as the stage's input type. */
    public static final String UNDECODABLE = "undecodable";
    /** Infrastructure retries ran out. */
    public static final String RETRIES_EXHAUSTED = "retries_exhausted";
    /** The stage threw something other than an infrastructure failure. */
    public static final String PROCESSING_FAILED = "processing_failed";
    /** The broker refused the stage's output for good (too large, invalid). */
    public static final String OUTPUT_REJECTED = "output_rejected";

    /** The counter of dead letters made, tagged {@code stage} and {@code reason}. */
    public static final String METRIC = "sqloop.dlq.records";

    /** Every reason a record is dead-lettered for. */
    public static final java.util.List<String> REASONS = java.util.List.of(UNDECODABLE, RETRIES_EXHAUSTED, PROCESSING_FAILED, OUTPUT_REJECTED);

    static final int MAX_MESSAGE_CHARS = 4000;

    private final String stage;
    private final Consumer<String> onReport;

    /** @param onReport told the reason of every dead letter made (a metrics counter) */
    public DeadLetterReporter(String stage, Consumer<String> onReport) {
        this.stage = Objects.requireNonNull(stage, "stage");
        this.onReport = Objects.requireNonNull(onReport, "onReport");
    }

    public ProducerRecord<byte[], byte[]> report(ConsumerRecord<byte[], byte[]> record, String reason, Throwable cause) {
        onReport.accept(reason);
        RecordHeaders headers = new RecordHeaders();
        for (Header h : record.headers()) {
            if (!h.key().startsWith(SqloopHeaders.ERROR_PREFIX)) headers.add(h);
        }
        String message = cause.getMessage() == null ? "" : cause.getMessage();
        if (message.length() > MAX_MESSAGE_CHARS) message = message.substring(0, MAX_MESSAGE_CHARS) + "…";
        headers.add(SqloopHeaders.ERROR_TOPIC, utf8(record.topic()));
        headers.add(SqloopHeaders.ERROR_PARTITION, utf8(Integer.toString(record.partition())));
        headers.add(SqloopHeaders.ERROR_OFFSET, utf8(Long.toString(record.offset())));
        headers.add(SqloopHeaders.ERROR_STAGE, utf8(stage));
        headers.add(SqloopHeaders.ERROR_REASON, utf8(reason));
        headers.add(SqloopHeaders.ERROR_CLASS, utf8(cause.getClass().getName()));
        headers.add(SqloopHeaders.ERROR_MESSAGE, utf8(message));
        return new ProducerRecord<>(Topics.DLQ.name(), null, record.key(), record.value(), headers);
    }

    /** Whether {@code record} is a dead letter (one the broker refuses is not replaced by another). */
    public static boolean isDeadLetter(ProducerRecord<?, ?> record) {
        return Topics.DLQ.name().equals(record.topic());
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
