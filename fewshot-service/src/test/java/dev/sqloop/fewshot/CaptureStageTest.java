package dev.sqloop.fewshot;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.Execution;
import dev.sqloop.common.message.Issue;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.metrics.Metrics;
import dev.sqloop.common.runtime.MicrometerStageMetrics;
import dev.sqloop.common.runtime.Outcome;
import dev.sqloop.store.Embedder;
import dev.sqloop.store.LuceneExampleStore;
import dev.sqloop.store.StoredExample;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CaptureStageTest {
    @TempDir
    Path dir;
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final MicrometerStageMetrics metrics = new MicrometerStageMetrics(registry);

    private double captures() {
        return registry.get(Metrics.FEWSHOT_CAPTURES).counter().count();
    }

    private static QuestionTask success(String question, String sql, long rows) {
        return QuestionTask.create("q", "t", "shop", question, 3, Instant.now()).withSql(sql, null)
                .withExecution(new Execution(List.of("c"), List.of("INTEGER"), rows, List.of(), 1));
    }

    @Test
    void shouldRememberTheErrorTheRepairFixedAfterTheIssuesWereCleared() {
        QuestionTask repaired = QuestionTask.create("q", "t", "shop", "q?", 3, Instant.now()).withSql("SELECT x FROM t", null)
                .withIssues(List.of(Issue.of("execute", ErrorCategory.COLUMN_NOT_FOUND, "column x not found")))
                .nextAttempt("Failed SQL:\nSELECT x FROM t\n\nUse a column that exists.")
                .withSql("SELECT y FROM t", null);
        assertTrue(repaired.issues().isEmpty(), "withSql cleared the issues, as on the success topic");
        assertArrayEquals(new String[] {"column_not_found", "column x not found"}, CaptureStage.previousError(repaired).orElseThrow());

        QuestionTask firstTry = QuestionTask.create("q", "t", "shop", "q?", 3, Instant.now()).withSql("SELECT 1", null);
        assertTrue(CaptureStage.previousError(firstTry).isEmpty(), "a first-attempt success fixed nothing");
    }

    /**
     * Capture stores the vector retrieval left for the same question (no second embedding of it), takes it out whatever
     * it does, and embeds the question itself when none was left for this very text.
     */
    @Test
    void shouldStoreTheVectorRetrievalLeftForTheQuestionAndEmbedOtherwise() {
        try (LuceneExampleStore store = LuceneExampleStore.open(dir)) {
            Embedder embedder = TestModel.embedder();
            QuestionVectors vectors = new QuestionVectors(2);
            float[] left = embedder.embed("a sentence about something else entirely");
            vectors.put("q", "How many orders?", left);
            CaptureStage capture = new CaptureStage(embedder, store, FewshotConfig.defaults(), metrics, Clock.systemUTC(), vectors);
            capture.process(success("How many orders?", "SELECT count(*) FROM orders", 1));
            assertEquals(0, vectors.size(), "taken");
            var hit = store.search("shop", "t", left, 1, -1).getFirst();
            assertEquals("How many orders?", hit.value().question());
            assertEquals(1.0, hit.score(), 1e-4, "stored with the vector retrieval computed");

            vectors.put("q", "How many customers?", left); // the same id, another text: not this question's vector
            capture.process(success("How many orders per nation?", "SELECT 1", 1));
            float[] own = embedder.embed("How many orders per nation?");
            var second = store.search("shop", "t", own, 1, -1).getFirst();
            assertEquals("How many orders per nation?", second.value().question());
            assertEquals(1.0, second.score(), 1e-4, "embedded from its own text");
            assertEquals(0, vectors.size(), "a wrong entry is dropped too");

            for (String id : List.of("a", "b", "c")) vectors.put(id, "q", left);
            assertEquals(2, vectors.size(), "bounded: the oldest goes first");
        }
    }

    @Test
    void shouldCaptureZeroRowSuccessesOnlyWhenConfiguredAndKeepCuratedExamples() {
        try (LuceneExampleStore store = LuceneExampleStore.open(dir)) {
            Embedder embedder = TestModel.embedder();
            CaptureStage strict = new CaptureStage(embedder, store, FewshotConfig.defaults(), metrics, Clock.systemUTC());
            CaptureStage lenient = new CaptureStage(embedder, store, FewshotConfig.defaults().withCaptureRequireRows(false), metrics,
                    Clock.systemUTC());

            strict.process(success("Orders from 1900?", "SELECT * FROM orders WHERE year = 1900", 0));
            assertEquals(0, store.count());
            lenient.process(success("Orders from 1900?", "SELECT * FROM orders WHERE year = 1900", 0));
            assertEquals(1, store.count());

            store.upsert(new StoredExample("shop", "Best sellers", "SELECT curated", "duckdb", StoredExample.MANUAL, null), embedder.embed("Best sellers"));
            strict.process(success("best sellers", "SELECT automatic", 5));
            assertEquals("SELECT curated", store.find("shop", "Best sellers").orElseThrow().sql());
            assertTrue(store.find("shop", "Best sellers", "t").isEmpty(), "a shared curated example is not doubled by a capture");

            store.upsert(new StoredExample("shop", "Top sellers", "SELECT t_curated", "duckdb", StoredExample.MANUAL, null, "t", null, List.of()),
                    embedder.embed("Top sellers"));
            strict.process(success("top sellers", "SELECT automatic", 5));
            assertEquals("SELECT t_curated", store.find("shop", "Top sellers", "t").orElseThrow().sql(), "the tenant's own curated one kept");
            assertEquals(1.0, captures(), "only the one success stored counts, not the kept curated ones nor the zero-row one");
        }
    }

    /** Issue 46: the executor's empty-answer hint and the capture rule agree: one row of NULLs is not captured either. */
    @Test
    void shouldNotCaptureAnEmptyAnswerTheExecutorMarked() {
        try (LuceneExampleStore store = LuceneExampleStore.open(dir)) {
            CaptureStage strict = new CaptureStage(TestModel.embedder(), store, FewshotConfig.defaults(), metrics, Clock.systemUTC());
            QuestionTask nullRow = QuestionTask.create("q", "t", "shop", "What is the average amount in 1900?", 3, Instant.now())
                    .withSql("SELECT avg(amount) FROM orders WHERE year = 1900", null)
                    .withExecution(new Execution(List.of("avg"), List.of("DOUBLE"), 1, List.of(java.util.Arrays.asList((Object) null)), 1));
            assertEquals(new Outcome.Drop("empty answer"), strict.process(nullRow));
            QuestionTask marked = success("Which orders?", "SELECT * FROM orders", 1).withIssues(List.of(Issue.hint("execute",
                    ErrorCategory.JOIN_ERROR, dev.sqloop.common.message.EmptyAnswer.NULL_ROW + " for a question that asks for rows", null)));
            assertEquals(new Outcome.Drop("empty answer"), strict.process(marked));
            assertEquals(0, store.count());
        }
    }

    @Test
    void shouldCaptureTheSameQuestionOncePerTenantWithoutReplacingAnother() {
        try (LuceneExampleStore store = LuceneExampleStore.open(dir)) {
            CaptureStage capture = new CaptureStage(TestModel.embedder(), store, FewshotConfig.defaults(), metrics, Clock.systemUTC());
            for (String tenant : List.of("tenant-a", "tenant-b")) {
                QuestionTask t = QuestionTask.create("q-" + tenant, tenant, "shop", "Which region has the most suppliers?", 3, Instant.now())
                        .withSql("SELECT '" + tenant + "'", null).withExecution(new Execution(List.of("c"), List.of("INTEGER"), 1, List.of(), 1));
                capture.process(t);
            }
            assertEquals(2, store.count(), "two examples, not one overwritten");
            assertEquals(2.0, captures());
            assertEquals("SELECT 'tenant-a'", store.find("shop", "Which region has the most suppliers?", "tenant-a").orElseThrow().sql());
            assertEquals("SELECT 'tenant-b'", store.find("shop", "Which region has the most suppliers?", "tenant-b").orElseThrow().sql());
            assertFalse(store.find("shop", "Which region has the most suppliers?", "tenant-a").orElseThrow().shared());
            assertTrue(store.find("shop", "Which region has the most suppliers?").isEmpty(), "a capture is never shared");
        }
    }

    @Test
    void shouldNotWriteTheSameCaptureAgainButTakeANewAnswer() {
        try (LuceneExampleStore store = LuceneExampleStore.open(dir)) {
            CaptureStage capture = new CaptureStage(TestModel.embedder(), store, FewshotConfig.defaults(), metrics, Clock.systemUTC());
            String q = "How many orders shipped late?";
            Execution rows = new Execution(List.of("c"), List.of("INTEGER"), 1, List.of(), 1);
            QuestionTask first = QuestionTask.create("q-1", "t", "shop", q, 3, Instant.now()).withSql("SELECT count(*) FROM orders", null)
                    .withExecution(rows);
            assertTrue(capture.process(first) instanceof Outcome.Send, "captured and published");
            QuestionTask again = QuestionTask.create("q-2", "t", "shop", q, 3, Instant.now()).withSql("SELECT count(*) FROM orders", null)
                    .withExecution(rows);
            assertEquals(Outcome.drop("already captured"), capture.process(again), "the same answer again: nothing to write or publish");
            assertEquals(1.0, captures());
            QuestionTask changed = QuestionTask.create("q-3", "t", "shop", q, 3, Instant.now())
                    .withSql("SELECT count(*) FROM orders WHERE late", null).withExecution(rows);
            assertTrue(capture.process(changed) instanceof Outcome.Send, "a different answer replaces the capture");
            assertEquals(2.0, captures());
            assertEquals("SELECT count(*) FROM orders WHERE late", store.find("shop", q, "t").orElseThrow().sql());
            assertEquals(1, store.count());
        }
    }

    /**
     * A repair fixing a mistake already learnt (same error, same fixed SQL) is not embedded nor written again: the
     * stored pair stays the first one learnt, with its question.
     */
    @Test
    void shouldLearnTheSameErrorFixOnce() {
        try (LuceneExampleStore store = LuceneExampleStore.open(dir)) {
            Embedder embedder = TestModel.embedder();
            CaptureStage capture = new CaptureStage(embedder, store, FewshotConfig.defaults(), metrics, Clock.systemUTC());
            String error = "column ordr_id not found";
            capture.process(repaired("q-1", "How many orders?", error, "SELECT count(order_id) FROM orders"));
            capture.process(repaired("q-2", "Number of orders?", error, "SELECT count(order_id) FROM orders"));
            assertEquals(1, store.countFixes());
            var fixes = store.searchFixes("shop", embedder.embed(error), 3, 0.5);
            assertEquals("How many orders?", fixes.getFirst().value().question(), "the pair learnt first, not rewritten");
            assertEquals(2, store.count(), "both questions captured");

            capture.process(repaired("q-3", "Count the orders", error, "SELECT count(*) FROM orders"));
            assertEquals(2, store.countFixes(), "the same error fixed another way is a new pair");
            assertTrue(store.hasFix("shop", error, "SELECT count(*) FROM orders"));
        }
    }

    /** A question submitted with capture off (as eval submits every one) leaves the memory as it was: no example, no fix. */
    @Test
    void shouldCaptureNothingOfAQuestionSubmittedWithCaptureOff() {
        try (LuceneExampleStore store = LuceneExampleStore.open(dir)) {
            CaptureStage capture = new CaptureStage(TestModel.embedder(), store, FewshotConfig.defaults(), metrics, Clock.systemUTC());
            Outcome off = capture.process(repaired("q-1", "How many orders?", "column ordr_id not found", "SELECT count(order_id) FROM orders")
                    .withCapture(false));
            assertEquals(0, store.count(), "no example: " + off);
            assertEquals(0, store.countFixes(), "no error->fix pair");
            var counted = registry.find(Metrics.FEWSHOT_CAPTURES).counter();
            assertTrue(counted == null || counted.count() == 0, "no capture counted");
            capture.process(repaired("q-2", "How many orders?", "column ordr_id not found", "SELECT count(order_id) FROM orders")
                    .withCapture(true));
            assertEquals(1, store.count(), "capture on (the default) stores it");
            assertEquals(1, store.countFixes());
        }
    }

    private static QuestionTask repaired(String id, String question, String error, String fixed) {
        return QuestionTask.create(id, "t", "shop", question, 3, Instant.now()).withSql("SELECT count(ordr_id) FROM orders", null)
                .withIssues(List.of(Issue.of("execute", ErrorCategory.COLUMN_NOT_FOUND, error)))
                .nextAttempt("Failed SQL:\nSELECT count(ordr_id) FROM orders").withSql(fixed, null)
                .withExecution(new Execution(List.of("c"), List.of("INTEGER"), 1, List.of(), 1));
    }
}
