package dev.sqloop.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.config.ConfigException;
import dev.sqloop.common.config.EnvConfig;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ExampleStoreConfigTest {
    @Test
    void shouldDefaultToTheEmbeddedLuceneStoreWhichNoOtherProcessCanRead() {
        ExampleStoreConfig c = ExampleStoreConfig.defaults();
        assertEquals(ExampleStoreConfig.Kind.LUCENE, c.kind());
        assertEquals(Path.of("data/fewshot-index"), c.lucenePath());
        assertEquals(0.6, c.fixMinScore());
        assertFalse(c.shared());
        assertEquals(Embedder.Model.ALL_MINILM_L6_V2_Q, c.embeddingModel(), "the int8 build unless told otherwise");
        assertEquals(java.time.Duration.ofMillis(200), c.luceneCommitGap());
        assertEquals(java.time.Duration.ZERO,
                ExampleStoreConfig.fromEnv(new EnvConfig(Map.of("SQLOOP_FEWSHOT_LUCENE_COMMIT_GAP", "0"))).luceneCommitGap());
    }

    @Test
    void shouldReadTheEmbeddingModelAndRejectAnUnknownOne() {
        assertEquals(Embedder.Model.ALL_MINILM_L6_V2,
                ExampleStoreConfig.fromEnv(new EnvConfig(Map.of("SQLOOP_EMBEDDING_MODEL", "All-MiniLM-L6-v2"))).embeddingModel());
        ConfigException e = assertThrows(ConfigException.class,
                () -> ExampleStoreConfig.fromEnv(new EnvConfig(Map.of("SQLOOP_EMBEDDING_MODEL", "bge-small"))));
        assertTrue(e.getMessage().contains("SQLOOP_EMBEDDING_MODEL") && e.getMessage().contains("all-minilm-l6-v2-q"), e.getMessage());
    }

    @Test
    void shouldReadTheQdrantSettingsAndNeverPrintTheApiKey() {
        ExampleStoreConfig c = ExampleStoreConfig.fromEnv(new EnvConfig(Map.of("SQLOOP_FEWSHOT_STORE", "Qdrant",
                "SQLOOP_FEWSHOT_QDRANT_HOST", "qdrant.internal", "SQLOOP_FEWSHOT_QDRANT_PORT", "7334",
                "SQLOOP_FEWSHOT_QDRANT_API_KEY", "s3cret", "SQLOOP_FEWSHOT_QDRANT_TLS", "true",
                "SQLOOP_FEWSHOT_QDRANT_COLLECTION_PREFIX", "prod", "SQLOOP_FEWSHOT_FIX_MIN_SCORE", "0.7")));
        assertEquals(ExampleStoreConfig.Kind.QDRANT, c.kind());
        assertTrue(c.shared());
        assertEquals("qdrant.internal", c.qdrantHost());
        assertEquals(7334, c.qdrantPort());
        assertTrue(c.qdrantTls());
        assertEquals("prod", c.qdrantPrefix());
        assertEquals(0.7, c.fixMinScore());
        assertFalse(c.toString().contains("s3cret"), c.toString());
    }

    @Test
    void shouldRejectAnUnknownStore() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> ExampleStoreConfig.fromEnv(new EnvConfig(Map.of("SQLOOP_FEWSHOT_STORE", "milvus"))));
        assertTrue(e.getMessage().contains("SQLOOP_FEWSHOT_STORE") && e.getMessage().contains("chroma"), e.getMessage());
    }

    @Test
    void shouldReadTheChromaSettingsAsASharedStore() {
        ExampleStoreConfig c = ExampleStoreConfig.fromEnv(new EnvConfig(Map.of("SQLOOP_FEWSHOT_STORE", "Chroma",
                "SQLOOP_FEWSHOT_CHROMA_URL", "http://chroma.internal:8000", "SQLOOP_FEWSHOT_CHROMA_TENANT", "acme",
                "SQLOOP_FEWSHOT_CHROMA_DATABASE", "sqloop", "SQLOOP_FEWSHOT_CHROMA_COLLECTION_PREFIX", "prod")));
        assertEquals(ExampleStoreConfig.Kind.CHROMA, c.kind());
        assertTrue(c.shared(), "the repair worker reads what the fewshot service writes");
        assertEquals("http://chroma.internal:8000", c.chromaUrl());
        assertEquals("acme", c.chromaTenant());
        assertEquals("sqloop", c.chromaDatabase());
        assertEquals("prod", c.chromaPrefix());
        assertTrue(c.location().contains("http://chroma.internal:8000") && c.location().contains("prod_*"), c.location());
        ExampleStoreConfig d = ExampleStoreConfig.fromEnv(new EnvConfig(Map.of("SQLOOP_FEWSHOT_STORE", "chroma")));
        assertEquals(List.of("http://localhost:8000", "default_tenant", "default_database", "sqloop"),
                List.of(d.chromaUrl(), d.chromaTenant(), d.chromaDatabase(), d.chromaPrefix()));
        ConfigException e = assertThrows(ConfigException.class, () -> ExampleStoreConfig.fromEnv(new EnvConfig(Map.of(
                "SQLOOP_FEWSHOT_STORE", "chroma", "SQLOOP_FEWSHOT_CHROMA_URL", "chroma.internal:8000"))));
        assertTrue(e.getMessage().contains("SQLOOP_FEWSHOT_CHROMA_URL"), e.getMessage());
    }
}
