package dev.sqloop.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The contract on the embedded Lucene store, plus what must hold across a restart. */
class LuceneExampleStoreTest extends ExampleStoreContract {
    @TempDir
    Path dir;

    @Override
    protected ExampleStore newStore() {
        return LuceneExampleStore.open(dir);
    }

    private void restart() {
        store.close();
        store = LuceneExampleStore.open(dir);
    }

    @Test
    void shouldKeepExamplesFixesAndDeletionsAcrossARestart() {
        float[] v = randomVector(21);
        store.upsert(example("shop", "kept", "SELECT 'kept'"), v);
        store.upsert(example("shop", "deleted", "SELECT 'deleted'"), near(v, 22, 0.01));
        store.upsertFix(new ErrorFix("shop", "syntax error at FORM", "syntax_error", "SELECT 1 FORM t", "SELECT 1 FROM t",
                "duckdb", "q", null), v);
        store.delete("shop", "deleted");
        restart();
        assertEquals(1, store.count());
        assertEquals(1, store.countFixes());
        assertEquals("SELECT 'kept'", store.find("shop", "kept").orElseThrow().sql());
        assertEquals(1, store.search("shop", v, 5, -1).size(), "the deleted example stays deleted after restart");
    }

    @Test
    void shouldKeepAWrongMarkAcrossARestart() {
        store.markWrong("shop", "Which products sell best?");
        restart();
        assertTrue(store.isMarkedWrong("shop", "which products sell best"));
    }

    /**
     * Writes share commits under concurrency, and still each is committed before it returns: what the committed index on
     * disk holds (read without the writer, as after a crash) is every write that returned.
     */
    @Test
    void shouldHaveEveryReturnedWriteOnDiskWhenConcurrentWritesShareCommits() throws Exception {
        int threads = 16;
        int each = 15;
        writeConcurrently(threads, each, "question ", false);
        try (var reader = org.apache.lucene.index.DirectoryReader.open(org.apache.lucene.store.FSDirectory.open(dir))) {
            assertEquals(threads * each, reader.numDocs(), "every returned write is in the committed index");
        }
        assertEquals(threads * each, store.count());
    }

    /**
     * Overlapping writes (a batch's captures) share commits spaced by the gap instead of one commit each; a lone
     * writer's every write is committed at once (no wait: nothing else to share the commit with).
     */
    @Test
    void shouldShareCommitsAmongOverlappingWritesAndCommitALoneWriteAtOnce() throws Exception {
        store.close();
        store = LuceneExampleStore.open(dir, java.time.Duration.ofMillis(200));
        long before = generation();
        for (int i = 0; i < 10; i++) store.upsert(example("shop", "lone " + i, "SELECT " + i), randomVector(500L + i));
        assertEquals(before + 10, generation(), "a lone writer's writes are committed one by one, without waiting");

        int threads = 16, each = 10;
        long start = generation();
        writeConcurrently(threads, each, "batch ", true);
        long commits = generation() - start;
        assertTrue(commits <= threads * each / 4, threads * each + " overlapping writes took " + commits + " commits");
        assertEquals(10 + threads * each, store.count());
    }

    /** {@code threads} virtual threads each upserting {@code each} examples; {@code check}: each visible when its write returns. */
    private void writeConcurrently(int threads, int each, String prefix, boolean check) throws Exception {
        try (var pool = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            java.util.List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    for (int i = 0; i < each; i++) {
                        String question = prefix + thread + "-" + i;
                        store.upsert(example("shop", question, "SELECT " + i), randomVector(thread * 1000L + i));
                        if (check) assertTrue(store.find("shop", question).isPresent(), "visible when the write returns");
                    }
                    return null;
                }));
            }
            for (var f : done) f.get();
        }
    }

    private long generation() throws java.io.IOException {
        try (var d = org.apache.lucene.store.FSDirectory.open(dir)) {
            return org.apache.lucene.index.SegmentInfos.readLatestCommit(d).getGeneration();
        }
    }
}
