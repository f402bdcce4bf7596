package dev.sqloop.cli;

import dev.sqloop.common.SqloopHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * One record of the {@code dlq} topic read back: where it sits in the dlq, the original key, value and headers, and
 * what {@code DeadLetterReporter}'s {@code sqloop.error.*} headers say about where it came from and why.
 *
 * @param partition the dlq partition (the registry creates one; a dead letter on another is named {@code P:OFFSET})
 * @param headers every header in record order, {@code sqloop.error.*} included
 */
public record DeadLetter(int partition, long offset, Instant timestamp, byte[] key, byte[] value, List<Header> headers) {

    public DeadLetter {
        headers = List.copyOf(headers);
    }

    public static DeadLetter of(ConsumerRecord<byte[], byte[]> record) {
        List<Header> headers = new ArrayList<>();
        for (Header h : record.headers()) headers.add(new RecordHeader(h.key(), h.value()));
        return new DeadLetter(record.partition(), record.offset(), Instant.ofEpochMilli(record.timestamp()),
                record.key(), record.value(), headers);
    }

    /** The name a user gives it: the dlq offset, prefixed by the partition when it is not the first. */
    public String id() {
        return id(partition, offset);
    }

    public static String id(int partition, long offset) {
        return partition == 0 ? Long.toString(offset) : partition + ":" + offset;
    }

    /** The last value of header {@code name} as UTF-8, or null. */
    public String header(String name) {
        String value = null;
        for (Header h : headers) {
            if (h.key().equals(name)) value = h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
        }
        return value;
    }

    /** The topic the record was consumed from, the one a replay produces to (null if the header is missing). */
    public String originalTopic() {
        return header(SqloopHeaders.ERROR_TOPIC);
    }

    public String stage() {
        return header(SqloopHeaders.ERROR_STAGE);
    }

    public String reason() {
        return header(SqloopHeaders.ERROR_REASON);
    }

    public String questionId() {
        return header(SqloopHeaders.QUESTION_ID);
    }

    public String exceptionClass() {
        return header(SqloopHeaders.ERROR_CLASS);
    }

    public String exceptionMessage() {
        return header(SqloopHeaders.ERROR_MESSAGE);
    }

    /** {@code topic-partition@offset} of the original record, {@code ?} for what the headers do not say. */
    public String origin() {
        return orUnknown(originalTopic()) + "-" + orUnknown(header(SqloopHeaders.ERROR_PARTITION)) + "@"
                + orUnknown(header(SqloopHeaders.ERROR_OFFSET));
    }

    /**
     * The headers the original record had: all but {@code sqloop.error.*}. The attempt header is among them unchanged,
     * so a replay is the same attempt again, not a repair.
     */
    public List<Header> originalHeaders() {
        return headers.stream().filter(h -> !h.key().startsWith(SqloopHeaders.ERROR_PREFIX)).toList();
    }

    private static String orUnknown(String s) {
        return s == null ? "?" : s;
    }
}
