package dev.sqloop.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
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

    @Test
    void similarQuestionsAreCloserThanUnrelatedOnes() {
        Embedder e = new Embedder();
        float[] q = e.embed("How many orders were placed in 2023?");
        double near = Embedder.cosine(q, e.embed("Number of orders placed during 2023"));
        double far = Embedder.cosine(q, e.embed("List the employees of the marketing department"));
        assertTrue(near > far + 0.2, near + " vs " + far);
    }
}
