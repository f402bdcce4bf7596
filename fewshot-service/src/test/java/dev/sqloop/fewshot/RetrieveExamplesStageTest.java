package dev.sqloop.fewshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.message.Example;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.metrics.Metrics;
import dev.sqloop.common.runtime.MicrometerStageMetrics;
import dev.sqloop.common.runtime.Outcome;
import dev.sqloop.fewshot.schema.SchemaLinker;
import dev.sqloop.store.Embedder;
import dev.sqloop.store.LuceneExampleStore;
import dev.sqloop.store.StoredExample;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The stage as a function, with the real model and store; the schema source is unreachable on purpose. */
class RetrieveExamplesStageTest {
    @TempDir
    Path dir;
    LuceneExampleStore store;
    final Embedder embedder = TestModel.embedder();
    final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    final SchemaLinker unreachable = new SchemaLinker(ds -> {
        throw new SQLException("connection refused");
    }, embedder, SchemaLinker.Settings.DEFAULTS, Clock.systemUTC());

    @BeforeEach
    void open() {
        store = LuceneExampleStore.open(dir);
        List<String> questions = List.of("How many orders were shipped in 2024?", "How many orders were shipped in 2024 ?!",
                "Number of orders shipped during 2024", "Which products are toys?");
        List<String> sqls = List.of("SELECT count(*) FROM orders WHERE status='shipped' AND year=2024",
                "SELECT count(*) FROM orders WHERE status='shipped' AND year=2024",
                "SELECT COUNT(*) FROM orders WHERE year = 2024 AND status = 'shipped'",
                "SELECT * FROM products WHERE category='toys'");
        for (int i = 0; i < questions.size(); i++) {
            store.upsert(new StoredExample("shop", questions.get(i), sqls.get(i), "duckdb", "seed", null), embedder.embed(questions.get(i)));
        }
    }

    @AfterEach
    void close() {
        store.close();
    }

    private Outcome.Send run(FewshotConfig config, String question) throws Exception {
        return run(config, "t", question);
    }

    private Outcome.Send run(FewshotConfig config, String tenant, String question) throws Exception {
        RetrieveExamplesStage stage = new RetrieveExamplesStage(embedder, store, unreachable, new ConstraintExtractor(), config, new MicrometerStageMetrics(registry));
        QuestionTask task = QuestionTask.create("q1", tenant, "shop", question, 3, Instant.now());
        return (Outcome.Send) stage.process(task);
    }

    @Test
    void shouldDropNearDuplicatesAndForwardWithoutSchemaWhenTheSchemaIsUnreachable() throws Exception {
        Outcome.Send out = run(FewshotConfig.defaults(), "Count the orders shipped in 2024");
        assertEquals(Topics.GENERATE.name(), out.emissions().getFirst().topic());
        QuestionTask task = (QuestionTask) out.emissions().getFirst().message();
        List<String> sqls = task.examples().stream().map(Example::sql).toList();
        assertEquals(sqls.stream().distinct().toList(), sqls, "normalized-identical SQL appears once: " + sqls);
        assertTrue(sqls.size() >= 2, "the differently written SQL is kept: " + sqls);
        assertTrue(task.linkedSchema().tables().isEmpty());
        assertEquals("count", task.constraints().aggregation());
        assertTrue(task.timings().containsKey(RetrieveExamplesStage.NAME));
        String scrape = registry.scrape();
        for (String line : List.of("sqloop_fewshot_retrieval_duration_seconds_count 1", "sqloop_fewshot_retrieval_duration_seconds_bucket{le=\"5.0\"} 1",
                "sqloop_fewshot_hits_count 1", "sqloop_fewshot_hits_sum " + sqls.size())) {
            assertTrue(scrape.contains(line), () -> "missing " + line + " in\n" + scrape);
        }
    }

    @Test
    void shouldShortcutOnSimilarityOnlyWhenConfigured() throws Exception {
        String paraphrase = "Number of orders that were shipped in 2024";
        Outcome.Send off = run(FewshotConfig.defaults(), paraphrase);
        assertEquals(Topics.GENERATE.name(), off.emissions().getFirst().topic(), "similarity shortcut is off by default");

        Outcome.Send on = run(FewshotConfig.defaults().withShortcut(false, 0.9), paraphrase);
        assertEquals("shortcut", on.kind());
        assertEquals(Topics.STATIC_VALIDATE.name(), on.emissions().getFirst().topic());
        assertTrue(((QuestionTask) on.emissions().getFirst().message()).sql().contains("shipped"));
        assertEquals(1.0, registry.get(RetrieveExamplesStage.SHORTCUTS).tags("kind", "similar").counter().count());

        Outcome.Send exactOff = run(FewshotConfig.defaults().withShortcut(false, 2.0), "Which products are toys?");
        assertEquals(Topics.GENERATE.name(), exactOff.emissions().getFirst().topic(), "exact shortcut can be switched off");
        assertNull(((QuestionTask) exactOff.emissions().getFirst().message()).sql());
        assertEquals(3, registry.get(Metrics.FEWSHOT_RETRIEVAL_DURATION).timer().count(), "every question is retrieved for");
        assertEquals(2, registry.get(Metrics.FEWSHOT_HITS).summary().count(), "only the questions that reach a prompt count hits");
    }

    private void own(String tenant, String question, String sql, String source) {
        store.upsert(new StoredExample("shop", question, sql, "duckdb", source, null, tenant, null, List.of()), embedder.embed(question));
    }

    @Test
    void shouldNeverServeAnotherTenantsExampleInThePromptOrTheShortcut() throws Exception {
        String question = "Which region has the most suppliers?";
        own("tenant-b", question, "SELECT r_name, count(*) AS suppliers FROM supplier GROUP BY 1 ORDER BY 2 DESC LIMIT 1", StoredExample.AUTO);
        own("tenant-a", question, "SELECT 'ANTARCTICA' AS r_name, 999 AS suppliers", StoredExample.MANUAL);
        FewshotConfig similar = FewshotConfig.defaults().withShortcut(true, 0.5);

        Outcome.Send forB = run(similar, "tenant-b", question);
        assertEquals(Topics.STATIC_VALIDATE.name(), forB.emissions().getFirst().topic(), "b's own capture answers b's repeat question");
        QuestionTask b = (QuestionTask) forB.emissions().getFirst().message();
        assertTrue(b.sql().contains("FROM supplier"), b.sql());
        assertTrue(b.examples().stream().noneMatch(e -> e.sql().contains("ANTARCTICA")), "a's example is not in b's prompt: " + b.examples());

        QuestionTask c = (QuestionTask) run(similar, "tenant-c", question).emissions().getFirst().message();
        assertNull(c.sql(), "nothing of a's or b's answers tenant-c");
        assertTrue(c.examples().stream().noneMatch(e -> e.sql().contains("ANTARCTICA") || e.sql().contains("FROM supplier")), c.examples().toString());

        QuestionTask a = (QuestionTask) run(similar, "tenant-a", "which region has the most suppliers").emissions().getFirst().message();
        assertTrue(a.sql().contains("ANTARCTICA"), "a's own example answers a");
    }

    @Test
    void shouldPreferACuratedAnswerToTheTenantsOwnCapture() throws Exception {
        String question = "Which products are toys?"; // seeded (shared) in open()
        own("t", question, "SELECT name FROM products WHERE category = 'toy'", StoredExample.AUTO);
        QuestionTask shared = (QuestionTask) run(FewshotConfig.defaults(), question).emissions().getFirst().message();
        assertEquals("SELECT * FROM products WHERE category='toys'", shared.sql(), "the shared seed before the own capture");
        own("t", question, "SELECT name FROM products WHERE category = 'toys' ORDER BY name", StoredExample.MANUAL);
        QuestionTask mine = (QuestionTask) run(FewshotConfig.defaults(), question).emissions().getFirst().message();
        assertEquals("SELECT name FROM products WHERE category = 'toys' ORDER BY name", mine.sql(), "the tenant's own curated one first");
    }
}
