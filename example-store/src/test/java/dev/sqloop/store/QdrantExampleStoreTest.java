package dev.sqloop.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.qdrant.client.grpc.Collections.PayloadSchemaType;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The store contract on {@link QdrantExampleStore} through the real Qdrant client, over gRPC on a loopback port,
 * against {@link QdrantProtocolDouble} (not a Qdrant server: see its comment for what that proves and what only
 * {@link QdrantExampleStoreIT} can). Plus what is specific to talking to a server: api key, creation races, waits.
 */
class QdrantExampleStoreTest extends ExampleStoreContract {
    private static final String API_KEY = "contract-key";
    private static QdrantProtocolDouble qdrant;
    private String prefix;

    @BeforeAll
    static void startDouble() {
        qdrant = QdrantProtocolDouble.start(API_KEY);
    }

    @AfterAll
    static void stopDouble() {
        if (qdrant != null) qdrant.close();
    }

    @Override
    protected ExampleStore newStore() {
        // a fresh collection prefix per test: each test starts from an empty store
        prefix = "t" + UUID.randomUUID().toString().replace("-", "");
        return connect(prefix, API_KEY);
    }

    private static QdrantExampleStore connect(String prefix, String apiKey) {
        return QdrantExampleStore.connect(qdrant.host(), qdrant.port(), apiKey, false, prefix, DIM);
    }

    @AfterEach
    void everyWriteWaitedForQdrant() {
        qdrant.loseNextCreateRaces(0);
        // the store promises durable, visible writes when a method returns: only wait=true gives that on Qdrant
        assertEquals(0, qdrant.writesWithoutWait(), "writes sent without wait=true");
    }

    @Test
    void shouldCreateItsCollectionsWithADatasourceKeywordIndex() {
        assertEquals(EXAMPLE_INDEXES, qdrant.payloadIndexes(prefix + "_examples"), "the datasource and visibility of examples");
        for (String c : new String[] {prefix + "_error_fixes", prefix + "_marked_wrong"}) {
            assertEquals(Map.of("datasource", PayloadSchemaType.Keyword), qdrant.payloadIndexes(c), c);
        }
    }

    private static final Map<String, PayloadSchemaType> EXAMPLE_INDEXES = Map.of("datasource", PayloadSchemaType.Keyword,
            "shared", PayloadSchemaType.Bool, "owner", PayloadSchemaType.Keyword);

    @Test
    void shouldOpenAnExistingStoreAndSeeWhatAnotherClientWrote() {
        store.upsert(example("shop", "How many orders?", "SELECT count(*) FROM orders"), randomVector(1));
        try (QdrantExampleStore other = connect(prefix, API_KEY)) {
            assertEquals("SELECT count(*) FROM orders", other.find("shop", "how many orders").orElseThrow().sql());
        }
    }

    @Test
    void shouldOpenWhenAnotherServiceCreatesTheCollectionsAtTheSameTime() {
        // the fewshot service and the generator's repair worker open the same collections when they start together
        store.close();
        String shared = "race" + UUID.randomUUID().toString().replace("-", "");
        qdrant.loseNextCreateRaces(3);
        store = connect(shared, API_KEY);
        store.upsert(example("shop", "How many orders?", "SELECT 1"), randomVector(2));
        assertEquals(1, store.search("shop", randomVector(2), 1, 0.9).size());
        assertEquals(EXAMPLE_INDEXES, qdrant.payloadIndexes(shared + "_examples"));
    }

    @Test
    void shouldRefuseCollectionsMadeForAnotherEmbeddingModel() {
        String other = "t" + UUID.randomUUID().toString().replace("-", "");
        try (QdrantExampleStore old = QdrantExampleStore.connect(qdrant.host(), qdrant.port(), API_KEY, false, other, 768)) {
            assertEquals(0, old.count());
        }
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> connect(other, API_KEY).close());
        assertTrue(e.getMessage().contains(other + "_examples") && e.getMessage().contains("768-d"), e.getMessage());
    }

    @Test
    void shouldRefuseToWorkWithAWrongApiKey() {
        QdrantExampleStore.QdrantUnavailableException e = assertThrows(QdrantExampleStore.QdrantUnavailableException.class,
                () -> connect("t" + UUID.randomUUID().toString().replace("-", ""), "wrong-key").close());
        assertTrue(e.getMessage().contains("UNAUTHENTICATED"), e.getMessage());
    }
}
