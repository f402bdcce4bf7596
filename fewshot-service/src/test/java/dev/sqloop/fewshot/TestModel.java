package dev.sqloop.fewshot;

import dev.sqloop.store.Embedder;
/** One all-MiniLM-L6-v2 instance per build and test JVM: loading one takes about a second. */
public final class TestModel {
    private static final java.util.Map<Embedder.Model, Embedder> EMBEDDERS = new java.util.EnumMap<>(Embedder.Model.class);

    private TestModel() {}

    /** The default (float) build. */
    public static Embedder embedder() {
        return embedder(Embedder.Model.DEFAULT);
    }

    public static synchronized Embedder embedder(Embedder.Model model) {
        return EMBEDDERS.computeIfAbsent(model, Embedder::new);
    }
}
