package dev.sqloop.fewshot;

import dev.sqloop.store.Embedder;
/** One all-MiniLM-L6-v2 instance per test JVM: loading it takes about a second. */
public final class TestModel {
    private static Embedder embedder;

    private TestModel() {}

    public static synchronized Embedder embedder() {
        if (embedder == null) embedder = new Embedder();
        return embedder;
    }
}
