package dev.sqloop.fewshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.store.Embedder;
import dev.sqloop.store.LuceneExampleStore;
import dev.sqloop.store.Scored;
import dev.sqloop.store.StoredExample;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * With the real all-MiniLM-L6-v2 model, in both of its builds (float and int8, {@code SQLOOP_EMBEDDING_MODEL}): a
 * paraphrase finds its twin before any unrelated stored question.
 */
class ParaphraseRetrievalTest {
    /** Ten labelled pairs: the stored question and a paraphrase a user might ask. */
    static final String[][] PAIRS = {
            {"How many orders were placed last month?", "What is the number of orders from the previous month?"},
            {"Which customers live in Berlin?", "List the clients based in Berlin"},
            {"What is the average salary of engineers?", "Mean pay of the engineering staff"},
            {"Top 5 products by revenue", "Which five products earned the most money?"},
            {"How many flights leave Boston every day?", "Daily number of departures from Boston airport"},
            {"Which authors wrote the most papers?", "Writers with the highest publication count"},
            {"What restaurants serve Italian food in San Francisco?", "Italian places to eat in SF"},
            {"Total sales per region in 2024", "Sum of 2024 revenue broken down by region"},
            {"Which employees were hired after 2020?", "Staff who joined the company since 2021"},
            {"What is the cheapest car for sale?", "Lowest priced vehicle available"}};

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(Embedder.Model.class)
    void shouldRetrieveEachParaphraseTwinFirstAndAboveUnrelatedQuestions(Embedder.Model model) {
        Embedder embedder = TestModel.embedder(model);
        try (LuceneExampleStore store = LuceneExampleStore.open(dir)) {
            List<StoredExample> stored = new ArrayList<>();
            for (int i = 0; i < PAIRS.length; i++) stored.add(new StoredExample("ds", PAIRS[i][0], "SELECT " + i, "duckdb", "seed", null));
            store.upsertAll(stored, embedder.embedAll(stored.stream().map(StoredExample::question).toList()));

            List<String> misses = new ArrayList<>();
            for (int i = 0; i < PAIRS.length; i++) {
                List<Scored<StoredExample>> hits = store.search("ds", embedder.embed(PAIRS[i][1]), 3, -1);
                if (!hits.getFirst().value().sql().equals("SELECT " + i)) {
                    misses.add(PAIRS[i][1] + " → " + hits.getFirst().value().question());
                }
                if (hits.size() > 1) {
                    assertTrue(hits.get(0).score() > hits.get(1).score(), "twin above the rest for " + PAIRS[i][1]);
                }
            }
            assertEquals(List.of(), misses, "every paraphrase retrieves its twin first");
        }
    }

    @ParameterizedTest
    @EnumSource(Embedder.Model.class)
    void shouldScoreParaphrasesAboveTheDefaultThresholdAndUnrelatedQuestionsBelowIt(Embedder.Model model) {
        Embedder embedder = TestModel.embedder(model);
        double threshold = FewshotConfig.defaults().minScore();
        int above = 0;
        for (String[] pair : PAIRS) {
            if (Embedder.cosine(embedder.embed(pair[0]), embedder.embed(pair[1])) >= threshold) above++;
        }
        assertTrue(above >= 8, above + " of 10 paraphrases reach the threshold " + threshold);
        double unrelated = Embedder.cosine(embedder.embed(PAIRS[0][0]), embedder.embed(PAIRS[6][0]));
        assertTrue(unrelated < threshold, "orders vs Italian restaurants: " + unrelated);
    }

    /** The int8 build's vectors point where the float build's do: a store written with one still answers the other. */
    @Test
    void shouldGiveNearlyTheSameVectorsInBothBuilds() {
        Embedder full = TestModel.embedder(Embedder.Model.ALL_MINILM_L6_V2), quantized = TestModel.embedder(Embedder.Model.ALL_MINILM_L6_V2_Q);
        for (String[] pair : PAIRS) {
            for (String text : pair) {
                double c = Embedder.cosine(full.embed(text), quantized.embed(text));
                assertTrue(c > 0.97 && c < 1.0, "the same text in both builds: cosine " + c + " for " + text);
            }
        }
    }
}
