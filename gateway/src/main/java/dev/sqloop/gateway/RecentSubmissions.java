package dev.sqloop.gateway;

import dev.sqloop.common.message.BatchManifest;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.gateway.Answers.BatchReport;
import dev.sqloop.gateway.Answers.QuestionStatus;
import dev.sqloop.gateway.Views.BatchStatus;
import dev.sqloop.gateway.Views.QuestionState;
import dev.sqloop.gateway.Views.Submission;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * What this instance accepted in the last minutes, so that its own answers hold until the results view has read them
 * back from Kafka: the view learns a submission by consuming it, which takes from a few hundred milliseconds on a
 * quiet system to seconds behind a big batch, and meanwhile the {@code statusUrl} just handed out would answer 404, a
 * cancel would find nothing to cancel, and a repeated {@code clientId} would be enqueued twice. A question or batch is
 * answered from here only when the view does not know it yet (it is then {@code queued}, as the view would show it),
 * and forgotten once the view has it, after {@link #TTL}, or when more than {@link #MAX_ENTRIES} are held (oldest
 * first). Another instance answers once its view has the submission: a client reads its own submissions at once
 * through the instance that accepted them.
 */
final class RecentSubmissions {
    static final Duration TTL = Duration.ofMinutes(10);
    static final int MAX_ENTRIES = 20_000;

    private record Entry<T>(String tenant, Instant at, T shown) {}

    private final Clock clock;
    private final LinkedHashMap<String, Entry<QuestionStatus>> questions = new LinkedHashMap<>();
    private final LinkedHashMap<String, Entry<BatchReport>> batches = new LinkedHashMap<>();

    RecentSubmissions(Clock clock) {
        this.clock = clock;
    }

    /** A question accepted by {@code POST /v1/questions}. */
    synchronized void question(QuestionTask task) {
        put(questions, task.questionId(), new Entry<>(task.tenant(), clock.instant(),
                StatusView.of(task.questionId(), new QuestionState(Submission.of(task), null, null, task.round()))));
    }

    /** A batch accepted by {@code POST /v1/batches} (its questions are followed through the batch). */
    synchronized void batch(BatchManifest manifest) {
        put(batches, manifest.batchId(), new Entry<>(manifest.tenant(), clock.instant(), StatusView.ofBatch(new BatchStatus(manifest, null))));
    }

    /** The status view of a question this instance accepted for {@code tenant} and has not forgotten. */
    synchronized Optional<QuestionStatus> question(String id, String tenant) {
        return shown(questions, id, tenant);
    }

    synchronized Optional<BatchReport> batch(String id, String tenant) {
        return shown(batches, id, tenant);
    }

    /** The question's status: the view's (then forgotten here), else this instance's own if it accepted it. */
    Optional<QuestionStatus> question(String id, String tenant, Supplier<Optional<QuestionStatus>> view) {
        return either(questions, id, tenant, view);
    }

    /** The batch's status: the view's (then forgotten here), else this instance's own if it accepted it. */
    Optional<BatchReport> batch(String id, String tenant, Supplier<Optional<BatchReport>> view) {
        return either(batches, id, tenant, view);
    }

    private <T> Optional<T> either(LinkedHashMap<String, Entry<T>> map, String id, String tenant, Supplier<Optional<T>> view) {
        Optional<T> found = view.get(); // outside the lock: it may ask another instance
        synchronized (this) {
            if (found.isPresent()) {
                map.remove(id);
                return found;
            }
            return shown(map, id, tenant);
        }
    }

    synchronized int size() {
        return questions.size() + batches.size();
    }

    private <T> void put(LinkedHashMap<String, Entry<T>> map, String id, Entry<T> entry) {
        map.remove(id); // re-inserted at the end: its age counts from now
        map.put(id, entry);
        expire(map);
        while (map.size() > MAX_ENTRIES) {
            Iterator<String> oldest = map.keySet().iterator();
            oldest.next();
            oldest.remove();
        }
    }

    private <T> Optional<T> shown(LinkedHashMap<String, Entry<T>> map, String id, String tenant) {
        expire(map);
        Entry<T> e = map.get(id);
        return e == null || !e.tenant().equals(tenant) ? Optional.empty() : Optional.of(e.shown());
    }

    /** Entries are in insertion order, so the expired ones are at the head. */
    private <T> void expire(LinkedHashMap<String, Entry<T>> map) {
        Instant cutoff = clock.instant().minus(TTL);
        for (Iterator<Entry<T>> it = map.values().iterator(); it.hasNext(); ) {
            if (it.next().at().isBefore(cutoff)) it.remove();
            else break;
        }
    }
}
