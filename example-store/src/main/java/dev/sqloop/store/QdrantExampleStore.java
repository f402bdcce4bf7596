package dev.sqloop.store;

import static io.qdrant.client.ConditionFactory.match;
import static io.qdrant.client.ConditionFactory.matchKeyword;
import static io.qdrant.client.PointIdFactory.id;
import static io.qdrant.client.ValueFactory.list;
import static io.qdrant.client.ValueFactory.value;
import static io.qdrant.client.VectorsFactory.vectors;

import dev.sqloop.common.runtime.InfrastructureException;
import io.qdrant.client.QdrantClient;
import io.qdrant.client.QdrantGrpcClient;
import io.qdrant.client.ValueFactory;
import io.qdrant.client.WithPayloadSelectorFactory;
import io.qdrant.client.grpc.Collections.CollectionInfo;
import io.qdrant.client.grpc.Collections.Distance;
import io.qdrant.client.grpc.Collections.PayloadSchemaType;
import io.qdrant.client.grpc.Collections.VectorParams;
import io.qdrant.client.grpc.Collections.VectorsConfig;
import io.qdrant.client.grpc.Common.Filter;
import io.qdrant.client.grpc.Common.PointId;
import io.qdrant.client.grpc.JsonWithInt.Value;
import io.qdrant.client.grpc.Points.DeletePoints;
import io.qdrant.client.grpc.Points.PointStruct;
import io.qdrant.client.grpc.Points.PointsIdsList;
import io.qdrant.client.grpc.Points.PointsSelector;
import io.qdrant.client.grpc.Points.RetrievedPoint;
import io.qdrant.client.grpc.Points.ScrollPoints;
import io.qdrant.client.grpc.Points.ScrollResponse;
import io.qdrant.client.grpc.Points.ScoredPoint;
import io.qdrant.client.grpc.Points.SearchPoints;
import io.qdrant.client.grpc.Points.UpsertPoints;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The production store on Qdrant over gRPC: one collection of examples and one of error→fix pairs (cosine,
 * payload question, sql, datasource, dialect, source, created_at), plus a small collection of wrong-marks.
 * Point ids come from {@link StoreIds}, so upserts are idempotent. Writes wait for Qdrant to apply them.
 */
public final class QdrantExampleStore implements ExampleStore {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final QdrantClient client;
    private final String examples;
    private final String fixes;
    private final String wrong;

    /** Connects and creates the collections (and a datasource keyword index) when they are missing. */
    public QdrantExampleStore(QdrantClient client, String collectionPrefix, int dimension) {
        this.client = client;
        this.examples = collectionPrefix + "_examples";
        this.fixes = collectionPrefix + "_error_fixes";
        this.wrong = collectionPrefix + "_marked_wrong";
        ensureCollection(examples, dimension);
        // the visibility filter of every example search
        await(client.createPayloadIndexAsync(examples, "shared", PayloadSchemaType.Bool, null, true, null, null));
        await(client.createPayloadIndexAsync(examples, "owner", PayloadSchemaType.Keyword, null, true, null, null));
        ensureCollection(fixes, dimension);
        // wrong-marks are looked up by id only; Qdrant wants a vector per point, one dimension is enough
        ensureCollection(wrong, 1);
    }

    public static QdrantExampleStore connect(String host, int port, String apiKey, boolean tls, String prefix, int dimension) {
        QdrantGrpcClient.Builder b = QdrantGrpcClient.newBuilder(host, port, tls).withTimeout(TIMEOUT);
        if (apiKey != null && !apiKey.isBlank()) b = b.withApiKey(apiKey);
        QdrantClient client = new QdrantClient(b.build());
        try {
            return new QdrantExampleStore(client, prefix, dimension);
        } catch (RuntimeException e) {
            client.close(); // no caller holds it: its channel and threads would outlive the failed start
            throw e;
        }
    }

    /**
     * Creates the collection unless it exists. Another process may create it between the check and the create (the
     * fewshot service and the generator's repair worker start together): a failed create is fine when the collection
     * exists afterwards. The payload index is requested every time; Qdrant treats an existing one as done, and a
     * process that lost the race after creating the collection but before indexing it would otherwise leave none.
     */
    private void ensureCollection(String name, int dimension) {
        if (!Boolean.TRUE.equals(await(client.collectionExistsAsync(name)))) {
            try {
                await(client.createCollectionAsync(name, VectorParams.newBuilder().setDistance(Distance.Cosine).setSize(dimension).build()));
            } catch (QdrantUnavailableException e) {
                if (!Boolean.TRUE.equals(await(client.collectionExistsAsync(name)))) throw e;
            }
        }
        await(client.createPayloadIndexAsync(name, "datasource", PayloadSchemaType.Keyword, null, true, null, null));
        checkVectors(name, dimension);
    }

    /**
     * An existing collection made for another embedding model (or by hand) would reject every upsert and search, and
     * the runners would retry those as an outage forever: refuse to open instead, naming the collection.
     */
    private void checkVectors(String name, int dimension) {
        CollectionInfo info = await(client.getCollectionInfoAsync(name));
        VectorsConfig config = info.getConfig().getParams().getVectorsConfig();
        VectorParams params = config.hasParams() ? config.getParams() : null;
        if (params == null || params.getSize() != dimension || params.getDistance() != Distance.Cosine) {
            throw new IllegalStateException("Qdrant collection " + name + " does not hold one unnamed " + dimension
                    + "-d cosine vector per point (" + (params == null ? "named vectors" : params.getSize() + "-d " + params.getDistance())
                    + "): drop it or choose another SQLOOP_FEWSHOT_QDRANT_COLLECTION_PREFIX");
        }
    }

    @Override
    public void upsert(StoredExample e, float[] vector) {
        upsertAll(List.of(e), List.of(vector));
    }

    @Override
    public void upsertAll(List<StoredExample> list, List<float[]> vectors) {
        List<PointStruct> points = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            StoredExample e = list.get(i);
            Map<String, Value> payload = new HashMap<>(Map.of(
                    "datasource", value(e.datasource()), "question", value(e.question()), "sql", value(e.sql()),
                    "dialect", value(e.dialect()), "source", value(e.source()), "created_at", value(e.createdAt().toString()),
                    "tags", list(e.tags().stream().map(ValueFactory::value).toList()), "shared", value(e.shared())));
            if (e.tenant() != null) payload.put("tenant", value(e.tenant()));
            if (e.owner() != null) payload.put("owner", value(e.owner()));
            if (e.notes() != null) payload.put("notes", value(e.notes()));
            points.add(point(StoreIds.exampleId(e), vectors.get(i), payload));
        }
        upsertPoints(examples, points);
    }

    @Override
    public boolean delete(String datasource, String question, String owner) {
        UUID id = StoreIds.exampleId(datasource, question, owner);
        boolean existed = !retrieve(examples, id).isEmpty();
        deletePoint(examples, id);
        return existed;
    }

    @Override
    public Optional<StoredExample> find(String datasource, String question, String owner) {
        return retrieve(examples, StoreIds.exampleId(datasource, question, owner)).stream().findFirst()
                .map(p -> toExample(p.getPayloadMap()));
    }

    @Override
    public List<Scored<StoredExample>> search(String datasource, String tenant, float[] vector, int k, double minScore) {
        // at least one should: shared, or the tenant's own (Qdrant filters during the HNSW search, not after it)
        Filter.Builder visible = Filter.newBuilder().addMust(matchKeyword("datasource", datasource)).addShould(match("shared", true));
        if (tenant != null) visible.addShould(matchKeyword("owner", tenant));
        return search(examples, visible.build(), vector, k, minScore, QdrantExampleStore::toExample);
    }

    @Override
    public long count() {
        return await(client.countAsync(examples, Filter.getDefaultInstance(), true));
    }

    @Override
    public long count(String datasource) {
        return await(client.countAsync(examples, Filter.newBuilder().addMust(matchKeyword("datasource", datasource)).build(), true));
    }

    @Override
    public void forEachExample(Consumer<StoredExample> action) {
        PointId offset = null;
        do {
            ScrollPoints.Builder page = ScrollPoints.newBuilder().setCollectionName(examples).setLimit(256)
                    .setWithPayload(WithPayloadSelectorFactory.enable(true));
            if (offset != null) page.setOffset(offset);
            ScrollResponse r = await(client.scrollAsync(page.build()));
            r.getResultList().forEach(p -> action.accept(toExample(p.getPayloadMap())));
            offset = r.hasNextPageOffset() ? r.getNextPageOffset() : null;
        } while (offset != null);
    }

    @Override
    public void upsertFix(ErrorFix f, float[] errorVector) {
        upsertPoints(fixes, List.of(point(StoreIds.fixId(f.datasource(), f.errorText(), f.fixedSql()), errorVector, Map.of(
                "datasource", value(f.datasource()), "error", value(f.errorText()), "category", value(f.category()),
                "failed_sql", value(f.failedSql()), "fixed_sql", value(f.fixedSql()), "dialect", value(f.dialect()),
                "question", value(f.question()), "created_at", value(f.createdAt().toString())))));
    }

    @Override
    public boolean hasFix(String datasource, String errorText, String fixedSql) {
        return !retrieve(fixes, StoreIds.fixId(datasource, errorText, fixedSql)).isEmpty();
    }

    @Override
    public List<Scored<ErrorFix>> searchFixes(String datasource, float[] errorVector, int k, double minScore) {
        return search(fixes, Filter.newBuilder().addMust(matchKeyword("datasource", datasource)).build(), errorVector, k, minScore, p -> new ErrorFix(str(p, "datasource"), str(p, "error"),
                str(p, "category"), str(p, "failed_sql"), str(p, "fixed_sql"), str(p, "dialect"), str(p, "question"),
                Instant.parse(str(p, "created_at"))));
    }

    @Override
    public long countFixes() {
        return await(client.countAsync(fixes, Filter.getDefaultInstance(), true));
    }

    @Override
    public void markWrong(String datasource, String question, String owner) {
        // mark first: if the delete then fails, the capture worker already skips the question
        UUID id = StoreIds.exampleId(datasource, question, owner);
        upsertPoints(wrong, List.of(point(id, new float[] {1f}, Map.of("datasource", value(datasource), "question", value(question)))));
        deletePoint(examples, id);
    }

    @Override
    public void clearWrong(String datasource, String question, String owner) {
        deletePoint(wrong, StoreIds.exampleId(datasource, question, owner));
    }

    @Override
    public boolean isMarkedWrong(String datasource, String question, String owner) {
        return !retrieve(wrong, StoreIds.exampleId(datasource, question, owner)).isEmpty();
    }

    @Override
    public void close() {
        client.close();
    }

    private static PointStruct point(UUID id, float[] vector, Map<String, Value> payload) {
        return PointStruct.newBuilder().setId(id(id)).setVectors(vectors(vector)).putAllPayload(payload).build();
    }

    private void upsertPoints(String collection, List<PointStruct> points) {
        if (points.isEmpty()) return;
        await(client.upsertAsync(UpsertPoints.newBuilder().setCollectionName(collection).setWait(true).addAllPoints(points).build()));
    }

    private void deletePoint(String collection, UUID id) {
        await(client.deleteAsync(DeletePoints.newBuilder().setCollectionName(collection).setWait(true)
                .setPoints(PointsSelector.newBuilder().setPoints(PointsIdsList.newBuilder().addIds(id(id)))).build()));
    }

    private List<RetrievedPoint> retrieve(String collection, UUID id) {
        List<PointId> ids = List.of(id(id));
        return await(client.retrieveAsync(collection, ids, true, false, null));
    }

    private <T> List<Scored<T>> search(String collection, Filter filter, float[] vector, int k, double minScore,
                                       Function<Map<String, Value>, T> decode) {
        SearchPoints.Builder q = SearchPoints.newBuilder().setCollectionName(collection).setLimit(k)
                .setFilter(filter)
                .setWithPayload(WithPayloadSelectorFactory.enable(true))
                .setScoreThreshold((float) minScore);
        for (float f : vector) q.addVector(f);
        List<Scored<T>> out = new ArrayList<>();
        for (ScoredPoint p : await(client.searchAsync(q.build()))) out.add(new Scored<>(decode.apply(p.getPayloadMap()), p.getScore()));
        return out;
    }

    private static StoredExample toExample(Map<String, Value> p) {
        return new StoredExample(str(p, "datasource"), str(p, "question"), str(p, "sql"), str(p, "dialect"),
                str(p, "source"), Instant.parse(str(p, "created_at")), str(p, "tenant"), str(p, "notes"),
                p.containsKey("tags") ? p.get("tags").getListValue().getValuesList().stream().map(Value::getStringValue).toList() : List.of(),
                p.containsKey("shared") ? p.get("shared").getBoolValue() : !p.containsKey("tenant"));
    }

    private static String str(Map<String, Value> payload, String key) {
        Value v = payload.get(key);
        return v == null ? "" : v.getStringValue();
    }

    private static <T> T await(Future<T> f) {
        try {
            return f.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while calling Qdrant", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new QdrantUnavailableException(e.getCause() == null ? e : e.getCause());
        }
    }

    /** Qdrant did not answer or refused the call: the runner retries the record with backoff. */
    public static final class QdrantUnavailableException extends InfrastructureException {
        QdrantUnavailableException(Throwable cause) {
            super("Qdrant call failed: " + cause.getMessage(), cause);
        }
    }
}
