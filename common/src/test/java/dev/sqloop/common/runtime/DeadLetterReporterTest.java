package dev.sqloop.common.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.SqloopHeaders;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

class DeadLetterReporterTest {

    private static String header(ProducerRecord<byte[], byte[]> r, String name) {
        var h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    @Test
    void shouldKeepTheOriginalRecordAndAddTheErrorContext() {
        RecordHeaders headers = new RecordHeaders();
        headers.add("origin", "test".getBytes(StandardCharsets.UTF_8));
        headers.add(SqloopHeaders.ERROR_REASON, "an earlier life".getBytes(StandardCharsets.UTF_8));
        byte[] key = "k".getBytes(StandardCharsets.UTF_8);
        byte[] value = {0, 1, 2};
        ConsumerRecord<byte[], byte[]> in = new ConsumerRecord<>("execute", 3, 99L, -1L, TimestampType.CREATE_TIME, -1, -1,
                key, value, headers, Optional.empty());
        List<String> reasons = new ArrayList<>();

        ProducerRecord<byte[], byte[]> dead = new DeadLetterReporter("execute", reasons::add)
                .report(in, DeadLetterReporter.PROCESSING_FAILED, new IllegalArgumentException("x".repeat(5000)));

        assertEquals("dlq", dead.topic());
        assertArrayEquals(key, dead.key());
        assertArrayEquals(value, dead.value());
        assertEquals("test", header(dead, "origin"));
        assertEquals(1 + 7, dead.headers().toArray().length, "one original header kept, the old error header replaced by seven");
        assertEquals("execute", header(dead, SqloopHeaders.ERROR_TOPIC));
        assertEquals("3", header(dead, SqloopHeaders.ERROR_PARTITION));
        assertEquals("99", header(dead, SqloopHeaders.ERROR_OFFSET));
        assertEquals("execute", header(dead, SqloopHeaders.ERROR_STAGE));
        assertEquals(DeadLetterReporter.PROCESSING_FAILED, header(dead, SqloopHeaders.ERROR_REASON));
        assertEquals(IllegalArgumentException.class.getName(), header(dead, SqloopHeaders.ERROR_CLASS));
        assertEquals(DeadLetterReporter.MAX_MESSAGE_CHARS + 1, header(dead, SqloopHeaders.ERROR_MESSAGE).length(), "truncated with an ellipsis");
        assertTrue(header(dead, SqloopHeaders.ERROR_MESSAGE).endsWith("…"));
        assertEquals(List.of(DeadLetterReporter.PROCESSING_FAILED), reasons);
        assertTrue(DeadLetterReporter.isDeadLetter(dead));
    }
}
