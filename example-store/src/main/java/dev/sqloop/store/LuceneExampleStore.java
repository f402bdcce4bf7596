package dev.sqloop.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.Bits;

/**
 * The embedded store: one Lucene index on disk holding examples, error→fix pairs (HNSW over
 * {@link KnnFloatVectorField}, cosine) and wrong-marks. Every write is committed before the method returns, so
 * what a caller saw stored survives a crash or restart; searches see it at once (near-real-time reader).
 */
public final class LuceneExampleStore implements ExampleStore {
    private static final String ID = "id";
    private static final String KIND = "kind";
    private static final String DATASOURCE = "datasource";
    private static final String VECTOR = "vector";
    /** Indexed visibility of an example: {@code shared} "true"/"false", {@code owner} the tenant of a private one. */
    private static final String SHARED = "shared";
    private static final String OWNER = "owner";
    private static final String KIND_EXAMPLE = "example";
    private static final String KIND_FIX = "fix";
    private static final String KIND_WRONG = "wrong";

    private final FSDirectory directory;
    private final IndexWriter writer;
    private final SearcherManager searchers;
    private final java.util.concurrent.atomic.AtomicLong writes = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.locks.ReentrantLock commitLock = new java.util.concurrent.locks.ReentrantLock();
    /** Writes covered by a commit so far (guarded by {@link #commitLock}). */
    private long durable;
    /** When the last commit ended ({@link System#nanoTime}), and the least time before the next one when writes overlap. */
    private volatile long lastCommit;
    private final long commitGapNanos;
    /** Writes between their start and their commit. */
    private final java.util.concurrent.atomic.AtomicInteger writing = new java.util.concurrent.atomic.AtomicInteger();

    private LuceneExampleStore(Path dir, java.time.Duration commitGap) throws IOException {
        this.commitGapNanos = commitGap.toNanos();
        this.directory = FSDirectory.open(dir);
        IndexWriterConfig config = new IndexWriterConfig().setOpenMode(IndexWriterConfig.OpenMode.CREATE_OR_APPEND);
        this.writer = new IndexWriter(directory, config);
        this.searchers = new SearcherManager(writer, null);
    }

    /** Concurrent writes wait for a commit at most this long after the last one ({@code SQLOOP_FEWSHOT_LUCENE_COMMIT_GAP}). */
    public static final java.time.Duration DEFAULT_COMMIT_GAP = java.time.Duration.ofMillis(200);

    /** Opens (or creates) the store in {@code dir}. */
    public static LuceneExampleStore open(Path dir) {
        return open(dir, DEFAULT_COMMIT_GAP);
    }

    /**
     * Opens (or creates) the store in {@code dir}; overlapping writes are committed together, at most one commit per
     * {@code commitGap} while they keep coming ({@code Duration.ZERO}: a commit as soon as one is free).
     */
    public static LuceneExampleStore open(Path dir, java.time.Duration commitGap) {
        try {
            java.nio.file.Files.createDirectories(dir);
            return new LuceneExampleStore(dir, commitGap);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open example store at " + dir, e);
        }
    }

    @Override
    public void upsert(StoredExample e, float[] vector) {
        upsertAll(List.of(e), List.of(vector));
    }

    @Override
    public void upsertAll(List<StoredExample> examples, List<float[]> vectors) {
        write(() -> {
            for (int i = 0; i < examples.size(); i++) {
                StoredExample e = examples.get(i);
                String id = StoreIds.exampleId(e).toString();
                Document d = base(id, KIND_EXAMPLE, e.datasource());
                d.add(new StringField(SHARED, Boolean.toString(e.shared()), Field.Store.YES));
                if (e.owner() != null) d.add(new StringField(OWNER, e.owner(), Field.Store.NO));
                d.add(new KnnFloatVectorField(VECTOR, vectors.get(i), VectorSimilarityFunction.COSINE));
                d.add(new StoredField("question", e.question()));
                d.add(new StoredField("sql", e.sql()));
                d.add(new StoredField("dialect", e.dialect()));
                d.add(new StoredField("source", e.source()));
                d.add(new StoredField("created_at", e.createdAt().toEpochMilli()));
                if (e.tenant() != null) d.add(new StoredField("tenant", e.tenant()));
                if (e.notes() != null) d.add(new StoredField("notes", e.notes()));
                for (String tag : e.tags()) d.add(new StoredField("tag", tag));
                writer.updateDocument(new Term(ID, id), d);
            }
        });
    }

    @Override
    public boolean delete(String datasource, String question, String owner) {
        String id = StoreIds.exampleId(datasource, question, owner).toString();
        boolean existed = exists(id);
        write(() -> writer.deleteDocuments(new Term(ID, id)));
        return existed;
    }

    @Override
    public Optional<StoredExample> find(String datasource, String question, String owner) {
        String id = StoreIds.exampleId(datasource, question, owner).toString();
        return withSearcher(s -> {
            TopDocs td = s.search(new TermQuery(new Term(ID, id)), 1);
            return td.scoreDocs.length == 0 ? Optional.<StoredExample>empty()
                    : Optional.of(toExample(s.storedFields().document(td.scoreDocs[0].doc)));
        });
    }

    @Override
    public List<Scored<StoredExample>> search(String datasource, String tenant, float[] vector, int k, double minScore) {
        BooleanQuery.Builder visible = new BooleanQuery.Builder().add(new TermQuery(new Term(SHARED, "true")), BooleanClause.Occur.SHOULD);
        if (tenant != null) visible.add(new TermQuery(new Term(OWNER, tenant)), BooleanClause.Occur.SHOULD);
        return knn(KIND_EXAMPLE, datasource, visible.setMinimumNumberShouldMatch(1).build(), vector, k, minScore, LuceneExampleStore::toExample);
    }

    @Override
    public long count() {
        return countOf(new TermQuery(new Term(KIND, KIND_EXAMPLE)));
    }

    @Override
    public long count(String datasource) {
        return countOf(new BooleanQuery.Builder()
                .add(new TermQuery(new Term(KIND, KIND_EXAMPLE)), BooleanClause.Occur.FILTER)
                .add(new TermQuery(new Term(DATASOURCE, datasource)), BooleanClause.Occur.FILTER).build());
    }

    @Override
    public void forEachExample(Consumer<StoredExample> action) {
        withSearcher(s -> {
            Term kind = new Term(KIND, KIND_EXAMPLE);
            for (LeafReaderContext leaf : s.getIndexReader().leaves()) {
                PostingsEnum docs = leaf.reader().postings(kind);
                if (docs == null) continue;
                Bits live = leaf.reader().getLiveDocs();
                StoredFields fields = leaf.reader().storedFields();
                for (int doc = docs.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = docs.nextDoc()) {
                    if (live == null || live.get(doc)) action.accept(toExample(fields.document(doc)));
                }
            }
            return null;
        });
    }

    @Override
    public void upsertFix(ErrorFix f, float[] errorVector) {
        String id = StoreIds.fixId(f.datasource(), f.errorText(), f.fixedSql()).toString();
        Document d = base(id, KIND_FIX, f.datasource());
        d.add(new KnnFloatVectorField(VECTOR, errorVector, VectorSimilarityFunction.COSINE));
        d.add(new StoredField("error", f.errorText()));
        d.add(new StoredField("category", f.category()));
        d.add(new StoredField("failed_sql", f.failedSql()));
        d.add(new StoredField("fixed_sql", f.fixedSql()));
        d.add(new StoredField("dialect", f.dialect()));
        d.add(new StoredField("question", f.question()));
        d.add(new StoredField("created_at", f.createdAt().toEpochMilli()));
        write(() -> writer.updateDocument(new Term(ID, id), d));
    }

    @Override
    public boolean hasFix(String datasource, String errorText, String fixedSql) {
        return exists(StoreIds.fixId(datasource, errorText, fixedSql).toString());
    }

    @Override
    public List<Scored<ErrorFix>> searchFixes(String datasource, float[] errorVector, int k, double minScore) {
        return knn(KIND_FIX, datasource, null, errorVector, k, minScore, d -> new ErrorFix(d.get(DATASOURCE), d.get("error"),
                d.get("category"), d.get("failed_sql"), d.get("fixed_sql"), d.get("dialect"), d.get("question"),
                Instant.ofEpochMilli(d.getField("created_at").numericValue().longValue())));
    }

    @Override
    public long countFixes() {
        return countOf(new TermQuery(new Term(KIND, KIND_FIX)));
    }

    @Override
    public void markWrong(String datasource, String question, String owner) {
        String id = "wrong:" + StoreIds.exampleId(datasource, question, owner);
        Document d = base(id, KIND_WRONG, datasource);
        d.add(new StoredField("question", question));
        write(() -> {
            writer.deleteDocuments(new Term(ID, StoreIds.exampleId(datasource, question, owner).toString()));
            writer.updateDocument(new Term(ID, id), d);
        });
    }

    @Override
    public void clearWrong(String datasource, String question, String owner) {
        write(() -> writer.deleteDocuments(new Term(ID, "wrong:" + StoreIds.exampleId(datasource, question, owner))));
    }

    @Override
    public boolean isMarkedWrong(String datasource, String question, String owner) {
        return exists("wrong:" + StoreIds.exampleId(datasource, question, owner));
    }

    /** Merges the index into one segment: one HNSW graph searches faster than many (benchmarks, after seeding). */
    public void optimize() {
        write(() -> writer.forceMerge(1));
    }

    @Override
    public void close() {
        try {
            searchers.close();
            writer.close();
            directory.close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot close example store", e);
        }
    }

    private static Document base(String id, String kind, String datasource) {
        Document d = new Document();
        d.add(new StringField(ID, id, Field.Store.YES));
        d.add(new StringField(KIND, kind, Field.Store.YES));
        d.add(new StringField(DATASOURCE, datasource, Field.Store.YES));
        return d;
    }

    private static StoredExample toExample(Document d) {
        return new StoredExample(d.get(DATASOURCE), d.get("question"), d.get("sql"), d.get("dialect"), d.get("source"),
                Instant.ofEpochMilli(d.getField("created_at").numericValue().longValue()), d.get("tenant"), d.get("notes"),
                List.of(d.getValues("tag")), "true".equals(d.get(SHARED)) || d.get("tenant") == null);
    }

    /** The {@code k} nearest of {@code kind} in the datasource among those {@code visible} also matches (null: all): filtered inside the HNSW search. */
    private <T> List<Scored<T>> knn(String kind, String datasource, Query visible, float[] vector, int k, double minScore,
                                    Function<Document, T> decode) {
        BooleanQuery.Builder b = new BooleanQuery.Builder()
                .add(new TermQuery(new Term(KIND, kind)), BooleanClause.Occur.FILTER)
                .add(new TermQuery(new Term(DATASOURCE, datasource)), BooleanClause.Occur.FILTER);
        if (visible != null) b.add(visible, BooleanClause.Occur.FILTER);
        Query filter = b.build();
        return withSearcher(s -> {
            TopDocs td = s.search(new KnnFloatVectorQuery(VECTOR, vector, k, filter), k);
            List<Scored<T>> out = new ArrayList<>();
            for (ScoreDoc sd : td.scoreDocs) {
                // Lucene maps cosine c to (1 + c) / 2 so scores are non-negative; callers think in cosine
                double cosine = 2.0 * sd.score - 1.0;
                if (cosine >= minScore) out.add(new Scored<>(decode.apply(s.storedFields().document(sd.doc)), cosine));
            }
            return out;
        });
    }

    /** Whether a document with this id is stored. */
    private boolean exists(String id) {
        return countOf(new TermQuery(new Term(ID, id))) > 0;
    }

    private long countOf(Query q) {
        return withSearcher(s -> (long) s.count(q));
    }

    private interface IndexWork {
        void run() throws IOException;
    }

    private interface SearchWork<T> {
        T run(IndexSearcher searcher) throws IOException;
    }

    /**
     * The change, then a commit that covers it before returning (durable, and visible to searches). Commits are
     * shared: a write that finds another committing waits for it, and the next committer covers every write finished
     * by then, so concurrent captures cost one commit — each commit writes a segment that later merges re-index
     * (HNSW included), which made a commit per capture the largest CPU cost of capture in bench pipeline. While writes
     * overlap, a commit also waits until the gap since the last one has passed: a batch of new questions committed
     * every few milliseconds without it (capture 3.7 ms of CPU per question and 32 s behind the last result at
     * 4,000 questions; with 200 ms, 1.7 ms and 0.7 s).
     */
    private void write(IndexWork work) {
        writing.incrementAndGet();
        try {
            work.run();
            long mine = writes.incrementAndGet();
            // with other writes under way, let the next commit wait for its gap so that it covers them all: a batch's
            // captures share a few commits a second instead of one each; a lone write commits at once
            long wait = lastCommit + commitGapNanos - System.nanoTime();
            if (wait > 0 && writing.get() > 1) java.util.concurrent.locks.LockSupport.parkNanos(wait);
            commitLock.lock();
            try {
                if (durable < mine) {
                    long upTo = writes.get(); // every write counted here has finished: the commit includes it
                    writer.commit();
                    searchers.maybeRefreshBlocking();
                    durable = upTo;
                    lastCommit = System.nanoTime();
                }
            } finally {
                commitLock.unlock();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("example store write failed", e);
        } finally {
            writing.decrementAndGet();
        }
    }

    private <T> T withSearcher(SearchWork<T> work) {
        try {
            IndexSearcher s = searchers.acquire();
            try {
                return work.run(s);
            } finally {
                searchers.release(s);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("example store search failed", e);
        }
    }
}
