package dev.sqloop.common.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.SqloopHeaders;
import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.message.QuestionTask;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

class OutgoingRecordsTest {
    private static final String PARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

    private static String header(ProducerRecord<byte[], byte[]> r, String name) {
        var h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    private static QuestionTask task() {
        return QuestionTask.create("q1", "acme", "demo", "how many?", 3, Instant.EPOCH);
    }

    @Test
    void shouldStartANewTraceForAFreshRecord() {
        ProducerRecord<byte[], byte[]> r = OutgoingRecords.fresh(Topics.RETRIEVE_EXAMPLES, task());
        assertEquals("retrieve-examples", r.topic());
        assertEquals("q1", new String(r.key(), StandardCharsets.UTF_8));
        assertEquals("1", header(r, SqloopHeaders.ATTEMPT));
        assertEquals("acme", header(r, SqloopHeaders.TENANT));
        assertTrue(header(r, SqloopHeaders.TRACEPARENT).matches("00-[0-9a-f]{32}-[0-9a-f]{16}-01"));
    }

    @Test
    void shouldContinueACallersTraceOnAFreshRecordAndLogItsIds() {
        ProducerRecord<byte[], byte[]> r = OutgoingRecords.fresh(Topics.RETRIEVE_EXAMPLES, task(), PARENT);
        assertEquals(PARENT.substring(0, 36), header(r, SqloopHeaders.TRACEPARENT).substring(0, 36), "the HTTP caller's trace id");
        var consumed = new org.apache.kafka.clients.consumer.ConsumerRecord<>("retrieve-examples", 0, 0L, r.key(), r.value());
        r.headers().forEach(h -> consumed.headers().add(h));
        assertEquals("q=q1 trace=0af7651916cd43dd8448eb211c80319c ", StageRunner.logContext(consumed));
        assertEquals("", StageRunner.logContext(new org.apache.kafka.clients.consumer.ConsumerRecord<>("t", 0, 0L, null, null)));
        assertNull(TraceParent.traceId("00-bad-trace-01"));
    }

    @Test
    void shouldContinueTheTraceAndKeepIncomingHeadersButNotThisHopsOwn() {
        Map<String, String> incoming = Map.of(SqloopHeaders.TRACEPARENT, PARENT, "custom", "kept",
                SqloopHeaders.ERROR_REASON, "old", SqloopHeaders.PREVIOUS_SQL, "SELECT 0", SqloopHeaders.ATTEMPT, "7");
        ProducerRecord<byte[], byte[]> r = OutgoingRecords.record("generate", task(), incoming);
        String trace = header(r, SqloopHeaders.TRACEPARENT);
        assertEquals(PARENT.substring(0, 36), trace.substring(0, 36), "same trace id");
        assertNotEquals(PARENT, trace, "new span id");
        assertEquals("kept", header(r, "custom"));
        assertNull(header(r, SqloopHeaders.ERROR_REASON), "error headers describe one dead letter only");
        assertNull(header(r, SqloopHeaders.PREVIOUS_SQL), "the message says whether it has a previous SQL");
        assertEquals("1", header(r, SqloopHeaders.ATTEMPT), "the message's own headers win");
    }

    @Test
    void shouldProduceATombstoneWithANullValueAndNothingForADrop() {
        List<ProducerRecord<byte[], byte[]>> out = OutgoingRecords.of(Outcome.tombstone("deleted", Topics.EXAMPLES, "ex-1"), Map.of());
        assertEquals(1, out.size());
        assertEquals("examples", out.getFirst().topic());
        assertNull(out.getFirst().value());
        assertEquals(List.of(), OutgoingRecords.of(Outcome.drop("dup"), Map.of()));
    }
}
