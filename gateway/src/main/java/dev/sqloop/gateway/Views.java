package dev.sqloop.gateway;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import dev.sqloop.common.message.AttemptEvent;
import dev.sqloop.common.message.BatchManifest;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.message.TokenUsage;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The records the gateway materializes from Kafka and serves. */
final class Views {
    private Views() {}

    /** What the gateway knows of a question from its submission (attempt 1 on {@code retrieve-examples}). */
    /** @param traceId the W3C trace id its first record carried (null when unknown: a state from before it was kept) */
    record Submission(String questionId, String tenant, String batchId, String datasource, String question,
                      int maxAttempts, Instant submittedAt, Map<String, String> metadata, String traceId) {
        static Submission of(QuestionTask t) {
            return of(t, null);
        }

        static Submission of(QuestionTask t, String traceId) {
            return new Submission(t.questionId(), t.tenant(), t.batchId(), t.datasource(), t.question(), t.maxAttempts(),
                    t.submittedAt(), t.metadata(), traceId);
        }
    }

    /**
     * Everything known of one question: its submission, its trace so far, and its final result once there.
     *
     * @param round the newest retry round seen ({@link QuestionTask#round()}): a retried question's resubmission
     *              reopens it (no result until the new round's), and a result of an older round (a late duplicate, a
     *              replayed dead letter of the earlier run) never replaces the newer round's
     */
    record QuestionState(Submission submission, QuestionResult result, List<AttemptEvent> events, int round) {
        /** A question's trace keeps its newest events; a few attempts make a few dozen. */
        static final int MAX_EVENTS = 200;

        QuestionState {
            events = events == null ? List.of() : List.copyOf(events);
        }

        static final QuestionState EMPTY = new QuestionState(null, null, null, 0);

        QuestionState apply(Update u) {
            return switch (u) {
                case Update.Submitted s when s.round() > round ->
                        new QuestionState(submission == null ? s.submission() : submission, null, events, s.round());
                case Update.Submitted s -> new QuestionState(submission == null ? s.submission() : submission, result, events, round);
                case Update.Finished f when f.result().round() < round -> this;
                case Update.Finished f -> new QuestionState(submission, f.result(), events, f.result().round());
                // a redelivered event (same round, attempt, stage and kind) is already in the trace
                case Update.Event e -> seen(e.event()) ? this : new QuestionState(submission, result, append(events, e.event()), round);
            };
        }

        /** Whether {@code f} becomes this question's result where it had none for its round: what counts once. */
        boolean newResult(Update.Finished f) {
            return f.result().round() > round || (f.result().round() == round && result == null);
        }

        /**
         * Whether the trace already holds this round's attempt's event from this stage. A failed candidates' repair is
         * told apart by its reason too: one attempt may repair its candidates more than once, each round naming their new
         * attempts; a redelivered one repeats it word for word.
         */
        boolean seen(AttemptEvent e) {
            return events.stream().anyMatch(x -> x.round() == e.round() && x.attempt() == e.attempt() && x.stage().equals(e.stage())
                    && java.util.Objects.equals(x.kind(), e.kind())
                    && (!AttemptEvent.CANDIDATE_REPAIR.equals(e.kind()) || java.util.Objects.equals(x.reason(), e.reason())));
        }

        private static List<AttemptEvent> append(List<AttemptEvent> events, AttemptEvent e) {
            List<AttemptEvent> all = new ArrayList<>(events);
            all.add(e);
            return all.size() > MAX_EVENTS ? all.subList(all.size() - MAX_EVENTS, all.size()) : all;
        }

        @JsonIgnore
        String tenant() {
            return result != null ? result.tenant() : submission != null ? submission.tenant() : null;
        }
    }

    /** One change to a question's state, from one of the three topics that carry it (tagged JSON on the repartition topic). */
    @JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
    @JsonSubTypes({@JsonSubTypes.Type(value = Update.Submitted.class, name = "submitted"),
            @JsonSubTypes.Type(value = Update.Finished.class, name = "finished"),
            @JsonSubTypes.Type(value = Update.Event.class, name = "event")})
    sealed interface Update {
        /** @param round the submitted task's retry round (0 as first submitted) */
        record Submitted(Submission submission, int round) implements Update {}

        record Finished(QuestionResult result) implements Update {}

        record Event(AttemptEvent event) implements Update {}
    }

    /**
     * A batch's questions counted by their first error, {@code category@stage} ({@code column_not_found@validate}):
     * what went wrong on attempt 1, for the questions repair then fixed as for those that failed.
     */
    record FirstErrors(Map<String, Long> counts) {
        static final FirstErrors EMPTY = new FirstErrors(Map.of());

        FirstErrors {
            counts = counts == null ? Map.of() : Map.copyOf(counts);
        }

        FirstErrors add(String key, long delta) {
            return new FirstErrors(BatchProgress.merge(counts, key, delta));
        }

        /**
         * The first error of {@code s}'s current round as {@code category@stage}: the first error of attempt 1 as the
         * repair stage received it (its event in the trace); for a failure without that event, its result's first error
         * (or its error category, at stage {@code unknown}). Null before a result, and when attempt 1 succeeded.
         */
        static String of(QuestionState s) {
            QuestionResult r = s.result();
            if (r == null) return null;
            for (AttemptEvent e : s.events()) {
                if (e.round() != r.round() || e.attempt() != 1 || !"repair".equals(e.stage())) continue;
                for (dev.sqloop.common.message.Issue i : e.issues()) if (i.error()) return key(i);
            }
            if (r.succeeded()) return null;
            for (dev.sqloop.common.message.Issue i : r.issues()) if (i.error()) return key(i);
            return r.errorCategory() == null ? null : r.errorCategory().wireName() + "@unknown";
        }

        private static String key(dev.sqloop.common.message.Issue i) {
            return i.category().wireName() + "@" + (i.stage() == null || i.stage().isBlank() ? "unknown" : i.stage());
        }
    }

    /** A batch's manifest (size, tenant) with its progress. */
    record BatchStatus(BatchManifest manifest, BatchProgress progress) {}

    /**
     * Counts of a batch's finished questions by status and by reason, and by retry round for the questions whose result
     * came from a retry (round ≥ 1; a batch never retried has none); for the console, the failed ones by their error
     * category and every finished one by its number of attempts (absent from progress stored before they were counted);
     * and the LLM tokens and cost of those results summed.
     */
    record BatchProgress(Map<String, Long> byStatus, Map<String, Long> byReason, Map<String, Long> byRound,
                         Map<String, Long> byCategory, Map<String, Long> byAttempts, TokenUsage usage) {
        static final BatchProgress EMPTY = new BatchProgress(Map.of(), Map.of(), Map.of());

        BatchProgress {
            byStatus = byStatus == null ? Map.of() : Map.copyOf(byStatus);
            byReason = byReason == null ? Map.of() : Map.copyOf(byReason);
            byRound = byRound == null ? Map.of() : Map.copyOf(byRound);
            byCategory = byCategory == null ? Map.of() : Map.copyOf(byCategory);
            byAttempts = byAttempts == null ? Map.of() : Map.copyOf(byAttempts);
            // a progress stored before usage was summed has none: it counts from the next result on
            usage = usage == null ? TokenUsage.ZERO : usage;
        }

        BatchProgress(Map<String, Long> byStatus, Map<String, Long> byReason, Map<String, Long> byRound) {
            this(byStatus, byReason, byRound, null, null, null);
        }

        BatchProgress add(QuestionResult r, long delta) {
            return new BatchProgress(merge(byStatus, r.status(), delta), merge(byReason, r.reason(), delta),
                    r.round() > 0 ? merge(byRound, Integer.toString(r.round()), delta) : byRound,
                    !r.succeeded() && r.errorCategory() != null ? merge(byCategory, r.errorCategory().wireName(), delta) : byCategory,
                    merge(byAttempts, Integer.toString(r.attempts()), delta), usage.plus(r.usage().times(delta)));
        }

        static Map<String, Long> merge(Map<String, Long> counts, String key, long delta) {
            Map<String, Long> out = new TreeMap<>(counts);
            out.merge(key, delta, Long::sum);
            out.values().removeIf(v -> v == 0);
            return out;
        }

        @JsonIgnore
        long finished() {
            return byStatus.values().stream().mapToLong(Long::longValue).sum();
        }
    }
}
