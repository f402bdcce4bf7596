package dev.sqloop.store;

/** Opens the configured example store: the one entry point every process uses. */
public final class ExampleStores {
    private ExampleStores() {}

    /** Lucene on disk (one process only), Qdrant or Chroma (shared by every service), for {@link Embedder#DIMENSION}-d vectors. */
    public static ExampleStore open(ExampleStoreConfig config) {
        return switch (config.kind()) {
            case QDRANT -> QdrantExampleStore.connect(config.qdrantHost(), config.qdrantPort(), config.qdrantApiKey(),
                    config.qdrantTls(), config.qdrantPrefix(), Embedder.DIMENSION);
            case CHROMA -> ChromaExampleStore.connect(config.chromaUrl(), config.chromaTenant(), config.chromaDatabase(),
                    config.chromaPrefix(), Embedder.DIMENSION);
            case LUCENE -> LuceneExampleStore.open(config.lucenePath(), config.luceneCommitGap());
        };
    }
}
