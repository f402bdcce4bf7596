package dev.sqloop.store;

import java.util.List;
import java.util.Optional;

/**
 * What sqloop learns, by datasource: question→SQL examples searched by question vector, error→fix pairs searched
 * by error vector, and the questions curators marked wrong (never captured again). Writes are durable when the
 * method returns. Implementations: {@link LuceneExampleStore} (embedded, on disk), {@link QdrantExampleStore} and
 * {@link ChromaExampleStore}.
 */
public interface ExampleStore extends AutoCloseable {

    /**
     * Inserts or replaces the example with the same datasource, normalized question and owner ({@link StoredExample#owner()}:
     * a tenant's own example, or the shared one).
     */
    void upsert(StoredExample example, float[] vector);

    /** Bulk form of {@link #upsert}, durable once at the end (seeding). */
    default void upsertAll(List<StoredExample> examples, List<float[]> vectors) {
        for (int i = 0; i < examples.size(); i++) upsert(examples.get(i), vectors.get(i));
    }

    /** Removes {@code owner}'s example for this question (the shared one when {@code owner} is null); false when there was none. */
    boolean delete(String datasource, String question, String owner);

    /** Removes the shared example for this question. */
    default boolean delete(String datasource, String question) {
        return delete(datasource, question, null);
    }

    /** {@code owner}'s example stored for this question after normalization (the shared one when {@code owner} is null). */
    Optional<StoredExample> find(String datasource, String question, String owner);

    /** The shared example stored for this question. */
    default Optional<StoredExample> find(String datasource, String question) {
        return find(datasource, question, null);
    }

    /**
     * Up to {@code k} examples of the datasource that {@code tenant} may see (shared ones and its own; only shared ones
     * when {@code tenant} is null) whose similarity is at least {@code minScore}, best first. The visibility is part of
     * the search, not applied to its result: other tenants' examples never take a place in the {@code k}.
     */
    List<Scored<StoredExample>> search(String datasource, String tenant, float[] vector, int k, double minScore);

    /** Up to {@code k} shared examples of the datasource (seeds, curated ones), best first. */
    default List<Scored<StoredExample>> search(String datasource, float[] vector, int k, double minScore) {
        return search(datasource, null, vector, k, minScore);
    }

    long count();

    /** Examples stored for one datasource, every owner's; cheap enough to read at each metrics scrape. */
    long count(String datasource);

    /** Every stored example, in no particular order (publishing the store's content; not for the request path). */
    void forEachExample(java.util.function.Consumer<StoredExample> action);

    /** Inserts or replaces an error→fix pair (same datasource, error text and fixed SQL). */
    void upsertFix(ErrorFix fix, float[] errorVector);

    /**
     * Whether the pair of this datasource, error text and fixed SQL is stored: a fix learnt before need not be embedded
     * and written again (a batch repeats its mistakes).
     */
    boolean hasFix(String datasource, String errorText, String fixedSql);

    /** Up to {@code k} error→fix pairs of the datasource whose error resembles this one, best first. */
    List<Scored<ErrorFix>> searchFixes(String datasource, float[] errorVector, int k, double minScore);

    long countFixes();

    /**
     * Deletes {@code owner}'s example of the question and remembers that its SQL was wrong, so auto-capture skips it for
     * that owner from now on; {@code owner} null: the shared example, and a mark that holds for every tenant. Both
     * happen together where the store allows (one Lucene commit), so no reader sees one without the other.
     */
    void markWrong(String datasource, String question, String owner);

    default void markWrong(String datasource, String question) {
        markWrong(datasource, question, null);
    }

    /** Forgets {@code owner}'s wrong mark (null: the mark for every tenant), as when the owner saves the question explicitly. */
    void clearWrong(String datasource, String question, String owner);

    default void clearWrong(String datasource, String question) {
        clearWrong(datasource, question, null);
    }

    /** Whether {@code owner} (null: every tenant) marked the question wrong; exactly that mark, not the other. */
    boolean isMarkedWrong(String datasource, String question, String owner);

    default boolean isMarkedWrong(String datasource, String question) {
        return isMarkedWrong(datasource, question, null);
    }

    @Override
    void close();
}
