package dev.sqloop.store;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The store side of the repair worker's "similar past fixes": up to {@link #MAX} error→fix pairs of the
 * datasource whose error text resembles this one. The generator's {@code PastFixes} adapts it.
 *
 * <p>Error texts repeat far more than questions do (the same wrong column in many questions of a batch, the same
 * question repaired in every round of a resubmitted batch), so the vectors of the last {@link #CACHED_ERRORS} texts
 * are kept, most recently used last: a repeated error is looked up without running the model again.
 */
public final class ErrorFixMemory {
    public static final int MAX = 3;
    /** ~0.75 MiB of 384-float vectors. */
    public static final int CACHED_ERRORS = 512;

    private final Embedder embedder;
    private final ExampleStore store;
    private final double minScore;
    private final Map<String, float[]> vectors = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, float[]> eldest) {
            return size() > CACHED_ERRORS;
        }
    };
    private long embedded;

    public ErrorFixMemory(Embedder embedder, ExampleStore store, double minScore) {
        this.embedder = embedder;
        this.store = store;
        this.minScore = minScore;
    }

    public List<Scored<ErrorFix>> similar(String datasource, String errorText) {
        if (errorText == null || errorText.isBlank()) return List.of();
        return store.searchFixes(datasource, vectorOf(errorText), MAX, minScore);
    }

    /** How many error texts the model embedded (the rest came from the cache). */
    public synchronized long embedded() {
        return embedded;
    }

    private float[] vectorOf(String errorText) {
        synchronized (this) {
            float[] known = vectors.get(errorText);
            if (known != null) return known;
        }
        // outside the lock: two repairs of the same new error may both embed it, never wait on each other
        float[] v = embedder.embed(errorText);
        synchronized (this) {
            embedded++;
            vectors.put(errorText, v);
        }
        return v;
    }
}
