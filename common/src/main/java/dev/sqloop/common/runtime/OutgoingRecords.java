package dev.sqloop.common.runtime;

import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.SqloopHeaders;
import dev.sqloop.common.topic.Topic;
import dev.sqloop.common.message.Message;
import dev.sqloop.common.message.Tombstone;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * The one place a {@link Message} becomes a Kafka record, for the stage runner and the gateway alike: key, JSON value
 * (null for a {@link Tombstone}), the {@code sqloop-*} headers the message implies, and W3C {@code traceparent}.
 *
 * <p>A record produced for an incoming one inherits the incoming headers (except {@code sqloop.error.*} and
 * {@code sqloop-previous-sql}, which describe that hop only), the message's own headers win, and the trace continues
 * with a new span id. A record with no incoming one (a submission) starts a new trace.
 */
public final class OutgoingRecords {
    private OutgoingRecords() {}

    /** A first record: the message's headers and a new trace. */
    public static <M extends Message> ProducerRecord<byte[], byte[]> fresh(Topic<M> topic, M message) {
        return record(topic.name(), message, Map.of());
    }

    /**
     * A first record in the trace a caller started ({@code traceparent} of an HTTP request, W3C format; a new trace
     * when null or malformed).
     */
    public static <M extends Message> ProducerRecord<byte[], byte[]> fresh(Topic<M> topic, M message, String traceparent) {
        return record(topic.name(), message, traceparent == null ? Map.of() : Map.of(SqloopHeaders.TRACEPARENT, traceparent));
    }

    /** A record produced because of an incoming one with {@code incoming} headers. */
    public static ProducerRecord<byte[], byte[]> record(String topic, Message message, Map<String, String> incoming) {
        Map<String, String> headers = new LinkedHashMap<>();
        incoming.forEach((k, v) -> {
            if (!k.startsWith(SqloopHeaders.ERROR_PREFIX) && !k.equals(SqloopHeaders.PREVIOUS_SQL)) headers.put(k, v);
        });
        headers.putAll(message.headers());
        headers.put(SqloopHeaders.TRACEPARENT, TraceParent.child(incoming.get(SqloopHeaders.TRACEPARENT)));
        RecordHeaders recordHeaders = new RecordHeaders();
        headers.forEach((k, v) -> recordHeaders.add(k, v.getBytes(StandardCharsets.UTF_8)));
        byte[] key = message.key() == null ? null : message.key().getBytes(StandardCharsets.UTF_8);
        // the one place a null value is produced: a deletion on a compacted topic
        byte[] value = message instanceof Tombstone ? null : JsonCodec.encode(message);
        return new ProducerRecord<>(topic, null, key, value, recordHeaders);
    }

    /** The records an outcome produces (none for a drop). */
    public static List<ProducerRecord<byte[], byte[]>> of(Outcome outcome, Map<String, String> incoming) {
        if (!(outcome instanceof Outcome.Send send)) return List.of();
        List<ProducerRecord<byte[], byte[]>> out = new ArrayList<>(send.emissions().size());
        for (Outcome.Emission emission : send.emissions()) out.add(record(emission.topic(), emission.message(), incoming));
        return out;
    }
}
