package dev.sqloop.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The real all-MiniLM-L6-v2 model, in process. */
class EmbedderTest {
    private static final List<String> SENTENCES = List.of("How many orders were shipped in 2023?",
            "Top 5 customers by revenue", "Quelle est la moyenne des prix par région ?", "column \"o_totalprice\" does not exist");

    @Test
    void theSingleThreadSessionGivesTheStockModelsVectors() {
        Embedder ours = new Embedder(Embedder.Model.ALL_MINILM_L6_V2);
        Embedder stock = new Embedder(Embedder.Model.ALL_MINILM_L6_V2, 0);
        for (String s : SENTENCES) {
            float[] a = ours.embed(s);
            float[] b = stock.embed(s);
            assertEquals(Embedder.DIMENSION, a.length);
            for (int i = 0; i < a.length; i++) assertEquals(b[i], a[i], 1e-6, "dimension " + i + " of [" + s + "]");
        }
        List<float[]> all = ours.embedAll(SENTENCES);
        for (int i = 0; i < SENTENCES.size(); i++) assertArrayEquals(ours.embed(SENTENCES.get(i)), all.get(i), 1e-6f);
    }

    /** The int8 build on sqloop's session gives langchain4j's own quantized model's vectors. */
    @Test
    void theQuantizedBuildGivesTheStockQuantizedModelsVectors() {
        Embedder ours = new Embedder(Embedder.Model.ALL_MINILM_L6_V2_Q);
        var stock = new dev.langchain4j.model.embedding.onnx.allminilml6v2q.AllMiniLmL6V2QuantizedEmbeddingModel();
        assertEquals(Embedder.Model.ALL_MINILM_L6_V2_Q, ours.model());
        for (String s : SENTENCES) {
            float[] a = ours.embed(s);
            float[] b = stock.embed(s).content().vector();
            assertEquals(Embedder.DIMENSION, a.length);
            for (int i = 0; i < a.length; i++) assertEquals(b[i], a[i], 1e-5, "dimension " + i + " of [" + s + "]");
        }
    }

    /**
     * The single pass (one tokenization, pooling from the output buffer) gives langchain4j's encoder's vectors, for
     * questions, error texts, schema text with punctuation, accents, digits and SQL, and a text long enough to go to
     * langchain4j's split into parts.
     */
    @Test
    void theSinglePassGivesLangchain4jsEncodersVectors() {
        StringBuilder longText = new StringBuilder();
        for (int i = 0; i < 300; i++) longText.append("word").append(i).append(' ');
        List<String> texts = new java.util.ArrayList<>(SENTENCES);
        texts.addAll(List.of("SELECT o.o_orderkey, sum(l.l_extendedprice * (1 - l.l_discount)) FROM orders o JOIN lineitem l",
                "Binder Error: Referenced column \"o_totalprise\" not found in FROM clause! Candidate bindings: \"o_totalprice\"",
                "l_shipinstruct VARCHAR -- (e.g. COLLECT COD, DELIVER IN PERSON, NONE)", "Wie viele Bestellungen gab es 2024? 😀 naïve café",
                "customers' orders — what's the 95th-percentile?", longText.toString()));
        for (Embedder.Model model : Embedder.Model.values()) {
            Embedder ours = new Embedder(model);
            Embedder langchain4j = Embedder.throughLangchain4jEncoder(model);
            for (String s : texts) {
                float[] a = ours.embed(s);
                float[] b = langchain4j.embed(s);
                assertEquals(Embedder.DIMENSION, a.length);
                for (int i = 0; i < a.length; i++) assertEquals(b[i], a[i], 1e-6, model + ", dimension " + i + " of [" + s + "]");
            }
            for (String blank : new String[] {"", "   "}) {
                assertThrows(IllegalArgumentException.class, () -> langchain4j.embed(blank));
                assertThrows(IllegalArgumentException.class, () -> ours.embed(blank), "refused as langchain4j refuses it");
            }
        }
    }

    /**
     * Texts of different lengths in one run (the shorter padded and masked), one cut by the tokenizer among them: the
     * float build gives each text its vector alone; the int8 build's stay close (its activations are quantized over
     * the run).
     */
    @Test
    void oneRunOfSeveralTextsMasksThePadding() {
        StringBuilder longText = new StringBuilder();
        for (int i = 0; i < 300; i++) longText.append("word").append(i).append(' ');
        List<String> texts = List.of("Top 5 customers by revenue", longText.toString(),
                "Binder Error: Referenced column \"o_totalprise\" not found in FROM clause! Candidate bindings: \"o_totalprice\"",
                "orders");
        for (Embedder.Model model : Embedder.Model.values()) {
            Embedder e = new Embedder(model);
            List<float[]> run = e.embedInOneRun(texts);
            assertEquals(texts.size(), run.size());
            for (int i = 0; i < texts.size(); i++) {
                double cosine = Embedder.cosine(e.embed(texts.get(i)), run.get(i));
                double floor = model == Embedder.Model.ALL_MINILM_L6_V2 ? 0.99999 : 0.95;
                assertTrue(cosine > floor, model + " [" + texts.get(i) + "] in the run vs alone: " + cosine);
            }
            assertArrayEquals(e.embed("orders"), e.embedInOneRun(List.of("orders")).getFirst(), "a run of one is the text alone");
            assertThrows(IllegalArgumentException.class, () -> e.embedInOneRun(List.of("orders", " ")));
        }
    }

    /**
     * The tokenizer files cut a text at 128 word pieces, for langchain4j's encoder as for the single pass: two texts
     * that differ only after their first ~150 words have one vector, and two that differ in their first words do not.
     */
    @Test
    void aTextIsEmbeddedByItsFirst128WordPieces() {
        StringBuilder head = new StringBuilder();
        for (int i = 0; i < 150; i++) head.append("orders ");
        String a = head + "shipped to Paris in 2023";
        String b = head + "cancelled by customers in Berlin";
        for (Embedder.Model model : Embedder.Model.values()) {
            for (Embedder e : List.of(new Embedder(model), Embedder.throughLangchain4jEncoder(model))) {
                assertArrayEquals(e.embed(a), e.embed(b), model + ": the tail past 128 word pieces is not read");
                assertTrue(Embedder.cosine(e.embed("revenue " + a), e.embed("customers " + a)) < 1 - 1e-4, model + ": the head is");
            }
        }
    }

    @Test
    void similarQuestionsAreCloserThanUnrelatedOnes() {
        Embedder e = new Embedder();
        float[] q = e.embed("How many orders were placed in 2023?");
        double near = Embedder.cosine(q, e.embed("Number of orders placed during 2023"));
        double far = Embedder.cosine(q, e.embed("List the employees of the marketing department"));
        assertTrue(near > far + 0.2, near + " vs " + far);
    }
}
