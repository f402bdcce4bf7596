package dev.sqloop.store;

import java.util.List;

/**
 * The store side of the repair worker's "similar past fixes": up to {@link #MAX} error→fix pairs of the
 * datasource whose error text resembles this one. The generator's {@code PastFixes} adapts it.
 */
public final class ErrorFixMemory {
    public static final int MAX = 3;

    private final Embedder embedder;
    private final ExampleStore store;
    private final double minScore;

    public ErrorFixMemory(Embedder embedder, ExampleStore store, double minScore) {
        this.embedder = embedder;
        this.store = store;
        this.minScore = minScore;
    }

    public List<Scored<ErrorFix>> similar(String datasource, String errorText) {
        if (errorText == null || errorText.isBlank()) return List.of();
        return store.searchFixes(datasource, embedder.embed(errorText), MAX, minScore);
    }
}
