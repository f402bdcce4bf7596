package dev.sqloop.fewshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Topics;
import dev.sqloop.common.message.ExampleCommand;
import dev.sqloop.common.message.ExampleRecord;
import dev.sqloop.common.message.FeedbackCommand;
import dev.sqloop.common.message.Tombstone;
import dev.sqloop.common.runtime.Outcome;
import dev.sqloop.store.LuceneExampleStore;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Curator commands change the store and publish the change on {@code examples}, with the real model and store. */
class ExampleCommandStageTest {
    @TempDir
    Path dir;

    private static ExampleCommand command(String action, String question, String sql) {
        return new ExampleCommand(0, Questions.exampleId("shop", question).toString(), action, "acme", "shop", question, sql,
                "postgres", "note", List.of("kpi"), Instant.now());
    }

    @Test
    void shouldStoreAndPublishAnUpsertThenTombstoneADeleteEvenWhenRedelivered() throws Exception {
        try (LuceneExampleStore store = LuceneExampleStore.open(dir)) {
            ExampleCommandStage stage = new ExampleCommandStage(TestModel.embedder(), store, FewshotConfig.defaults(), Clock.systemUTC());
            store.markWrong("shop", "How many orders?");

            Outcome.Send up = assertInstanceOf(Outcome.Send.class, stage.process(command("upsert", "How many orders?", "SELECT count(*) FROM orders")));
            assertEquals(Topics.EXAMPLES.name(), up.emissions().getFirst().topic());
            ExampleRecord published = assertInstanceOf(ExampleRecord.class, up.emissions().getFirst().message());
            assertEquals(Questions.exampleId("shop", "how many orders").toString(), published.id());
            assertEquals(List.of("manual", "acme", "postgres", "note", List.of("kpi")),
                    List.of(published.source(), published.tenant(), published.dialect(), published.notes(), published.tags()));
            assertEquals("SELECT count(*) FROM orders", store.find("shop", "How many orders?").orElseThrow().sql());
            assertTrue(!store.isMarkedWrong("shop", "How many orders?"), "a curator's example lifts the wrong mark");

            for (int delivery = 1; delivery <= 2; delivery++) {
                Outcome.Send del = assertInstanceOf(Outcome.Send.class, stage.process(command("delete", "How many orders?", null)));
                Tombstone t = assertInstanceOf(Tombstone.class, del.emissions().getFirst().message(), "delivery " + delivery);
                assertEquals(published.id(), t.key());
            }
            assertTrue(store.find("shop", "How many orders?").isEmpty());
        }
    }

    @Test
    void shouldRefuseACommandWhoseIdIsNotItsQuestions() throws Exception {
        try (LuceneExampleStore store = LuceneExampleStore.open(dir)) {
            ExampleCommandStage stage = new ExampleCommandStage(TestModel.embedder(), store, FewshotConfig.defaults(), Clock.systemUTC());
            ExampleCommand forged = new ExampleCommand(0, "not-the-id", "upsert", "acme", "shop", "q", "SELECT 1", null, null, null, Instant.now());
            assertInstanceOf(Outcome.Drop.class, stage.process(forged));
            assertEquals(0, store.count());
        }
    }

    @Test
    void shouldPublishFeedbackSavesAndTombstoneUnsavesAndWrongMarks() throws Exception {
        try (LuceneExampleStore store = LuceneExampleStore.open(dir)) {
            FeedbackStage stage = new FeedbackStage(TestModel.embedder(), store, FewshotConfig.defaults(), Clock.systemUTC());
            Outcome.Send saved = assertInstanceOf(Outcome.Send.class, stage.process(
                    new FeedbackCommand(0, "q1", "save", "acme", "shop", "Best sellers?", "SELECT 1", "postgres", Instant.now())));
            ExampleRecord published = assertInstanceOf(ExampleRecord.class, saved.emissions().getFirst().message());
            assertEquals("acme", published.tenant());
            assertEquals("postgres", published.dialect(), "the datasource's dialect, not the service default");
            assertEquals("postgres", store.find("shop", "Best sellers?").orElseThrow().dialect());
            for (String action : List.of("unsave", "mark-wrong")) {
                Outcome.Send gone = assertInstanceOf(Outcome.Send.class, stage.process(
                        new FeedbackCommand(0, "q1", action, "acme", "shop", "Best sellers?", null, null, Instant.now())));
                assertInstanceOf(Tombstone.class, gone.emissions().getFirst().message(), action);
            }
            assertNull(store.find("shop", "Best sellers?").orElse(null));
        }
    }
}
