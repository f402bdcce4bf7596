package dev.sqloop.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.testkit.engines.ChromaServer;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The store contract on {@link ChromaExampleStore} against a real Chroma server (1.0.0, started by testkit's
 * {@link ChromaServer}, one for the class), plus what is specific to Chroma: what survives a server restart, a second
 * client seeing the first one's writes, and collections made for other vectors refused at open.
 */
class ChromaExampleStoreIT extends ExampleStoreContract {
    private static ChromaServer chroma;
    private String prefix;

    @BeforeAll
    static void startChroma() {
        chroma = ChromaServer.start();
    }

    @AfterAll
    static void stopChroma() {
        if (chroma != null) chroma.close();
    }

    @Override
    protected ExampleStore newStore() {
        // fresh collections per test: each test starts from an empty store
        prefix = "t" + UUID.randomUUID().toString().replace("-", "");
        return connect(prefix, DIM);
    }

    private static ChromaExampleStore connect(String prefix, int dimension) {
        return ChromaExampleStore.connect(chroma.url(), "default_tenant", "default_database", prefix, dimension);
    }

    @Test
    void shouldKeepExamplesFixesMarksAndDeletionsAcrossAServerRestart() {
        float[] v = randomVector(21);
        store.upsert(example("shop", "kept", "SELECT 'kept'"), v);
        store.upsert(example("shop", "deleted", "SELECT 'deleted'"), near(v, 22, 0.01));
        store.upsertFix(new ErrorFix("shop", "syntax error at FORM", "syntax_error", "SELECT 1 FORM t", "SELECT 1 FROM t",
                "duckdb", "q", null), v);
        store.delete("shop", "deleted");
        store.markWrong("shop", "Which products sell best?");
        store.close();
        chroma.stop();
        chroma.restart();
        store = connect(prefix, DIM);
        assertEquals(1, store.count());
        assertEquals(1, store.countFixes());
        assertEquals("SELECT 'kept'", store.find("shop", "kept").orElseThrow().sql());
        assertEquals(1, store.search("shop", v, 5, -1).size(), "the deleted example stays deleted after restart");
        assertTrue(store.isMarkedWrong("shop", "which products sell best"));
    }

    @Test
    void shouldSeeWhatAnotherClientWrote() {
        store.upsert(example("shop", "How many orders?", "SELECT count(*) FROM orders"), randomVector(1));
        try (ChromaExampleStore other = connect(prefix, DIM)) {
            assertEquals("SELECT count(*) FROM orders", other.find("shop", "how many orders").orElseThrow().sql());
            assertEquals(1, other.search("shop", randomVector(1), 1, 0.99).size());
        }
    }

    @Test
    void shouldRefuseCollectionsMadeForAnotherEmbeddingModel() {
        // one sqloop opened for 768-d vectors (the collection says so before it holds any)
        String other = "t" + UUID.randomUUID().toString().replace("-", "");
        try (ChromaExampleStore old = connect(other, 768)) {
            assertEquals(0, old.count());
        }
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> connect(other, DIM).close());
        assertTrue(e.getMessage().contains(other + "_examples") && e.getMessage().contains("768-d"), e.getMessage());

        // one made by hand with Chroma's default distance (l2) and 3-d vectors, no sqloop metadata
        String byHand = "t" + UUID.randomUUID().toString().replace("-", "");
        try (ChromaClient client = new ChromaClient(chroma.url(), "default_tenant", "default_database")) {
            ChromaClient.Collection c = client.create(byHand + "_examples");
            client.upsert(c.id(), List.of("x"), List.of(new float[] {1, 0, 0}), List.of("q"), List.of(Map.of("datasource", "shop")));
        }
        e = assertThrows(IllegalStateException.class, () -> connect(byHand, DIM).close());
        assertTrue(e.getMessage().contains(byHand + "_examples") && e.getMessage().contains("3-d l2"), e.getMessage());
    }

    @Test
    void shouldOpenInAnotherTenantAndDatabaseCreatedOnFirstUse() {
        String tenant = "tenant" + UUID.randomUUID().toString().substring(0, 8);
        try (ChromaExampleStore s = ChromaExampleStore.connect(chroma.url(), tenant, "examples", prefix, DIM)) {
            s.upsert(example("shop", "elsewhere", "SELECT 'elsewhere'"), randomVector(2));
            assertEquals(1, s.count());
        }
        assertEquals(0, store.count(), "same collection names, another database: apart");
    }

    @Test
    void shouldSayChromaIsUnavailableWhenNothingAnswers() {
        int nothing = dev.sqloop.testkit.Ports.free();
        ChromaClient.ChromaUnavailableException e = assertThrows(ChromaClient.ChromaUnavailableException.class,
                () -> ChromaExampleStore.connect("http://127.0.0.1:" + nothing, "default_tenant", "default_database", "x" + prefix, DIM));
        assertTrue(e.getMessage().contains("127.0.0.1:" + nothing), e.getMessage());
    }
}
