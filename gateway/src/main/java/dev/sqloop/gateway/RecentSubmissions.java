package dev.sqloop.gateway;

import dev.sqloop.common.message.BatchManifest;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.gateway.Views.BatchStatus;
import dev.sqloop.gateway.Views.QuestionState;
import dev.sqloop.gateway.Views.Submission;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
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

    private record Entry(String tenant, Instant at, Map<String, Object> shown) {
        Entry {
            shown = java.util.Collections.unmodifiableMap(shown);
        }
    }

    private final Clock clock;
    private final LinkedHashMap<String, Entry> questions = new LinkedHashMap<>();
    private final LinkedHashMap<String, Entry> batches = new LinkedHashMap<>();

    RecentSubmissions(Clock clock) {
        this.clock = clock;
    }

    /** A question accepted by {@code POST /v1/questions}. */
    synchronized void question(QuestionTask task) {
        put(questions, task.questionId(), new Entry(task.tenant(), clock.instant(),
                StatusView.of(task.questionId(), new QuestionState(Submission.of(task), null, null, task.round()))));
    }

    /** A batch accepted by {@code POST /v1/batches} (its questions are followed through the batch). */
    synchronized void batch(BatchManifest manifest) {
        put(batches, manifest.batchId(), new Entry(manifest.tenant(), clock.instant(), StatusView.ofBatch(new BatchStatus(manifest, null))));
    }

    /** The status view of a question this instance accepted for {@code tenant} and has not forgotten. */
    synchronized Optional<Map<String, Object>> question(String id, String tenant) {
        return shown(questions, id, tenant);
    }

    synchronized Optional<Map<String, Object>> batch(String id, String tenant) {
        return shown(batches, id, tenant);
    }

    /** The question's status: the view's (then forgotten here), else this instance's own if it accepted it. */
    Optional<Map<String, Object>> question(String id, String tenant, Supplier<Optional<Map<String, Object>>> view) {
        return either(questions, id, tenant, view);
    }

    /** The batch's status: the view's (then forgotten here), else this instance's own if it accepted it. */
    Optional<Map<String, Object>> batch(String id, String tenant, Supplier<Optional<Map<String, Object>>> view) {
        return either(batches, id, tenant, view);
    }

    private Optional<Map<String, Object>> either(LinkedHashMap<String, Entry> map, String id, String tenant,
                                                 Supplier<Optional<Map<String, Object>>> view) {
        Optional<Map<String, Object>> found = view.get(); // outside the lock: it may ask another instance
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

    private void put(LinkedHashMap<String, Entry> map, String id, Entry entry) {
        map.remove(id); // re-inserted at the end: its age counts from now
        map.put(id, entry);
        expire(map);
        while (map.size() > MAX_ENTRIES) {
            Iterator<String> oldest = map.keySet().iterator();
            oldest.next();
            oldest.remove();
        }
    }

    private Optional<Map<String, Object>> shown(LinkedHashMap<String, Entry> map, String id, String tenant) {
        expire(map);
        Entry e = map.get(id);
        return e == null || !e.tenant().equals(tenant) ? Optional.empty() : Optional.of(e.shown());
    }

    /** Entries are in insertion order, so the expired ones are at the head. */
    private void expire(LinkedHashMap<String, Entry> map) {
        Instant cutoff = clock.instant().minus(TTL);
        for (Iterator<Entry> it = map.values().iterator(); it.hasNext(); ) {
            if (it.next().at().isBefore(cutoff)) it.remove();
            else break;
        }
    }
}
