package dev.sqloop.store;

import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.qdrant.client.grpc.Collections;
import io.qdrant.client.grpc.Collections.CollectionConfig;
import io.qdrant.client.grpc.Collections.CollectionInfo;
import io.qdrant.client.grpc.Collections.CollectionParams;
import io.qdrant.client.grpc.Collections.CollectionStatus;
import io.qdrant.client.grpc.Collections.Distance;
import io.qdrant.client.grpc.Collections.PayloadSchemaInfo;
import io.qdrant.client.grpc.Collections.PayloadSchemaType;
import io.qdrant.client.grpc.Collections.VectorParams;
import io.qdrant.client.grpc.Collections.VectorsConfig;
import io.qdrant.client.grpc.CollectionsGrpc;
import io.qdrant.client.grpc.Common.Condition;
import io.qdrant.client.grpc.Common.FieldCondition;
import io.qdrant.client.grpc.Common.Filter;
import io.qdrant.client.grpc.Common.Match;
import io.qdrant.client.grpc.Common.PointId;
import io.qdrant.client.grpc.Common.Range;
import io.qdrant.client.grpc.JsonWithInt.Value;
import io.qdrant.client.grpc.Points;
import io.qdrant.client.grpc.Points.DenseVector;
import io.qdrant.client.grpc.Points.PointStruct;
import io.qdrant.client.grpc.Points.PointsOperationResponse;
import io.qdrant.client.grpc.Points.PointsSelector;
import io.qdrant.client.grpc.Points.RetrievedPoint;
import io.qdrant.client.grpc.Points.ScoredPoint;
import io.qdrant.client.grpc.Points.UpdateResult;
import io.qdrant.client.grpc.Points.UpdateStatus;
import io.qdrant.client.grpc.Points.Vector;
import io.qdrant.client.grpc.Points.VectorOutput;
import io.qdrant.client.grpc.Points.VectorsOutput;
import io.qdrant.client.grpc.Points.WithPayloadSelector;
import io.qdrant.client.grpc.Points.WithVectorsSelector;
import io.qdrant.client.grpc.PointsGrpc;
import io.qdrant.client.grpc.QdrantGrpc;
import io.qdrant.client.grpc.QdrantOuterClass.HealthCheckReply;
import io.qdrant.client.grpc.QdrantOuterClass.HealthCheckRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * A <b>protocol double</b> of Qdrant, not Qdrant: a gRPC server on a loopback port that implements the Qdrant
 * client's own generated service bases ({@code Qdrant}, {@code Collections}, {@code Points}) over an in-memory
 * model, so {@link QdrantExampleStore} talks to it through the unmodified client, channel, protobuf messages and
 * api-key header exactly as it talks to a server.
 *
 * <p>Real semantics for what the store and its contract use: collections with one unnamed dense vector (cosine:
 * vectors normalized on upsert, score = dot product, dimension checked), create/exists/info/list/delete, payload
 * indexes (recorded and reported), upsert (whole point replaced), delete by ids or filter, get with payload and
 * vector selectors, set/overwrite payload, count, exact (brute-force) search with filter, score threshold, offset and
 * limit, and scroll in point-id order with offset and next-page offset. Filters: must, should, must_not, min_should,
 * nested filters, has_id, is_empty, is_null, and field conditions match keyword/integer/boolean/keywords/integers and
 * numeric range; a value that is a list matches when any element matches, as in Qdrant. Errors use Qdrant's status
 * codes and wording (NOT_FOUND for a missing collection, ALREADY_EXISTS, INVALID_ARGUMENT for a wrong dimension or a
 * zero limit, UNAUTHENTICATED for a wrong api key). Anything else (named or sparse vectors, other distances, text and
 * geo conditions, order_by, query/recommend/discover ...) answers UNIMPLEMENTED rather than something plausible.
 *
 * <p>What it cannot show: HNSW's approximate recall (search here is exact), Qdrant's own storage, consistency and
 * clustering, and any server-side semantics beyond the ones above. {@code QdrantExampleStoreIT} covers those
 * against a real Qdrant where Docker exists.
 */
final class QdrantProtocolDouble implements AutoCloseable {
    /** Reported by the health check the client runs when it connects (compatible with client 1.18.x). */
    static final String VERSION = "1.18.0";
    private static final Metadata.Key<String> API_KEY = Metadata.Key.of("api-key", Metadata.ASCII_STRING_MARSHALLER);

    private final Map<String, Collection> collections = new ConcurrentHashMap<>();
    private final AtomicLong operations = new AtomicLong();
    private final AtomicLong writesWithoutWait = new AtomicLong();
    private final AtomicInteger racingCreates = new AtomicInteger();
    private final String apiKey;
    private final Server server;

    private QdrantProtocolDouble(String apiKey) {
        this.apiKey = apiKey;
        this.server = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .addService(new HealthService())
                .addService(new CollectionsService())
                .addService(new PointsService())
                .intercept(new ApiKeyCheck())
                .build();
    }

    /** Starts a double on a free loopback port; with an api key, calls without that {@code api-key} header fail. */
    static QdrantProtocolDouble start(String apiKey) {
        QdrantProtocolDouble d = new QdrantProtocolDouble(apiKey);
        try {
            d.server.start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return d;
    }

    String host() {
        return "127.0.0.1";
    }

    int port() {
        return server.getPort();
    }

    /** Writes (upsert, delete, payload, index) sent without {@code wait=true}: Qdrant may apply those after it answers. */
    long writesWithoutWait() {
        return writesWithoutWait.get();
    }

    /**
     * Simulates another client winning a creation race: for the next {@code count} Create calls, the collection is
     * created (same parameters) just before this call handles the request, which then fails as Qdrant does.
     */
    void loseNextCreateRaces(int count) {
        racingCreates.set(count);
    }

    /** The payload indexes of a collection, by field (what {@code CollectionInfo.payload_schema} reports). */
    Map<String, PayloadSchemaType> payloadIndexes(String collection) {
        return Map.copyOf(require(collection).indexes);
    }

    @Override
    public void close() {
        server.shutdownNow();
        try {
            server.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---- model ----

    private record StoredPoint(PointId id, float[] vector, Map<String, Value> payload) {}

    private static final class Collection {
        final String name;
        final VectorParams params;
        final TreeMap<PointId, StoredPoint> points = new TreeMap<>(POINT_ORDER);
        final Map<String, PayloadSchemaType> indexes = new ConcurrentHashMap<>();

        Collection(String name, VectorParams params) {
            this.name = name;
            this.params = params;
        }
    }

    /** Qdrant's id order (scroll): integer ids first, by value, then UUIDs, by their 128-bit value. */
    private static final Comparator<PointId> POINT_ORDER = Comparator
            .comparing((PointId p) -> p.getPointIdOptionsCase() == PointId.PointIdOptionsCase.NUM ? 0 : 1)
            .thenComparing((a, b) -> a.getPointIdOptionsCase() == PointId.PointIdOptionsCase.NUM
                    ? Long.compareUnsigned(a.getNum(), b.getNum())
                    : uuid(a).compareTo(uuid(b)));

    private static String uuid(PointId id) {
        // canonical lower-case hex: string order is the 128-bit order
        return java.util.UUID.fromString(id.getUuid()).toString();
    }

    private static PointId canonical(PointId id) {
        if (id.getPointIdOptionsCase() == PointId.PointIdOptionsCase.UUID) {
            try {
                return PointId.newBuilder().setUuid(uuid(id)).build();
            } catch (IllegalArgumentException e) {
                throw invalid("Unable to parse UUID: " + id.getUuid());
            }
        }
        if (id.getPointIdOptionsCase() == PointId.PointIdOptionsCase.NUM) return id;
        throw invalid("Point id is not set");
    }

    private Collection require(String name) {
        Collection c = collections.get(name);
        if (c == null) throw Status.NOT_FOUND.withDescription("Not found: Collection `" + name + "` doesn't exist!").asRuntimeException();
        return c;
    }

    private static StatusRuntimeException invalid(String message) {
        return Status.INVALID_ARGUMENT.withDescription("Wrong input: " + message).asRuntimeException();
    }

    private static StatusRuntimeException unimplemented(String what) {
        return Status.UNIMPLEMENTED.withDescription("Qdrant protocol double: " + what + " is not implemented").asRuntimeException();
    }

    private static <T> void answer(StreamObserver<T> observer, Supplier<T> work) {
        T response;
        try {
            response = work.get();
        } catch (StatusRuntimeException e) {
            observer.onError(e);
            return;
        } catch (RuntimeException e) {
            observer.onError(Status.INTERNAL.withDescription(String.valueOf(e)).withCause(e).asRuntimeException());
            return;
        }
        observer.onNext(response);
        observer.onCompleted();
    }

    private PointsOperationResponse applied(boolean wait) {
        if (!wait) writesWithoutWait.incrementAndGet();
        return PointsOperationResponse.newBuilder().setResult(UpdateResult.newBuilder()
                .setOperationId(operations.incrementAndGet())
                .setStatus(wait ? UpdateStatus.Completed : UpdateStatus.Acknowledged)).build();
    }

    private static float[] dense(Vector v, VectorParams params) {
        List<Float> data;
        if (v.hasDense()) data = v.getDense().getDataList();
        else if (v.getVectorCase() == Vector.VectorCase.VECTOR_NOT_SET && !v.hasIndices()) data = v.getDataList();
        else throw unimplemented("vector kind " + v.getVectorCase());
        if (data.size() != params.getSize()) {
            throw invalid("Vector dimension error: expected dim: " + params.getSize() + ", got " + data.size());
        }
        float[] out = new float[data.size()];
        for (int i = 0; i < out.length; i++) out[i] = data.get(i);
        return out;
    }

    /** Cosine collections store the unit vector, as Qdrant does; the score is then a dot product. */
    private static float[] normalized(float[] v) {
        double norm = 0;
        for (float f : v) norm += (double) f * f;
        norm = Math.sqrt(norm);
        if (norm == 0) return v.clone();
        float[] out = new float[v.length];
        for (int i = 0; i < v.length; i++) out[i] = (float) (v[i] / norm);
        return out;
    }

    private static float dot(float[] a, float[] b) {
        double s = 0;
        for (int i = 0; i < a.length; i++) s += (double) a[i] * b[i];
        return (float) s;
    }

    // ---- selectors ----

    private static Map<String, Value> select(Map<String, Value> payload, WithPayloadSelector selector, boolean present) {
        if (!present) return Map.of();
        return switch (selector.getSelectorOptionsCase()) {
            case ENABLE -> selector.getEnable() ? payload : Map.of();
            case INCLUDE -> {
                Map<String, Value> out = new LinkedHashMap<>();
                for (String f : selector.getInclude().getFieldsList()) if (payload.containsKey(f)) out.put(f, payload.get(f));
                yield out;
            }
            case EXCLUDE -> {
                Map<String, Value> out = new LinkedHashMap<>(payload);
                selector.getExclude().getFieldsList().forEach(out::remove);
                yield out;
            }
            case SELECTOROPTIONS_NOT_SET -> Map.of();
        };
    }

    private static boolean withVectors(boolean present, WithVectorsSelector selector) {
        if (!present) return false;
        return switch (selector.getSelectorOptionsCase()) {
            case ENABLE -> selector.getEnable();
            case INCLUDE -> throw unimplemented("named vector selection");
            case SELECTOROPTIONS_NOT_SET -> false;
        };
    }

    private static VectorsOutput vectorOutput(float[] v) {
        DenseVector.Builder d = DenseVector.newBuilder();
        for (float f : v) d.addData(f);
        return VectorsOutput.newBuilder().setVector(VectorOutput.newBuilder().setDense(d)).build();
    }

    private List<StoredPoint> selected(Collection c, PointsSelector selector) {
        return switch (selector.getPointsSelectorOneOfCase()) {
            case POINTS -> selector.getPoints().getIdsList().stream().map(QdrantProtocolDouble::canonical).distinct()
                    .map(c.points::get).filter(java.util.Objects::nonNull).toList();
            case FILTER -> c.points.values().stream().filter(p -> matches(selector.getFilter(), p)).toList();
            case POINTSSELECTORONEOF_NOT_SET -> throw invalid("points selector is empty");
        };
    }

    // ---- filters ----

    private static boolean matches(Filter f, StoredPoint p) {
        for (Condition c : f.getMustList()) if (!holds(c, p)) return false;
        for (Condition c : f.getMustNotList()) if (holds(c, p)) return false;
        if (f.getShouldCount() > 0 && f.getShouldList().stream().noneMatch(c -> holds(c, p))) return false;
        if (f.hasMinShould()) {
            long n = f.getMinShould().getConditionsList().stream().filter(c -> holds(c, p)).count();
            if (n < f.getMinShould().getMinCount()) return false;
        }
        return true;
    }

    private static boolean holds(Condition c, StoredPoint p) {
        return switch (c.getConditionOneOfCase()) {
            case FIELD -> field(c.getField(), p.payload());
            case FILTER -> matches(c.getFilter(), p);
            case HAS_ID -> c.getHasId().getHasIdList().stream().map(QdrantProtocolDouble::canonical).anyMatch(p.id()::equals);
            case IS_EMPTY -> values(p.payload(), c.getIsEmpty().getKey()).stream()
                    .allMatch(v -> v.getKindCase() == Value.KindCase.NULL_VALUE);
            case IS_NULL -> {
                Value v = lookup(p.payload(), c.getIsNull().getKey());
                yield v != null && v.getKindCase() == Value.KindCase.NULL_VALUE;
            }
            case NESTED -> throw unimplemented("nested (array of objects) conditions");
            case HAS_VECTOR -> throw unimplemented("has_vector conditions");
            case CONDITIONONEOF_NOT_SET -> throw invalid("condition is empty");
        };
    }

    private static boolean field(FieldCondition f, Map<String, Value> payload) {
        if (f.hasGeoBoundingBox() || f.hasGeoRadius() || f.hasGeoPolygon()) throw unimplemented("geo conditions");
        if (f.hasValuesCount()) throw unimplemented("values_count conditions");
        if (f.hasDatetimeRange()) throw unimplemented("datetime_range conditions");
        if (f.hasIsEmpty() || f.hasIsNull()) throw unimplemented("is_empty/is_null inside a field condition");
        if (!f.hasMatch() && !f.hasRange()) throw invalid("field condition on `" + f.getKey() + "` has no condition");
        List<Value> values = values(payload, f.getKey());
        if (f.hasMatch() && values.stream().noneMatch(v -> match(f.getMatch(), v))) return false;
        return !f.hasRange() || values.stream().anyMatch(v -> inRange(f.getRange(), v));
    }

    private static boolean match(Match m, Value v) {
        return switch (m.getMatchValueCase()) {
            case KEYWORD -> v.getKindCase() == Value.KindCase.STRING_VALUE && v.getStringValue().equals(m.getKeyword());
            case INTEGER -> v.getKindCase() == Value.KindCase.INTEGER_VALUE && v.getIntegerValue() == m.getInteger();
            case BOOLEAN -> v.getKindCase() == Value.KindCase.BOOL_VALUE && v.getBoolValue() == m.getBoolean();
            case KEYWORDS -> v.getKindCase() == Value.KindCase.STRING_VALUE && m.getKeywords().getStringsList().contains(v.getStringValue());
            case INTEGERS -> v.getKindCase() == Value.KindCase.INTEGER_VALUE && m.getIntegers().getIntegersList().contains(v.getIntegerValue());
            default -> throw unimplemented("match " + m.getMatchValueCase());
        };
    }

    private static boolean inRange(Range r, Value v) {
        double x;
        if (v.getKindCase() == Value.KindCase.DOUBLE_VALUE) x = v.getDoubleValue();
        else if (v.getKindCase() == Value.KindCase.INTEGER_VALUE) x = v.getIntegerValue();
        else return false;
        return (!r.hasLt() || x < r.getLt()) && (!r.hasLte() || x <= r.getLte())
                && (!r.hasGt() || x > r.getGt()) && (!r.hasGte() || x >= r.getGte());
    }

    /** The value at a dotted key ({@code a.b}), or null. */
    private static Value lookup(Map<String, Value> payload, String key) {
        Map<String, Value> level = payload;
        String[] parts = key.split("\\.");
        for (int i = 0; i < parts.length; i++) {
            Value v = level.get(parts[i]);
            if (v == null || i == parts.length - 1) return v;
            if (v.getKindCase() != Value.KindCase.STRUCT_VALUE) return null;
            level = v.getStructValue().getFieldsMap();
        }
        return null;
    }

    /** The values a condition sees at a key: a list's elements, else the value itself; none when absent. */
    private static List<Value> values(Map<String, Value> payload, String key) {
        Value v = lookup(payload, key);
        if (v == null) return List.of();
        return v.getKindCase() == Value.KindCase.LIST_VALUE ? v.getListValue().getValuesList() : List.of(v);
    }

    // ---- services ----

    private final class ApiKeyCheck implements ServerInterceptor {
        @Override
        public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
            if (apiKey != null && !apiKey.equals(headers.get(API_KEY))) {
                call.close(Status.UNAUTHENTICATED.withDescription("Invalid api-key"), new Metadata());
                return new ServerCall.Listener<>() {};
            }
            return next.startCall(call, headers);
        }
    }

    private final class HealthService extends QdrantGrpc.QdrantImplBase {
        @Override
        public void healthCheck(HealthCheckRequest request, StreamObserver<HealthCheckReply> observer) {
            answer(observer, () -> HealthCheckReply.newBuilder().setTitle("qdrant protocol double (sqloop tests)").setVersion(VERSION).build());
        }
    }

    private final class CollectionsService extends CollectionsGrpc.CollectionsImplBase {
        @Override
        public void collectionExists(Collections.CollectionExistsRequest r, StreamObserver<Collections.CollectionExistsResponse> observer) {
            answer(observer, () -> Collections.CollectionExistsResponse.newBuilder()
                    .setResult(Collections.CollectionExists.newBuilder().setExists(collections.containsKey(r.getCollectionName()))).build());
        }

        @Override
        public void create(Collections.CreateCollection r, StreamObserver<Collections.CollectionOperationResponse> observer) {
            answer(observer, () -> {
                VectorsConfig config = r.getVectorsConfig();
                if (config.getConfigCase() != VectorsConfig.ConfigCase.PARAMS) throw unimplemented("named vectors");
                VectorParams params = config.getParams();
                if (params.getDistance() != Distance.Cosine) throw unimplemented("distance " + params.getDistance());
                if (params.getSize() < 1) throw invalid("vector size must be at least 1");
                if (r.getCollectionName().isBlank()) throw invalid("collection name must not be empty");
                if (racingCreates.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                    collections.putIfAbsent(r.getCollectionName(), new Collection(r.getCollectionName(), params));
                }
                if (collections.putIfAbsent(r.getCollectionName(), new Collection(r.getCollectionName(), params)) != null) {
                    throw Status.ALREADY_EXISTS.withDescription("Wrong input: Collection `" + r.getCollectionName() + "` already exists!")
                            .asRuntimeException();
                }
                return Collections.CollectionOperationResponse.newBuilder().setResult(true).build();
            });
        }

        @Override
        public void get(Collections.GetCollectionInfoRequest r, StreamObserver<Collections.GetCollectionInfoResponse> observer) {
            answer(observer, () -> {
                Collection c = require(r.getCollectionName());
                CollectionInfo.Builder info = CollectionInfo.newBuilder().setStatus(CollectionStatus.Green)
                        .setConfig(CollectionConfig.newBuilder().setParams(CollectionParams.newBuilder().setShardNumber(1)
                                .setVectorsConfig(VectorsConfig.newBuilder().setParams(c.params))));
                synchronized (c) {
                    info.setPointsCount(c.points.size()).setSegmentsCount(1);
                    c.indexes.forEach((field, type) -> info.putPayloadSchema(field, PayloadSchemaInfo.newBuilder().setDataType(type)
                            .setPoints(c.points.values().stream().filter(p -> !values(p.payload(), field).isEmpty()).count()).build()));
                }
                return Collections.GetCollectionInfoResponse.newBuilder().setResult(info).build();
            });
        }

        @Override
        public void list(Collections.ListCollectionsRequest r, StreamObserver<Collections.ListCollectionsResponse> observer) {
            answer(observer, () -> {
                Collections.ListCollectionsResponse.Builder out = Collections.ListCollectionsResponse.newBuilder();
                new TreeMap<>(collections).keySet().forEach(n -> out.addCollections(Collections.CollectionDescription.newBuilder().setName(n)));
                return out.build();
            });
        }

        @Override
        public void delete(Collections.DeleteCollection r, StreamObserver<Collections.CollectionOperationResponse> observer) {
            answer(observer, () -> Collections.CollectionOperationResponse.newBuilder()
                    .setResult(collections.remove(r.getCollectionName()) != null).build());
        }
    }

    private final class PointsService extends PointsGrpc.PointsImplBase {
        @Override
        public void upsert(Points.UpsertPoints r, StreamObserver<PointsOperationResponse> observer) {
            answer(observer, () -> {
                if (r.hasUpdateFilter() || r.hasUpdateMode() || r.hasShardKeySelector()) throw unimplemented("conditional or sharded upsert");
                Collection c = require(r.getCollectionName());
                List<StoredPoint> points = new ArrayList<>();
                for (PointStruct s : r.getPointsList()) {
                    if (!s.hasVectors() || !s.getVectors().hasVector()) throw invalid("point without its (unnamed) vector");
                    points.add(new StoredPoint(canonical(s.getId()), normalized(dense(s.getVectors().getVector(), c.params)),
                            Map.copyOf(s.getPayloadMap())));
                }
                // all or nothing: the batch was validated before any point is written
                synchronized (c) {
                    points.forEach(p -> c.points.put(p.id(), p));
                }
                return applied(r.getWait());
            });
        }

        @Override
        public void delete(Points.DeletePoints r, StreamObserver<PointsOperationResponse> observer) {
            answer(observer, () -> {
                Collection c = require(r.getCollectionName());
                synchronized (c) {
                    selected(c, r.getPoints()).forEach(p -> c.points.remove(p.id()));
                }
                return applied(r.getWait());
            });
        }

        @Override
        public void get(Points.GetPoints r, StreamObserver<Points.GetResponse> observer) {
            answer(observer, () -> {
                Collection c = require(r.getCollectionName());
                boolean vectors = withVectors(r.hasWithVectors(), r.getWithVectors());
                Points.GetResponse.Builder out = Points.GetResponse.newBuilder();
                synchronized (c) {
                    for (PointId id : new LinkedHashSet<>(r.getIdsList().stream().map(QdrantProtocolDouble::canonical).toList())) {
                        StoredPoint p = c.points.get(id);
                        if (p != null) out.addResult(retrieved(p, r.getWithPayload(), r.hasWithPayload(), vectors));
                    }
                }
                return out.build();
            });
        }

        @Override
        public void setPayload(Points.SetPayloadPoints r, StreamObserver<PointsOperationResponse> observer) {
            answer(observer, () -> writePayload(r, false));
        }

        @Override
        public void overwritePayload(Points.SetPayloadPoints r, StreamObserver<PointsOperationResponse> observer) {
            answer(observer, () -> writePayload(r, true));
        }

        private PointsOperationResponse writePayload(Points.SetPayloadPoints r, boolean overwrite) {
            if (r.hasKey()) throw unimplemented("set payload at a key");
            if (!r.hasPointsSelector()) throw invalid("points selector is empty");
            Collection c = require(r.getCollectionName());
            synchronized (c) {
                for (StoredPoint p : selected(c, r.getPointsSelector())) {
                    Map<String, Value> payload = new HashMap<>(overwrite ? Map.of() : p.payload());
                    payload.putAll(r.getPayloadMap());
                    c.points.put(p.id(), new StoredPoint(p.id(), p.vector(), Map.copyOf(payload)));
                }
            }
            return applied(r.getWait());
        }

        @Override
        public void createFieldIndex(Points.CreateFieldIndexCollection r, StreamObserver<PointsOperationResponse> observer) {
            answer(observer, () -> {
                Collection c = require(r.getCollectionName());
                // FieldType and PayloadSchemaType list the same kinds, the latter after an "unknown" 0
                c.indexes.put(r.getFieldName(), PayloadSchemaType.forNumber(r.getFieldType().getNumber() + 1));
                return applied(r.getWait());
            });
        }

        @Override
        public void search(Points.SearchPoints r, StreamObserver<Points.SearchResponse> observer) {
            answer(observer, () -> {
                if (r.hasVectorName() || r.hasSparseIndices()) throw unimplemented("named or sparse vector search");
                if (r.getLimit() < 1) throw invalid("Validation error in body: [limit: value 0 invalid, must be 1 or larger]");
                Collection c = require(r.getCollectionName());
                float[] query = normalized(dense(Vector.newBuilder().addAllData(r.getVectorList()).build(), c.params));
                boolean vectors = withVectors(r.hasWithVectors(), r.getWithVectors());
                List<ScoredPoint> hits = new ArrayList<>();
                synchronized (c) {
                    for (StoredPoint p : c.points.values()) {
                        if (r.hasFilter() && !matches(r.getFilter(), p)) continue;
                        float score = dot(query, p.vector());
                        if (r.hasScoreThreshold() && score < r.getScoreThreshold()) continue;
                        ScoredPoint.Builder s = ScoredPoint.newBuilder().setId(p.id()).setScore(score)
                                .putAllPayload(select(p.payload(), r.getWithPayload(), r.hasWithPayload()));
                        if (vectors) s.setVectors(vectorOutput(p.vector()));
                        hits.add(s.build());
                    }
                }
                hits.sort(Comparator.comparingDouble(ScoredPoint::getScore).reversed()
                        .thenComparing(ScoredPoint::getId, POINT_ORDER));
                long from = r.hasOffset() ? r.getOffset() : 0;
                return Points.SearchResponse.newBuilder()
                        .addAllResult(hits.stream().skip(from).limit(r.getLimit()).toList()).build();
            });
        }

        @Override
        public void scroll(Points.ScrollPoints r, StreamObserver<Points.ScrollResponse> observer) {
            answer(observer, () -> {
                if (r.hasOrderBy()) throw unimplemented("scroll order_by");
                Collection c = require(r.getCollectionName());
                int limit = r.hasLimit() ? r.getLimit() : 10;
                if (limit < 1) throw invalid("Validation error in body: [limit: value 0 invalid, must be 1 or larger]");
                boolean vectors = withVectors(r.hasWithVectors(), r.getWithVectors());
                Points.ScrollResponse.Builder out = Points.ScrollResponse.newBuilder();
                synchronized (c) {
                    var from = r.hasOffset() ? c.points.tailMap(canonical(r.getOffset()), true) : c.points;
                    for (StoredPoint p : from.values()) {
                        if (r.hasFilter() && !matches(r.getFilter(), p)) continue;
                        if (out.getResultCount() == limit) {
                            out.setNextPageOffset(p.id());
                            break;
                        }
                        out.addResult(retrieved(p, r.getWithPayload(), r.hasWithPayload(), vectors));
                    }
                }
                return out.build();
            });
        }

        @Override
        public void count(Points.CountPoints r, StreamObserver<Points.CountResponse> observer) {
            answer(observer, () -> {
                Collection c = require(r.getCollectionName());
                long n;
                synchronized (c) {
                    n = r.hasFilter() ? c.points.values().stream().filter(p -> matches(r.getFilter(), p)).count() : c.points.size();
                }
                return Points.CountResponse.newBuilder().setResult(Points.CountResult.newBuilder().setCount(n)).build();
            });
        }

        private RetrievedPoint retrieved(StoredPoint p, WithPayloadSelector payload, boolean payloadPresent, boolean vectors) {
            RetrievedPoint.Builder b = RetrievedPoint.newBuilder().setId(p.id()).putAllPayload(select(p.payload(), payload, payloadPresent));
            if (vectors) b.setVectors(vectorOutput(p.vector()));
            return b.build();
        }
    }
}
