package dev.sqloop.fewshot;

import dev.sqloop.common.message.EmptyAnswer;
import dev.sqloop.common.message.ExampleIds;
import dev.sqloop.common.message.Issue;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.runtime.AbstractStage;
import dev.sqloop.common.runtime.Outcome;
import dev.sqloop.common.runtime.StageMetrics;
import dev.sqloop.store.Embedder;
import dev.sqloop.store.ErrorFix;
import dev.sqloop.store.ExampleStore;
import dev.sqloop.store.StoredExample;
import java.time.Clock;
import java.util.List;
import java.util.Optional;

/**
 * Auto-capture on {@code success}: stores the question→SQL pair (by default only when the query returned rows, and not
 * an empty answer: one row of NULLs, or a success the executor marked with its empty-answer hint)
 * and, when the success came after a repair, the error→fix pair embedded by the error text. Questions a curator
 * marked wrong are never captured, and a curated (seed or manual) example is never overwritten by an automatic one.
 *
 * <p>The success message does not carry the failed attempt's issues ({@code withSql} clears them); the failed SQL
 * is {@code previousSql}, and the error is the previous attempt's first issue ({@code previousIssues}).
 * A captured example is published on {@code examples}, owned by the tenant whose question it answered and visible
 * to that tenant only (its id includes the owner: two tenants capturing the same question get two examples).
 * A question submitted with capture off ({@link QuestionTask#capture()}, as eval submits) is not captured at all.
 */
public final class CaptureStage extends AbstractStage<QuestionTask> {
    public static final String NAME = "capture";
    public static final String DIALECT = "dialect";

    private final Embedder embedder;
    private final ExampleStore store;
    private final FewshotConfig config;
    private final StageMetrics metrics;
    private final Clock clock;
    private final QuestionVectors vectors;

    public CaptureStage(Embedder embedder, ExampleStore store, FewshotConfig config, StageMetrics metrics, Clock clock) {
        this(embedder, store, config, metrics, clock, QuestionVectors.NONE);
    }

    /** @param vectors the questions' vectors retrieval left in this process: a captured question is not embedded again */
    public CaptureStage(Embedder embedder, ExampleStore store, FewshotConfig config, StageMetrics metrics, Clock clock,
                        QuestionVectors vectors) {
        super(NAME, QuestionTask.class);
        this.vectors = vectors;
        this.embedder = embedder;
        this.store = store;
        this.config = config;
        this.metrics = metrics;
        this.clock = clock;
    }

    @Override
    public Outcome process(QuestionTask task) {
        float[] retrieved = vectors.take(task.questionId(), task.question()); // taken whatever happens next: nothing stays behind
        // an evaluation's question: neither the example nor an error->fix pair, so every run it compares reads the same memory
        if (!task.capturable()) return Outcome.drop("capture off");
        if (task.sql() == null || task.sql().isBlank()) return Outcome.drop("no sql");
        if (config.captureRequireRows() && (task.execution() == null || task.execution().rowCount() <= 0)) {
            return Outcome.drop("no rows returned");
        }
        // one row of NULLs answers nothing either: the executor's empty-answer hint and this rule agree (issue 46)
        if (config.captureRequireRows() && (EmptyAnswer.empty(task.execution()) || EmptyAnswer.anyFinding(task.issues()))) {
            return Outcome.drop("empty answer");
        }
        String owner = ExampleIds.owner(task.tenant());
        if (store.isMarkedWrong(task.datasource(), task.question()) || store.isMarkedWrong(task.datasource(), task.question(), owner)) {
            return Outcome.drop("marked wrong");
        }
        // the gateway resolved it; a task from an older producer may still name it in its metadata
        String dialect = task.dialect() != null ? task.dialect().wireName() : task.metadata().getOrDefault(DIALECT, config.defaultDialect());
        // the tenant's own curated example, or a shared one (always curated), is kept: the capture would add nothing
        Optional<StoredExample> own = store.find(task.datasource(), task.question(), owner);
        boolean curated = own.map(e -> !StoredExample.AUTO.equals(e.source())).orElse(false)
                || store.find(task.datasource(), task.question()).isPresent();
        // the same answer captured before: no embedding, no index write, no event (a batch repeats its questions)
        boolean known = own.map(e -> StoredExample.AUTO.equals(e.source()) && e.sql().equals(task.sql()) && java.util.Objects.equals(e.dialect(), dialect))
                .orElse(false);
        StoredExample captured = new StoredExample(task.datasource(), task.question(), task.sql(), dialect, StoredExample.AUTO,
                clock.instant(), owner, null, List.of(), false);
        if (!curated && !known) {
            store.upsert(captured, retrieved != null ? retrieved : embedder.embed(task.question()));
            metrics.capture();
        }
        boolean fixed = task.attempt() > 1 && task.previousSql() != null && !task.previousSql().equals(task.sql());
        Optional<String[]> error = fixed ? previousError(task) : Optional.empty();
        // the same fix of the same error learnt before (a batch repeats its mistakes): no embedding, no index write
        error.filter(e -> !store.hasFix(task.datasource(), e[1], task.sql()))
                .ifPresent(e -> store.upsertFix(new ErrorFix(task.datasource(), e[1], e[0], task.previousSql(), task.sql(),
                        dialect, task.question(), clock.instant()), embedder.embed(e[1])));
        String what = error.isPresent() ? " with error-fix pair" : "";
        if (curated) return Outcome.drop("curated example kept" + what);
        return known ? Outcome.drop("already captured" + what) : ExampleTopic.captured("captured", captured, task.batchId(), task.questionId());
    }

    /** {category, error text} of the attempt before the successful one: the issues the repair was made for. */
    static Optional<String[]> previousError(QuestionTask task) {
        return task.previousIssues().stream().filter(i -> !i.message().isBlank()).findFirst()
                .map(i -> new String[] {i.category().wireName(), i.message()});
    }
}
