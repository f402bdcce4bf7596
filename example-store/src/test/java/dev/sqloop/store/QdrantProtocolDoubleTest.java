package dev.sqloop.store;

import static io.qdrant.client.ConditionFactory.hasId;
import static io.qdrant.client.ConditionFactory.isEmpty;
import static io.qdrant.client.ConditionFactory.match;
import static io.qdrant.client.ConditionFactory.matchKeyword;
import static io.qdrant.client.ConditionFactory.matchKeywords;
import static io.qdrant.client.ConditionFactory.range;
import static io.qdrant.client.PointIdFactory.id;
import static io.qdrant.client.ValueFactory.list;
import static io.qdrant.client.ValueFactory.value;
import static io.qdrant.client.VectorsFactory.vectors;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.qdrant.client.QdrantClient;
import io.qdrant.client.QdrantGrpcClient;
import io.qdrant.client.WithPayloadSelectorFactory;
import io.qdrant.client.grpc.Collections.Distance;
import io.qdrant.client.grpc.Collections.VectorParams;
import io.qdrant.client.grpc.Common.Filter;
import io.qdrant.client.grpc.Common.PointId;
import io.qdrant.client.grpc.Common.Range;
import io.qdrant.client.grpc.Points.PointStruct;
import io.qdrant.client.grpc.Points.RetrievedPoint;
import io.qdrant.client.grpc.Points.ScoredPoint;
import io.qdrant.client.grpc.Points.ScrollPoints;
import io.qdrant.client.grpc.Points.ScrollResponse;
import io.qdrant.client.grpc.Points.SearchPoints;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The double's own semantics, through the raw Qdrant client, for what the store does not exercise: should and
 * must_not, integer/bool/any-of matches on list values, ranges, has_id, is_empty, payload selectors, scroll pages,
 * search offsets, and Qdrant's errors. What these assert is Qdrant's documented behaviour; a double that drifted from
 * it would make the store's contract run prove less.
 */
class QdrantProtocolDoubleTest {
    private static QdrantProtocolDouble qdrant;
    private static QdrantClient client;

    @BeforeAll
    static void start() throws Exception {
        qdrant = QdrantProtocolDouble.start(null);
        client = new QdrantClient(QdrantGrpcClient.newBuilder(qdrant.host(), qdrant.port(), false).build());
        get(client.createCollectionAsync("c", VectorParams.newBuilder().setSize(2).setDistance(Distance.Cosine).build()));
        List<PointStruct> points = new ArrayList<>();
        // ids 1..6; vectors at growing angles from (1, 0); payload: tier (int), vip (bool), tags (list), region
        for (int i = 1; i <= 6; i++) {
            double angle = Math.toRadians(15 * (i - 1));
            PointStruct.Builder p = PointStruct.newBuilder().setId(id(i))
                    .setVectors(vectors((float) (3 * Math.cos(angle)), (float) (3 * Math.sin(angle))))
                    .putPayload("tier", value(i % 3)).putPayload("vip", value(i % 2 == 0))
                    .putPayload("tags", list(i <= 3 ? List.of(value("a"), value("b")) : List.of(value("c"))));
            if (i != 6) p.putPayload("region", value(i <= 2 ? "eu" : "us"));
            points.add(p.build());
        }
        get(client.upsertAsync("c", points));
    }

    @AfterAll
    static void stop() {
        if (client != null) client.close();
        if (qdrant != null) qdrant.close();
    }

    private static <T> T get(Future<T> f) throws Exception {
        return f.get();
    }

    private static List<Long> ids(Filter filter) throws Exception {
        ScrollResponse r = get(client.scrollAsync(ScrollPoints.newBuilder().setCollectionName("c").setFilter(filter).setLimit(100).build()));
        return r.getResultList().stream().map(p -> p.getId().getNum()).toList();
    }

    @Test
    void shouldEvaluateMustShouldAndMustNotOnScalarAndListValues() throws Exception {
        assertEquals(List.of(1L, 2L, 3L), ids(Filter.newBuilder().addMust(matchKeyword("tags", "a")).build()), "any element of a list");
        assertEquals(List.of(2L, 4L, 6L), ids(Filter.newBuilder().addMust(match("vip", true)).build()));
        assertEquals(List.of(3L, 6L), ids(Filter.newBuilder().addMust(match("tier", 0L)).build()));
        assertEquals(List.of(1L, 3L, 4L, 5L), ids(Filter.newBuilder().addShould(matchKeyword("region", "us")).addShould(match("tier", 1L)).build()));
        assertEquals(List.of(3L, 4L, 5L, 6L), ids(Filter.newBuilder().addMustNot(matchKeyword("region", "eu")).build()), "a missing field is not eu");
        assertEquals(List.of(4L), ids(Filter.newBuilder().addMust(matchKeywords("tags", List.of("c", "z"))).addMust(match("vip", true))
                .addMustNot(hasId(id(6))).build()));
        assertEquals(List.of(6L), ids(Filter.newBuilder().addMust(isEmpty("region")).build()));
        assertEquals(List.of(2L, 5L), ids(Filter.newBuilder().addMust(range("tier", Range.newBuilder().setGte(1.5).setLt(3).build())).build()));
        assertEquals(6, get(client.countAsync("c")));
        assertEquals(2, get(client.countAsync("c", Filter.newBuilder().addMust(matchKeyword("region", "eu")).build(), true)));
    }

    @Test
    void shouldRankByCosineWithThresholdOffsetLimitAndFilter() throws Exception {
        SearchPoints.Builder q = SearchPoints.newBuilder().setCollectionName("c").addVector(1).addVector(0).setLimit(3);
        List<ScoredPoint> top = get(client.searchAsync(q.build()));
        assertEquals(List.of(1L, 2L, 3L), top.stream().map(p -> p.getId().getNum()).toList());
        assertEquals(1.0, top.get(0).getScore(), 1e-6, "cosine ignores the vector length");
        assertEquals(Math.cos(Math.toRadians(15)), top.get(1).getScore(), 1e-6);
        assertTrue(top.get(0).getPayloadMap().isEmpty(), "no payload unless asked for");
        assertEquals(List.of(3L, 4L), get(client.searchAsync(q.clone().setOffset(2).setLimit(2).build())).stream().map(p -> p.getId().getNum()).toList());
        assertEquals(List.of(1L, 2L), get(client.searchAsync(q.clone().setScoreThreshold((float) Math.cos(Math.toRadians(20))).build()))
                .stream().map(p -> p.getId().getNum()).toList());
        assertEquals(List.of(2L, 4L), get(client.searchAsync(q.clone().setFilter(Filter.newBuilder().addMust(match("vip", true))).setLimit(2).build()))
                .stream().map(p -> p.getId().getNum()).toList());
    }

    @Test
    void shouldScrollInIdOrderWithNextPageOffsets() throws Exception {
        List<Long> seen = new ArrayList<>();
        PointId offset = null;
        int pages = 0;
        do {
            ScrollPoints.Builder page = ScrollPoints.newBuilder().setCollectionName("c").setLimit(4);
            if (offset != null) page.setOffset(offset);
            ScrollResponse r = get(client.scrollAsync(page.build()));
            r.getResultList().forEach(p -> seen.add(p.getId().getNum()));
            offset = r.hasNextPageOffset() ? r.getNextPageOffset() : null;
            pages++;
        } while (offset != null);
        assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L), seen);
        assertEquals(2, pages);
    }

    @Test
    void shouldSelectPayloadFieldsAndVectors() throws Exception {
        RetrievedPoint p = get(client.retrieveAsync("c", List.of(id(2)), WithPayloadSelectorFactory.include(List.of("tier", "nope")),
                io.qdrant.client.WithVectorsSelectorFactory.enable(true), null)).getFirst();
        assertEquals(Map.of("tier", value(2)), p.getPayloadMap());
        var v = p.getVectors().getVector().getDense().getDataList();
        assertEquals(1.0, v.get(0) * v.get(0) + v.get(1) * v.get(1), 1e-5, "cosine collections keep unit vectors");
        RetrievedPoint q = get(client.retrieveAsync("c", List.of(id(2)), WithPayloadSelectorFactory.exclude(List.of("tags", "vip")),
                io.qdrant.client.WithVectorsSelectorFactory.enable(false), null)).getFirst();
        assertEquals(java.util.Set.of("tier", "region"), q.getPayloadMap().keySet());
        assertFalse(q.hasVectors());
        assertTrue(get(client.retrieveAsync("c", List.of(id(99)), true, false, null)).isEmpty());
    }

    @Test
    void shouldAnswerWithQdrantsErrors() {
        assertEquals(Status.Code.NOT_FOUND, code(() -> get(client.countAsync("missing"))));
        assertEquals(Status.Code.INVALID_ARGUMENT, code(() -> get(client.upsertAsync("c", List.of(PointStruct.newBuilder().setId(id(7))
                .setVectors(vectors(1f, 2f, 3f)).build())))), "wrong dimension");
        assertEquals(Status.Code.ALREADY_EXISTS, code(() -> get(client.createCollectionAsync("c",
                VectorParams.newBuilder().setSize(2).setDistance(Distance.Cosine).build()))));
        assertEquals(Status.Code.UNIMPLEMENTED, code(() -> get(client.scrollAsync(ScrollPoints.newBuilder().setCollectionName("c")
                .setFilter(Filter.newBuilder().addMust(io.qdrant.client.ConditionFactory.matchText("region", "eu"))).build()))),
                "what the double does not model fails loudly");
    }

    private interface Call {
        Object run() throws Exception;
    }

    private static Status.Code code(Call call) {
        ExecutionException e = assertThrows(ExecutionException.class, call::run);
        return ((StatusRuntimeException) e.getCause()).getStatus().getCode();
    }
}
