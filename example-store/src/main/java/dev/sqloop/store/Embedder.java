package dev.sqloop.store;

import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.allminilml6v2.AllMiniLmL6V2EmbeddingModel;
import java.util.List;

/** all-MiniLM-L6-v2 in process (langchain4j ONNX): 384-d sentence vectors, no network. Thread-safe. */
public final class Embedder {
    public static final int DIMENSION = 384;

    private final EmbeddingModel model;

    public Embedder() {
        this.model = new AllMiniLmL6V2EmbeddingModel();
    }

    public float[] embed(String text) {
        return model.embed(text).content().vector();
    }

    public List<float[]> embedAll(List<String> texts) {
        if (texts.isEmpty()) return List.of();
        return model.embedAll(texts.stream().map(TextSegment::from).toList()).content().stream()
                .map(e -> e.vector()).toList();
    }

    public static double cosine(float[] a, float[] b) {
        double dot = 0, na = 0, nb = 0;
        for (int i = 0; i < a.length; i++) {
            dot += a[i] * b[i];
            na += a[i] * a[i];
            nb += b[i] * b[i];
        }
        return na == 0 || nb == 0 ? 0 : dot / Math.sqrt(na * nb);
    }
}
