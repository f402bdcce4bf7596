package dev.sqloop.gateway;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import dev.sqloop.common.message.AttemptEvent;
import dev.sqloop.common.message.BatchManifest;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.message.QuestionTask;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The records the gateway materializes from Kafka and serves. */
final class Views {
    private Views() {}

    /** What the gateway knows of a question from its submission (attempt 1 on {@code retrieve-examples}). */
    record Submission(String questionId, String tenant, String batchId, String datasource, String question,
                      int maxAttempts, Instant submittedAt, Map<String, String> metadata) {
        static Submission of(QuestionTask t) {
            return new Submission(t.questionId(), t.tenant(), t.batchId(), t.datasource(), t.question(), t.maxAttempts(),
                    t.submittedAt(), t.metadata());
        }
    }

    /** Everything known of one question: its submission, its trace so far, and its final result once there. */
    record QuestionState(Submission submission, QuestionResult result, List<AttemptEvent> events) {
        /** A question's trace keeps its newest events; a few attempts make a few dozen. */
        static final int MAX_EVENTS = 200;

        QuestionState {
            events = events == null ? List.of() : List.copyOf(events);
        }

        static final QuestionState EMPTY = new QuestionState(null, null, null);

        QuestionState apply(Update u) {
            return switch (u) {
                case Update.Submitted s -> new QuestionState(submission == null ? s.submission() : submission, result, events);
                case Update.Finished f -> new QuestionState(submission, f.result(), events);
                // a redelivered event (same attempt, stage and kind) is already in the trace
                case Update.Event e -> seen(e.event()) ? this : new QuestionState(submission, result, append(events, e.event()));
            };
        }

        /** Whether the trace already holds this attempt's event from this stage. */
        boolean seen(AttemptEvent e) {
            return events.stream().anyMatch(x -> x.attempt() == e.attempt() && x.stage().equals(e.stage())
                    && java.util.Objects.equals(x.kind(), e.kind()));
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
        record Submitted(Submission submission) implements Update {}

        record Finished(QuestionResult result) implements Update {}

        record Event(AttemptEvent event) implements Update {}
    }

    /** A batch's manifest (size, tenant) with its progress. */
    record BatchStatus(BatchManifest manifest, BatchProgress progress) {}

    /** Counts of a batch's finished questions by status and by reason. */
    record BatchProgress(Map<String, Long> byStatus, Map<String, Long> byReason) {
        static final BatchProgress EMPTY = new BatchProgress(Map.of(), Map.of());

        BatchProgress {
            byStatus = byStatus == null ? Map.of() : Map.copyOf(byStatus);
            byReason = byReason == null ? Map.of() : Map.copyOf(byReason);
        }

        BatchProgress add(QuestionResult r, long delta) {
            Map<String, Long> s = new TreeMap<>(byStatus);
            Map<String, Long> o = new TreeMap<>(byReason);
            s.merge(r.status(), delta, Long::sum);
            o.merge(r.reason(), delta, Long::sum);
            s.values().removeIf(v -> v == 0);
            o.values().removeIf(v -> v == 0);
            return new BatchProgress(s, o);
        }

        @JsonIgnore
        long finished() {
            return byStatus.values().stream().mapToLong(Long::longValue).sum();
        }
    }
}
