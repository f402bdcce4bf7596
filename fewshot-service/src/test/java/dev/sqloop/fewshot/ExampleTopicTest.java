package dev.sqloop.fewshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.message.ExampleRecord;
import dev.sqloop.common.runtime.Outcome;
import dev.sqloop.store.StoredExample;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** An example's provenance (the batch and question it was captured from) lives on the topic and survives a sync. */
class ExampleTopicTest {
    private static StoredExample stored(String source) {
        return new StoredExample("shop", "How many orders?", "SELECT count(*) FROM orders", "duckdb", source,
                Instant.parse("2026-01-01T00:00:00Z"), "t", null, List.of(), false);
    }

    @Test
    void shouldPublishACaptureWithItsBatchAndQuestion() {
        Outcome.Send send = ExampleTopic.captured("captured", stored(StoredExample.AUTO), "batch-1", "q-1");
        ExampleRecord r = (ExampleRecord) send.emissions().getFirst().message();
        assertEquals("batch-1", r.batchId());
        assertEquals("q-1", r.questionId());
        assertEquals(ExampleTopic.recordOf(stored(StoredExample.AUTO)).id(), r.id(), "the same example, with its provenance");
    }

    @Test
    void shouldKeepTheTopicsProvenanceOfACaptureWhenSyncingFromTheStore() {
        ExampleRecord fromStore = ExampleTopic.recordOf(stored(StoredExample.AUTO));
        byte[] onTopic = JsonCodec.encode(fromStore.capturedFrom("batch-1", "q-1"));
        ExampleRecord synced = ExampleTopic.withProvenance(fromStore, onTopic);
        assertEquals("batch-1", synced.batchId(), "the store keeps none: the sync must not republish the capture without it");
        assertEquals(new String(onTopic, java.nio.charset.StandardCharsets.UTF_8),
                new String(JsonCodec.encode(synced), java.nio.charset.StandardCharsets.UTF_8), "so nothing is republished");

        ExampleRecord saved = ExampleTopic.recordOf(stored(StoredExample.MANUAL));
        assertNull(ExampleTopic.withProvenance(saved, onTopic).batchId(), "a saved example was captured from nothing");
        assertNull(ExampleTopic.withProvenance(fromStore, null).batchId());
    }
}
