package dev.sqloop.fewshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.message.ExampleCommand;
import dev.sqloop.common.message.ExampleRecord;
import dev.sqloop.common.message.FeedbackCommand;
import dev.sqloop.common.message.Tombstone;
import dev.sqloop.common.runtime.Outcome;
import dev.sqloop.store.LuceneExampleStore;
import dev.sqloop.store.StoredExample;
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
        return new ExampleCommand(0, Questions.exampleId("shop", question, "acme").toString(), action, "acme", "shop", question, sql,
                "postgres", "note", List.of("kpi"), Instant.now());
    }

    @Test
    void shouldStoreAndPublishAnUpsertThenTombstoneADeleteEvenWhenRedelivered() throws Exception {
        try (LuceneExampleStore store = LuceneExampleStore.open(dir)) {
            ExampleCommandStage stage = new ExampleCommandStage(TestModel.embedder(), store, FewshotConfig.defaults(), Clock.systemUTC());
            store.markWrong("shop", "How many orders?", "acme");

            Outcome.Send up = assertInstanceOf(Outcome.Send.class, stage.process(command("upsert", "How many orders?", "SELECT count(*) FROM orders")));
            assertEquals(Topics.EXAMPLES.name(), up.emissions().getFirst().topic());
            ExampleRecord published = assertInstanceOf(ExampleRecord.class, up.emissions().getFirst().message());
            assertEquals(Questions.exampleId("shop", "how many orders", "acme").toString(), published.id(), "acme's own example");
            assertFalse(published.shared());
            assertEquals(List.of("manual", "acme", "postgres", "note", List.of("kpi")),
                    List.of(published.source(), published.tenant(), published.dialect(), published.notes(), published.tags()));
            assertEquals("SELECT count(*) FROM orders", store.find("shop", "How many orders?", "acme").orElseThrow().sql());
            assertTrue(store.find("shop", "How many orders?").isEmpty(), "not shared");
            assertTrue(!store.isMarkedWrong("shop", "How many orders?", "acme"), "a curator's example lifts the wrong mark");

            for (int delivery = 1; delivery <= 2; delivery++) {
                Outcome.Send del = assertInstanceOf(Outcome.Send.class, stage.process(command("delete", "How many orders?", null)));
                Tombstone t = assertInstanceOf(Tombstone.class, del.emissions().getFirst().message(), "delivery " + delivery);
                assertEquals(published.id(), t.key());
            }
            assertTrue(store.find("shop", "How many orders?", "acme").isEmpty());
        }
    }

    @Test
    void shouldStoreASharedExampleUnderTheSharedIdAndKeepItsCurator() throws Exception {
        try (LuceneExampleStore store = LuceneExampleStore.open(dir)) {
            ExampleCommandStage stage = new ExampleCommandStage(TestModel.embedder(), store, FewshotConfig.defaults(), Clock.systemUTC());
            ExampleCommand share = new ExampleCommand(0, Questions.exampleId("shop", "Top customers?").toString(), "upsert", "data-team",
                    "shop", "Top customers?", "SELECT name FROM customers LIMIT 5", null, null, null, Instant.now(), null, true);
            ExampleRecord published = assertInstanceOf(ExampleRecord.class,
                    assertInstanceOf(Outcome.Send.class, stage.process(share)).emissions().getFirst().message());
            assertTrue(published.shared());
            assertEquals("data-team", published.tenant());
            assertTrue(store.find("shop", "Top customers?").orElseThrow().shared());
            ExampleCommand forged = new ExampleCommand(0, Questions.exampleId("shop", "Top customers?").toString(), "upsert", "acme",
                    "shop", "Top customers?", "SELECT 'mine'", null, null, null, Instant.now(), "acme", false);
            assertInstanceOf(Outcome.Drop.class, stage.process(forged), "the shared id with an owner's command");
            assertEquals("SELECT name FROM customers LIMIT 5", store.find("shop", "Top customers?").orElseThrow().sql());
        }
    }

    @Test
    void shouldRefuseAnExampleCommandWhoseSqlIsNotOneReadOnlyQuery() throws Exception {
        try (LuceneExampleStore store = LuceneExampleStore.open(dir)) {
            ExampleCommandStage stage = new ExampleCommandStage(TestModel.embedder(), store, FewshotConfig.defaults(), Clock.systemUTC());
            // the outside probe's example (the engine ends a -- comment at \r) and others the parser refuses in postgres
            for (String sql : List.of("DELETE FROM orders; DROP TABLE customer", "SELECT 1 --\r; DROP TABLE orders",
                    "WITH d AS (DELETE FROM orders RETURNING *) SELECT * FROM d", "SELECT pg_read_file('/etc/passwd')")) {
                Outcome refused = stage.process(command("upsert", "Drop it", sql));
                assertTrue(assertInstanceOf(Outcome.Drop.class, refused).reason().contains("read-only"), refused.toString());
            }
            ExampleCommand unknownDialect = new ExampleCommand(0, Questions.exampleId("shop", "q", "acme").toString(), "upsert", "acme",
                    "shop", "q", "SELECT 1", "cobol", null, null, Instant.now());
            assertInstanceOf(Outcome.Drop.class, stage.process(unknownDialect), "SQL of a dialect it cannot parse is not stored");
            assertEquals(0, store.count());
            assertInstanceOf(Outcome.Send.class, stage.process(command("upsert", "Orders", "SELECT count(*) FROM orders")), "a query is");
        }
    }

    @Test
    void shouldRefuseAFeedbackSaveWhoseSqlIsNotOneReadOnlyQuery() throws Exception {
        try (LuceneExampleStore store = LuceneExampleStore.open(dir)) {
            FeedbackStage stage = new FeedbackStage(TestModel.embedder(), store, FewshotConfig.defaults(), Clock.systemUTC());
            for (String sql : List.of("DELETE FROM orders; DROP TABLE customer", "SELECT 1; DROP TABLE customer", "INSERT INTO t SELECT 1",
                    "SELECT 1 --\r; DROP TABLE orders", "SELECT * FROM read_csv('/etc/passwd')",
                    "   ", "SELECT " + "1".repeat(ExampleChecks.MAX_SQL_CHARS))) {
                Outcome out = stage.process(new FeedbackCommand(0, "q1", "save", "acme", "shop", "Best sellers?", sql, "duckdb", Instant.now()));
                assertInstanceOf(Outcome.Drop.class, out, sql.length() > 60 ? "oversized" : sql);
            }
            assertEquals(0, store.count(), "nothing stored");
        }
    }

    @Test
    void shouldChangeOnlyTheAskingTenantsOwnExampleOnFeedback() throws Exception {
        try (LuceneExampleStore store = LuceneExampleStore.open(dir)) {
            FeedbackStage stage = new FeedbackStage(TestModel.embedder(), store, FewshotConfig.defaults(), Clock.systemUTC());
            stage.process(new FeedbackCommand(0, "q1", "save", "tenant-b", "shop", "Best sellers?", "SELECT 'b'", null, Instant.now()));
            store.upsert(new StoredExample("shop", "Best sellers?", "SELECT 'seed'", "duckdb", StoredExample.SEED, null), TestModel.embedder().embed("Best sellers?"));
            for (String action : List.of("save", "unsave", "mark-wrong")) {
                stage.process(new FeedbackCommand(0, "q2", action, "tenant-a", "shop", "Best sellers?", "SELECT 'a'", null, Instant.now()));
            }
            assertEquals("SELECT 'b'", store.find("shop", "Best sellers?", "tenant-b").orElseThrow().sql(), "tenant-b's untouched");
            assertEquals("SELECT 'seed'", store.find("shop", "Best sellers?").orElseThrow().sql(), "the shared one untouched");
            assertTrue(store.isMarkedWrong("shop", "Best sellers?", "tenant-a"));
            assertFalse(store.isMarkedWrong("shop", "Best sellers?", "tenant-b"));
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
            assertEquals("postgres", store.find("shop", "Best sellers?", "acme").orElseThrow().dialect());
            for (String action : List.of("unsave", "mark-wrong")) {
                Outcome.Send gone = assertInstanceOf(Outcome.Send.class, stage.process(
                        new FeedbackCommand(0, "q1", action, "acme", "shop", "Best sellers?", null, null, Instant.now())));
                assertInstanceOf(Tombstone.class, gone.emissions().getFirst().message(), action);
            }
            assertNull(store.find("shop", "Best sellers?", "acme").orElse(null));
        }
    }
}
