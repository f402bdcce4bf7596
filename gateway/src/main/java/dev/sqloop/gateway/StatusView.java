package dev.sqloop.gateway;

import dev.sqloop.common.message.AttemptEvent;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.gateway.Views.BatchProgress;
import dev.sqloop.gateway.Views.BatchStatus;
import dev.sqloop.gateway.Views.QuestionState;

/** The JSON shapes of {@code GET /v1/questions/{id}} and {@code GET /v1/batches/{id}}. */
final class StatusView {
    private StatusView() {}

    static Answers.QuestionStatus of(String id, QuestionState s) {
        QuestionResult r = s.result();
        if (r != null) {
            return new Answers.QuestionStatus(id, r.status(), null, null, r.round() > 0 ? r.round() : null, r.batchId(), r.datasource(),
                    r.question(), r.sql(), r.lastRejectedSql(), r.attempts(), r.reason(), r.errorCategory(), r.errorMessage(),
                    r.issues().isEmpty() ? null : r.issues(), r.execution(), r.usage(), r.timings(),
                    r.retries().isEmpty() ? null : r.retries(), r.submittedAt(), r.completedAt(),
                    r.candidates().isEmpty() ? null : r.candidates());
        }
        // a retried question's trace holds its earlier rounds too: where it is now is its current round's last event
        AttemptEvent last = s.events().stream().filter(e -> e.round() == s.round()).reduce((a, b) -> b).orElse(null);
        var sub = s.submission();
        return new Answers.QuestionStatus(id, last == null ? "queued" : "in_progress", last == null ? null : last.stage(),
                last == null ? null : last.attempt(), s.round() > 0 ? s.round() : null, sub == null ? null : sub.batchId(),
                sub == null ? null : sub.datasource(), sub == null ? null : sub.question(), null, null, null, null, null, null, null,
                null, null, null, last == null || last.retries().isEmpty() ? null : last.retries(),
                sub == null ? null : sub.submittedAt(), null, null);
    }

    /** The question's infrastructure retries per stage: its result's once it ended, else its newest event's. */
    static java.util.Map<String, Integer> retries(QuestionState s) {
        if (s.result() != null) return s.result().retries();
        return s.events().stream().reduce((a, b) -> b).map(AttemptEvent::retries).orElse(java.util.Map.of());
    }

    static Answers.BatchReport ofBatch(BatchStatus s) {
        BatchProgress p = s.progress() == null ? BatchProgress.EMPTY : s.progress();
        long finished = p.finished();
        int total = s.manifest().size();
        return new Answers.BatchReport(s.manifest().batchId(), total, finished, Math.max(0, total - finished),
                total == 0 ? 1.0 : Math.min(1.0, (double) finished / total), p.byStatus(), p.byReason(),
                p.byRound().isEmpty() ? null : p.byRound(), s.manifest().createdAt(), finished >= total, p.usage());
    }
}
