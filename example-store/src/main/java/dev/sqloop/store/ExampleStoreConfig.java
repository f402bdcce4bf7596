package dev.sqloop.store;

import dev.sqloop.common.config.ConfigException;
import dev.sqloop.common.config.EnvConfig;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/**
 * Where the example memory lives, from the {@code SQLOOP_FEWSHOT_STORE}, {@code _LUCENE_PATH}, {@code _QDRANT_*},
 * {@code _CHROMA_*} and {@code _FIX_MIN_SCORE} variables (the fewshot service and the generator's repair worker read the same ones).
 *
 * @param kind {@link Kind#LUCENE} (embedded, on disk, one process; default), {@link Kind#QDRANT} or {@link Kind#CHROMA} (shared)
 * @param lucenePath the Lucene index directory
 * @param qdrantPrefix collection name prefix ({@code <prefix>_examples}, {@code _error_fixes}, {@code _marked_wrong})
 * @param fixMinScore cosine similarity an error→fix pair needs to count as a similar past fix
 * @param embeddingModel the build of all-MiniLM-L6-v2 whose vectors the store holds and its readers query with
 *                       ({@code SQLOOP_EMBEDDING_MODEL}: {@code all-minilm-l6-v2}, the default, or the int8
 *                       {@code all-minilm-l6-v2-q}); every process that embeds for the same store uses the same one
 * @param luceneCommitGap while Lucene writes overlap, the least time between two commits (they share them)
 * @param chromaUrl the Chroma server ({@code http://host:port}), its HTTP API v2
 * @param chromaTenant the Chroma tenant (created when missing)
 * @param chromaDatabase the Chroma database of that tenant (created when missing)
 * @param chromaPrefix Chroma collection name prefix ({@code <prefix>_examples}, {@code _error_fixes}, {@code _marked_wrong})
 */
public record ExampleStoreConfig(Kind kind, Path lucenePath, String qdrantHost, int qdrantPort, String qdrantApiKey,
                                 boolean qdrantTls, String qdrantPrefix, double fixMinScore, Embedder.Model embeddingModel,
                                 java.time.Duration luceneCommitGap, String chromaUrl, String chromaTenant, String chromaDatabase,
                                 String chromaPrefix) {

    public enum Kind { LUCENE, QDRANT, CHROMA }

    public static ExampleStoreConfig fromEnv(EnvConfig env) {
        String kind = env.string("SQLOOP_FEWSHOT_STORE", "lucene").toLowerCase(Locale.ROOT);
        if (!kind.equals("lucene") && !kind.equals("qdrant") && !kind.equals("chroma")) {
            throw new ConfigException("SQLOOP_FEWSHOT_STORE must be lucene, qdrant or chroma, was '" + kind + "'");
        }
        return new ExampleStoreConfig(Kind.valueOf(kind.toUpperCase(Locale.ROOT)),
                Path.of(env.string("SQLOOP_FEWSHOT_LUCENE_PATH", "data/fewshot-index")),
                env.string("SQLOOP_FEWSHOT_QDRANT_HOST", "localhost"),
                env.integer("SQLOOP_FEWSHOT_QDRANT_PORT", 6334, 1, 65535),
                env.string("SQLOOP_FEWSHOT_QDRANT_API_KEY", null),
                env.bool("SQLOOP_FEWSHOT_QDRANT_TLS", false),
                env.string("SQLOOP_FEWSHOT_QDRANT_COLLECTION_PREFIX", "sqloop"),
                env.decimal("SQLOOP_FEWSHOT_FIX_MIN_SCORE", 0.6),
                embeddingModel(env.string("SQLOOP_EMBEDDING_MODEL", Embedder.Model.DEFAULT.wireName())),
                env.duration("SQLOOP_FEWSHOT_LUCENE_COMMIT_GAP", LuceneExampleStore.DEFAULT_COMMIT_GAP),
                chromaUrl(env.string("SQLOOP_FEWSHOT_CHROMA_URL", "http://localhost:8000")),
                env.string("SQLOOP_FEWSHOT_CHROMA_TENANT", "default_tenant"),
                env.string("SQLOOP_FEWSHOT_CHROMA_DATABASE", "default_database"),
                env.string("SQLOOP_FEWSHOT_CHROMA_COLLECTION_PREFIX", "sqloop"));
    }

    private static String chromaUrl(String url) {
        java.net.URI u;
        try {
            u = java.net.URI.create(url);
        } catch (IllegalArgumentException e) {
            throw new ConfigException("SQLOOP_FEWSHOT_CHROMA_URL is not a URL: '" + url + "'");
        }
        if (!("http".equals(u.getScheme()) || "https".equals(u.getScheme())) || u.getHost() == null) {
            throw new ConfigException("SQLOOP_FEWSHOT_CHROMA_URL must be http(s)://host:port, was '" + url + "'");
        }
        return url;
    }

    private static Embedder.Model embeddingModel(String name) {
        Embedder.Model m = Embedder.Model.named(name);
        if (m == null) {
            throw new ConfigException("SQLOOP_EMBEDDING_MODEL must be one of " + java.util.Arrays.stream(Embedder.Model.values())
                    .map(Embedder.Model::wireName).toList() + ", was '" + name + "'");
        }
        return m;
    }

    /** The embedder this store's vectors are made with (loads the model: one per process). */
    public Embedder newEmbedder() {
        return new Embedder(embeddingModel);
    }

    /** The defaults, as a process started with none of these variables gets them. */
    public static ExampleStoreConfig defaults() {
        return fromEnv(new EnvConfig(Map.of()));
    }

    /** Whether another process can read what this one writes (Qdrant, Chroma); the Lucene index belongs to one process. */
    public boolean shared() {
        return kind != Kind.LUCENE;
    }

    /** Where the store is, for messages: "the Lucene index at …", "Qdrant at …", "Chroma at …". */
    public String location() {
        return switch (kind) {
            case LUCENE -> "the Lucene index at " + lucenePath.toAbsolutePath() + " (SQLOOP_FEWSHOT_LUCENE_PATH)";
            case QDRANT -> "Qdrant at " + qdrantHost + ":" + qdrantPort;
            case CHROMA -> "Chroma at " + chromaUrl + " (collections " + chromaPrefix + "_*)";
        };
    }

    @Override
    public String toString() {
        return "ExampleStoreConfig[" + switch (kind) {
            case QDRANT -> "qdrant=" + qdrantHost + ":" + qdrantPort + ", tls=" + qdrantTls + ", apiKey=" + (qdrantApiKey == null ? "none" : "****")
                    + ", prefix=" + qdrantPrefix;
            case CHROMA -> "chroma=" + chromaUrl + ", tenant=" + chromaTenant + ", database=" + chromaDatabase + ", prefix=" + chromaPrefix;
            case LUCENE -> "lucene=" + lucenePath;
        } + ", fixMinScore=" + fixMinScore + ", embeddingModel=" + embeddingModel.wireName() + "]";
    }
}
