package dev.sqloop.store;

import java.util.List;
import java.util.Optional;

/**
 * What sqloop learns, by datasource: question→SQL examples searched by question vector, error→fix pairs searched
 * by error vector, and the questions curators marked wrong (never captured again). Writes are durable when the
 * method returns. Implementations: {@link LuceneExampleStore} (embedded, on disk) and {@link QdrantExampleStore}.
 */
public interface ExampleStore extends AutoCloseable {

    /** Inserts or replaces the example with the same datasource and normalized question. */
    void upsert(StoredExample example, float[] vector);

    /** Bulk form of {@link #upsert}, durable once at the end (seeding). */
    default void upsertAll(List<StoredExample> examples, List<float[]> vectors) {
        for (int i = 0; i < examples.size(); i++) upsert(examples.get(i), vectors.get(i));
    }

    /** Removes the example for this question; false when there was none. */
    boolean delete(String datasource, String question);

    /** The example stored for this question after normalization. */
    Optional<StoredExample> find(String datasource, String question);

    /** Up to {@code k} examples of the datasource whose similarity is at least {@code minScore}, best first. */
    List<Scored<StoredExample>> search(String datasource, float[] vector, int k, double minScore);

    long count();

    /** Every stored example, in no particular order (publishing the store's content; not for the request path). */
    void forEachExample(java.util.function.Consumer<StoredExample> action);

    /** Inserts or replaces an error→fix pair (same datasource, error text and fixed SQL). */
    void upsertFix(ErrorFix fix, float[] errorVector);

    /** Up to {@code k} error→fix pairs of the datasource whose error resembles this one, best first. */
    List<Scored<ErrorFix>> searchFixes(String datasource, float[] errorVector, int k, double minScore);

    long countFixes();

    /**
     * Deletes the question's example and remembers that its SQL was wrong, so auto-capture skips it from now on.
     * Both happen together where the store allows (one Lucene commit), so no reader sees one without the other.
     */
    void markWrong(String datasource, String question);

    /** Forgets a wrong mark (a curator saved the question explicitly). */
    void clearWrong(String datasource, String question);

    boolean isMarkedWrong(String datasource, String question);

    @Override
    void close();
}
