package dev.sqloop.store;

import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;

/**
 * The same contract on a real Qdrant server in a container: what {@link QdrantExampleStoreTest} cannot show against
 * the protocol double (Qdrant's own HNSW search, storage and filter implementation, and that the protocol double
 * agrees with them). Skipped (not failed) where no Docker daemon answers, as on the build machines without Docker.
 */
class QdrantExampleStoreIT extends ExampleStoreContract {
    private static GenericContainer<?> qdrant;

    @BeforeAll
    static void startQdrant() {
        Assumptions.assumeTrue(dockerAvailable(), "no Docker: real-Qdrant contract skipped");
        qdrant = new GenericContainer<>("qdrant/qdrant:v1.15.4").withExposedPorts(6334)
                .waitingFor(Wait.forListeningPort());
        qdrant.start();
    }

    private static boolean dockerAvailable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (Throwable t) {
            return false;
        }
    }

    @AfterAll
    static void stopQdrant() {
        if (qdrant != null) qdrant.stop();
    }

    @Override
    protected ExampleStore newStore() {
        // a fresh collection prefix per test: each test starts from an empty store
        String prefix = "t" + UUID.randomUUID().toString().replace("-", "");
        return QdrantExampleStore.connect(qdrant.getHost(), qdrant.getMappedPort(6334), null, false, prefix, Embedder.DIMENSION);
    }
}
