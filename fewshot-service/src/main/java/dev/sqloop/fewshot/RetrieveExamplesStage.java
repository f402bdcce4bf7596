package dev.sqloop.fewshot;

import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.Whitespace;
import dev.sqloop.common.message.Example;
import dev.sqloop.common.message.ExampleIds;
import dev.sqloop.common.message.LinkedSchema;
import dev.sqloop.common.message.NlConstraints;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.metrics.Metrics;
import dev.sqloop.common.runtime.AbstractStage;
import dev.sqloop.common.runtime.Outcome;
import dev.sqloop.common.runtime.Stage;
import dev.sqloop.common.runtime.StageMetrics;
import dev.sqloop.fewshot.schema.SchemaLinker;
import dev.sqloop.store.Embedder;
import dev.sqloop.store.ExampleStore;
import dev.sqloop.store.Scored;
import dev.sqloop.store.StoredExample;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code retrieve-examples} → {@code generate}: embeds the question once, fetches the most similar examples of the
 * datasource, links the schema and extracts the NL constraints, all carried in the message for every attempt.
 * A question already answered (same question after normalization, or similar enough when configured) skips the
 * LLM: its stored SQL goes to {@code static-validate} as attempt 1, and validation and execution still run.
 * Both use only the examples the asking tenant may see: the shared ones (seeds, curator-shared) and its own.
 * Reports the embedding + search time of every question, and the examples of those that go to the LLM.
 */
public final class RetrieveExamplesStage extends AbstractStage<QuestionTask> {
    public static final String NAME = "retrieve-examples";
    /** Counter, tags datasource, kind = exact | similar: questions answered from memory without an LLM call. */
    public static final String SHORTCUTS = Metrics.FEWSHOT_SHORTCUTS;

    private static final Logger log = LoggerFactory.getLogger(RetrieveExamplesStage.class);

    private final Embedder embedder;
    private final ExampleStore store;
    private final SchemaLinker linker;
    private final ConstraintExtractor constraints;
    private final FewshotConfig config;
    private final StageMetrics metrics;
    private final QuestionVectors vectors;

    public RetrieveExamplesStage(Embedder embedder, ExampleStore store, SchemaLinker linker, ConstraintExtractor constraints,
                                 FewshotConfig config, StageMetrics metrics) {
        this(embedder, store, linker, constraints, config, metrics, QuestionVectors.NONE);
    }

    /** @param vectors where each question's vector is left for capture in this process */
    public RetrieveExamplesStage(Embedder embedder, ExampleStore store, SchemaLinker linker, ConstraintExtractor constraints,
                                 FewshotConfig config, StageMetrics metrics, QuestionVectors vectors) {
        super(NAME, QuestionTask.class);
        this.vectors = vectors;
        this.embedder = embedder;
        this.store = store;
        this.linker = linker;
        this.constraints = constraints;
        this.config = config;
        this.metrics = metrics;
    }

    /** The pipeline's entry: a question's deadline counts from here (the wait behind its batch is not charged). */
    @Override
    public boolean startsQuestions() {
        return true;
    }

    @Override
    public Outcome process(QuestionTask task) throws Exception {
        long start = System.nanoTime();
        float[] vector = embedder.embed(task.question());
        vectors.put(task.questionId(), task.question(), vector);
        // twice k: near-duplicates are dropped after the search
        // only what the asking tenant may see (shared examples and its own), filtered inside the search
        List<Scored<StoredExample>> hits = config.topK() == 0 ? List.of()
                : store.search(task.datasource(), ExampleIds.owner(task.tenant()), vector, config.topK() * 2, config.minScore());
        metrics.fewshotRetrieval(Duration.ofNanos(System.nanoTime() - start));
        List<Example> examples = distinct(hits);
        LinkedSchema schema = link(task, vector);
        NlConstraints nl = constraints.extract(task.question());
        QuestionTask enriched = task.withContext(examples, schema, nl);

        Optional<String> shortcut = shortcut(task, hits);
        long millis = (System.nanoTime() - start) / 1_000_000;
        if (shortcut.isPresent()) {
            QuestionTask answered = enriched.withSql(shortcut.get(), null).withTiming(NAME, millis);
            return Outcome.send("shortcut", Topics.STATIC_VALIDATE, answered);
        }
        metrics.fewshotHits(examples.size());
        return Outcome.forward(Topics.GENERATE, enriched.withTiming(NAME, millis));
    }

    /** Without a reachable schema the question still goes on: the generator works from examples alone. */
    private LinkedSchema link(QuestionTask task, float[] vector) {
        try {
            return linker.link(task.datasource(), task.question(), vector);
        } catch (Exception e) {
            log.warn("schema linking failed for datasource {}: {}", task.datasource(), Stage.describe(e));
            return new LinkedSchema(List.of());
        }
    }

    private Optional<String> shortcut(QuestionTask task, List<Scored<StoredExample>> hits) {
        if (task.attempt() != 1) return Optional.empty();
        if (config.shortcutExact()) {
            Optional<StoredExample> same = sameQuestion(task);
            if (same.isPresent()) {
                metrics.shortcut(task.datasource(), "exact");
                return Optional.of(same.get().sql());
            }
        }
        if (!hits.isEmpty() && hits.getFirst().score() >= config.shortcutSimilarity()) {
            metrics.shortcut(task.datasource(), "similar");
            return Optional.of(hits.getFirst().value().sql());
        }
        return Optional.empty();
    }

    /**
     * The stored answer to this very question that the asking tenant may see: its own or the shared one, a curated
     * (seed or manual) one before a captured one, and its own before the shared one otherwise. Never another tenant's.
     */
    private Optional<StoredExample> sameQuestion(QuestionTask task) {
        String owner = ExampleIds.owner(task.tenant());
        Optional<StoredExample> own = store.find(task.datasource(), task.question(), owner);
        if (own.isPresent() && !StoredExample.AUTO.equals(own.get().source())) return own;
        Optional<StoredExample> shared = store.find(task.datasource(), task.question());
        return shared.isPresent() ? shared : own;
    }

    /**
     * Best first; an example whose SQL or wording repeats a kept one adds nothing to the prompt. Each hit's SQL key
     * and word set are computed once (they were computed again for every pair, up to a tenth of the stage's CPU).
     */
    private List<Example> distinct(List<Scored<StoredExample>> hits) {
        List<Example> kept = new ArrayList<>();
        List<String> keptSql = new ArrayList<>();
        List<java.util.Set<String>> keptWords = new ArrayList<>();
        for (Scored<StoredExample> h : hits) {
            if (kept.size() >= config.topK()) break;
            String sql = sqlKey(h.value().sql());
            java.util.Set<String> words = Questions.words(h.value().question());
            boolean duplicate = false;
            for (int k = 0; k < kept.size() && !duplicate; k++) {
                duplicate = keptSql.get(k).equals(sql) || Questions.wordOverlap(keptWords.get(k), words) >= config.duplicateOverlap();
            }
            if (!duplicate) {
                kept.add(new Example(h.value().question(), h.value().sql(), h.score(), h.value().source()));
                keptSql.add(sql);
                keptWords.add(words);
            }
        }
        return kept;
    }

    /** The SQL stripped, without its final semicolon, whitespace folded, lower case. */
    private static String sqlKey(String sql) {
        String s = sql.strip();
        if (s.endsWith(";")) s = s.substring(0, s.length() - 1);
        return Whitespace.collapse(s).toLowerCase(java.util.Locale.ROOT);
    }
}
