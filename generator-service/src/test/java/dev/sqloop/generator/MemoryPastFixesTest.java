package dev.sqloop.generator;

import dev.sqloop.testkit.TestDirs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.Issue;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.store.Embedder;
import dev.sqloop.store.ErrorFixMemory;
import dev.sqloop.store.ErrorFix;
import dev.sqloop.store.LuceneExampleStore;
import java.nio.file.Files;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Similar past fixes from a real store and the real embedding model, into the correction prompt. */
class MemoryPastFixesTest {

    @Test
    void shouldPutASimilarPastFixIntoTheCorrectionPrompt() throws Exception {
        Embedder embedder = new Embedder();
        try (LuceneExampleStore store = LuceneExampleStore.open(TestDirs.create("fixes"))) {
            String error = "Binder Error: Referenced column \"categry\" not found in FROM clause! Candidate bindings: \"category\"";
            store.upsertFix(new ErrorFix("shop", error, "column_not_found", "SELECT categry FROM products",
                    "SELECT category FROM products", "duckdb", "Which categories exist?", Instant.now()), embedder.embed(error));
            store.upsertFix(new ErrorFix("other", error, "column_not_found", "SELECT x", "SELECT y", "duckdb", "q", Instant.now()),
                    embedder.embed(error));
            ErrorFixMemory memory = new ErrorFixMemory(embedder, store, 0.5);
            MemoryPastFixes fixes = new MemoryPastFixes(memory);

            Issue now = new Issue("execute", ErrorCategory.COLUMN_NOT_FOUND,
                    "Binder Error: Referenced column \"categori\" not found in FROM clause! Candidate bindings: \"category\"", "categori", List.of("category"));
            List<PastFixes.PastFix> found = fixes.similar("shop", Dialect.DUCKDB, now);
            assertEquals(1, found.size(), "the similar fix of this datasource only: " + found);
            assertEquals("SELECT category FROM products", found.getFirst().fixedSql());
            assertTrue(fixes.similar("shop", Dialect.DUCKDB, Issue.of("execute", ErrorCategory.TIMEOUT, "query exceeded 30 s")).isEmpty(),
                    "an unrelated error finds nothing above the threshold");
            assertEquals(2, memory.embedded());
            assertEquals(found, fixes.similar("shop", Dialect.DUCKDB, now), "the same error again: the same fixes");
            assertEquals(2, memory.embedded(), "and its vector from the cache, not the model");

            QuestionTask failed = QuestionTask.create("q", "t", "shop", "List the product categories", 3, Instant.now())
                    .withSql("SELECT categori FROM products", null).withIssues(List.of(now));
            String prompt = new CorrectionPromptBuilder(ErrorPatternRegistry.load(), fixes, CorrectionPromptBuilder.Evidence.INCLUDED)
                    .build(failed, Dialect.DUCKDB);
            assertTrue(prompt.contains("SELECT category FROM products"), "the past fix is in the prompt:\n" + prompt);
        }
    }
}
