package dev.sqloop.store;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.sqloop.common.JsonCodec;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The store on a Chroma server over its HTTP API v2 ({@link ChromaClient}): collections {@code <prefix>_examples}
 * (document: the question) and {@code <prefix>_error_fixes} (document: the error text), cosine, 384-d vectors made by
 * sqloop's {@link Embedder} (Chroma embeds nothing), plus {@code <prefix>_marked_wrong} (1-d, looked up by id). Record
 * ids come from {@link StoreIds}, so upserts are idempotent; the fields are metadata, the tenant visibility a
 * {@code where} filter of the query itself. Shared by every process that points at the same server, as Qdrant is.
 */
public final class ChromaExampleStore implements ExampleStore {
    /** Collection metadata naming the vectors' dimension: checked at open even while a collection holds no vectors yet. */
    static final String DIMENSION_KEY = "sqloop_dimension";
    private static final int PAGE = 1000;

    private final ChromaClient client;
    private final String examples;
    private final String fixes;
    private final String wrong;

    /** Opens (creating when missing) the three collections in {@code client}'s database; refuses ones made for other vectors. */
    public ChromaExampleStore(ChromaClient client, String collectionPrefix, int dimension) {
        this.client = client;
        client.ensureDatabase();
        this.examples = open(collectionPrefix + "_examples", dimension);
        this.fixes = open(collectionPrefix + "_error_fixes", dimension);
        // wrong-marks are looked up by id only; Chroma wants a vector per record, one dimension is enough
        this.wrong = open(collectionPrefix + "_marked_wrong", 1);
    }

    /** A client for {@code url} and the store on it; the client is closed with the store, or at once if opening fails. */
    public static ChromaExampleStore connect(String url, String tenant, String database, String prefix, int dimension) {
        ChromaClient client = new ChromaClient(url, tenant, database);
        try {
            return new ChromaExampleStore(client, prefix, dimension);
        } catch (RuntimeException e) {
            client.close();
            throw e;
        }
    }

    /**
     * The collection's id. An existing collection made for another embedding model, with another distance or by hand
     * would reject every upsert and query (or rank by the wrong measure), and the runners would retry those as an outage
     * forever: refuse to open instead, naming it.
     */
    private String open(String name, int dimension) {
        ChromaClient.Collection c = client.getOrCreateCosine(name, Map.of(DIMENSION_KEY, dimension));
        Object declared = c.metadata().get(DIMENSION_KEY);
        Integer held = c.dimension() != null ? c.dimension() : declared instanceof Number n ? n.intValue() : null;
        if (!"cosine".equals(c.space()) || (held != null && held != dimension)
                || (declared instanceof Number n && n.intValue() != dimension)) {
            throw new IllegalStateException("Chroma collection " + name + " does not hold " + dimension + "-d cosine vectors ("
                    + (held == null ? "?" : held) + "-d " + c.space() + "): drop it or choose another SQLOOP_FEWSHOT_CHROMA_COLLECTION_PREFIX");
        }
        return c.id();
    }

    @Override
    public void upsert(StoredExample e, float[] vector) {
        upsertAll(List.of(e), List.of(vector));
    }

    @Override
    public void upsertAll(List<StoredExample> list, List<float[]> vectors) {
        for (int from = 0; from < list.size(); from += PAGE) {
            int to = Math.min(list.size(), from + PAGE);
            List<String> ids = new ArrayList<>();
            List<String> docs = new ArrayList<>();
            List<Map<String, Object>> metas = new ArrayList<>();
            for (StoredExample e : list.subList(from, to)) {
                ids.add(StoreIds.exampleId(e).toString());
                docs.add(e.question());
                Map<String, Object> m = new HashMap<>(Map.of("datasource", e.datasource(), "question", e.question(), "sql", e.sql(),
                        "dialect", e.dialect(), "source", e.source(), "created_at", e.createdAt().toString(), "shared", e.shared(),
                        // Chroma 1.0 metadata holds no lists: the tags as a JSON array
                        "tags", JsonCodec.encodeToString(e.tags())));
                if (e.tenant() != null) m.put("tenant", e.tenant());
                if (e.owner() != null) m.put("owner", e.owner());
                if (e.notes() != null) m.put("notes", e.notes());
                metas.add(m);
            }
            client.upsert(examples, ids, vectors.subList(from, to), docs, metas);
        }
    }

    @Override
    public boolean delete(String datasource, String question, String owner) {
        String id = StoreIds.exampleId(datasource, question, owner).toString();
        boolean existed = client.get(examples, List.of(id), null, null, null, false).size() > 0;
        client.delete(examples, List.of(id));
        return existed;
    }

    @Override
    public Optional<StoredExample> find(String datasource, String question, String owner) {
        ChromaClient.Records r = client.get(examples, List.of(StoreIds.exampleId(datasource, question, owner).toString()), null, null, null, true);
        return r.size() == 0 ? Optional.empty() : Optional.of(toExample(r.metadatas().getFirst()));
    }

    @Override
    public List<Scored<StoredExample>> search(String datasource, String tenant, float[] vector, int k, double minScore) {
        // shared, or the tenant's own: part of Chroma's query (a filtered HNSW search), not applied to its top k
        Map<String, Object> visible = tenant == null ? eq("shared", true)
                : Map.of("$or", List.of(eq("shared", true), eq("owner", tenant)));
        return search(examples, Map.of("$and", List.of(eq("datasource", datasource), visible)), vector, k, minScore,
                ChromaExampleStore::toExample);
    }

    @Override
    public long count() {
        return client.count(examples);
    }

    @Override
    public long count(String datasource) {
        // Chroma counts a whole collection only: the ids of the datasource's records, a page at a time
        long n = 0;
        for (int offset = 0; ; offset += PAGE) {
            int page = client.get(examples, null, eq("datasource", datasource), PAGE, offset, false).size();
            n += page;
            if (page < PAGE) return n;
        }
    }

    @Override
    public void forEachExample(Consumer<StoredExample> action) {
        for (int offset = 0; ; offset += PAGE) {
            ChromaClient.Records r = client.get(examples, null, null, PAGE, offset, true);
            r.metadatas().forEach(m -> action.accept(toExample(m)));
            if (r.size() < PAGE) return;
        }
    }

    @Override
    public void upsertFix(ErrorFix f, float[] errorVector) {
        Map<String, Object> m = Map.of("datasource", f.datasource(), "error", f.errorText(), "category", f.category(),
                "failed_sql", f.failedSql(), "fixed_sql", f.fixedSql(), "dialect", f.dialect(), "question", f.question(),
                "created_at", f.createdAt().toString());
        client.upsert(fixes, List.of(StoreIds.fixId(f.datasource(), f.errorText(), f.fixedSql()).toString()), List.of(errorVector),
                List.of(f.errorText()), List.of(m));
    }

    @Override
    public boolean hasFix(String datasource, String errorText, String fixedSql) {
        return client.get(fixes, List.of(StoreIds.fixId(datasource, errorText, fixedSql).toString()), null, null, null, false).size() > 0;
    }

    @Override
    public List<Scored<ErrorFix>> searchFixes(String datasource, float[] errorVector, int k, double minScore) {
        return search(fixes, eq("datasource", datasource), errorVector, k, minScore, m -> new ErrorFix(str(m, "datasource"),
                str(m, "error"), str(m, "category"), str(m, "failed_sql"), str(m, "fixed_sql"), str(m, "dialect"), str(m, "question"),
                Instant.parse(str(m, "created_at"))));
    }

    @Override
    public long countFixes() {
        return client.count(fixes);
    }

    @Override
    public void markWrong(String datasource, String question, String owner) {
        // mark first: if the delete then fails, the capture worker already skips the question
        String id = StoreIds.exampleId(datasource, question, owner).toString();
        client.upsert(wrong, List.of(id), List.of(new float[] {1f}), null, List.of(Map.of("datasource", datasource, "question", question)));
        client.delete(examples, List.of(id));
    }

    @Override
    public void clearWrong(String datasource, String question, String owner) {
        client.delete(wrong, List.of(StoreIds.exampleId(datasource, question, owner).toString()));
    }

    @Override
    public boolean isMarkedWrong(String datasource, String question, String owner) {
        return client.get(wrong, List.of(StoreIds.exampleId(datasource, question, owner).toString()), null, null, null, false).size() > 0;
    }

    @Override
    public void close() {
        client.close();
    }

    /** Nearest first; Chroma has no score threshold, so the hits below it are dropped here (the rest keep their order). */
    private <T> List<Scored<T>> search(String collection, Map<String, Object> where, float[] vector, int k, double minScore,
                                       Function<Map<String, Object>, T> decode) {
        List<Scored<T>> out = new ArrayList<>();
        if (k <= 0) return out;
        for (ChromaClient.Hit h : client.query(collection, vector, k, where)) {
            double score = 1 - h.distance(); // cosine distance → cosine similarity
            if (score >= minScore) out.add(new Scored<>(decode.apply(h.metadata()), score));
        }
        return out;
    }

    private static Map<String, Object> eq(String field, Object value) {
        return Map.of(field, Map.of("$eq", value));
    }

    private static StoredExample toExample(Map<String, Object> m) {
        List<String> tags = m.get("tags") instanceof String s && !s.isEmpty()
                ? JsonCodec.mapper().convertValue(readJson(s), new TypeReference<List<String>>() {}) : List.of();
        return new StoredExample(str(m, "datasource"), str(m, "question"), str(m, "sql"), str(m, "dialect"), str(m, "source"),
                Instant.parse(str(m, "created_at")), (String) m.get("tenant"), (String) m.get("notes"), tags,
                m.get("shared") instanceof Boolean b ? b : !m.containsKey("tenant"));
    }

    private static com.fasterxml.jackson.databind.JsonNode readJson(String s) {
        try {
            return JsonCodec.mapper().readTree(s);
        } catch (java.io.IOException e) {
            throw new IllegalStateException("tags of an example in Chroma are not a JSON array: " + s, e);
        }
    }

    private static String str(Map<String, Object> m, String key) {
        Object v = m.get(key);
        return v == null ? "" : v.toString();
    }
}
