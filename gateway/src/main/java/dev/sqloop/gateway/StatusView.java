package dev.sqloop.gateway;

import dev.sqloop.common.message.AttemptEvent;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.gateway.Views.BatchProgress;
import dev.sqloop.gateway.Views.BatchStatus;
import dev.sqloop.gateway.Views.QuestionState;
import java.util.LinkedHashMap;
import java.util.Map;

/** The JSON shapes of {@code GET /v1/questions/{id}} and {@code GET /v1/batches/{id}}. */
final class StatusView {
    private StatusView() {}

    static Map<String, Object> of(String id, QuestionState s) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("id", id);
        QuestionResult r = s.result();
        if (r != null) {
            out.put("status", r.status());
            out.put("batchId", r.batchId());
            out.put("datasource", r.datasource());
            out.put("question", r.question());
            out.put("sql", r.sql());
            out.put("lastRejectedSql", r.lastRejectedSql());
            out.put("attempts", r.attempts());
            if (r.round() > 0) out.put("round", r.round());
            out.put("reason", r.reason());
            if (r.errorCategory() != null) out.put("errorCategory", r.errorCategory());
            if (r.errorMessage() != null) out.put("errorMessage", r.errorMessage());
            if (!r.issues().isEmpty()) out.put("issues", r.issues());
            if (r.execution() != null) out.put("preview", r.execution());
            out.put("usage", r.usage());
            out.put("timings", r.timings());
            out.put("submittedAt", r.submittedAt());
            out.put("completedAt", r.completedAt());
        } else {
            // a retried question's trace holds its earlier rounds too: where it is now is its current round's last event
            AttemptEvent last = s.events().stream().filter(e -> e.round() == s.round()).reduce((a, b) -> b).orElse(null);
            out.put("status", last == null ? "queued" : "in_progress");
            if (last != null) {
                out.put("stage", last.stage());
                out.put("attempt", last.attempt());
            }
            if (s.round() > 0) out.put("round", s.round());
            if (s.submission() != null) {
                out.put("batchId", s.submission().batchId());
                out.put("datasource", s.submission().datasource());
                out.put("question", s.submission().question());
                out.put("submittedAt", s.submission().submittedAt());
            }
        }
        out.values().removeIf(java.util.Objects::isNull);
        return out;
    }

    static Map<String, Object> ofBatch(BatchStatus s) {
        BatchProgress p = s.progress() == null ? BatchProgress.EMPTY : s.progress();
        long finished = p.finished();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("batchId", s.manifest().batchId());
        out.put("total", s.manifest().size());
        out.put("finished", finished);
        out.put("pending", Math.max(0, s.manifest().size() - finished));
        out.put("progress", s.manifest().size() == 0 ? 1.0 : Math.min(1.0, (double) finished / s.manifest().size()));
        out.put("byStatus", p.byStatus());
        out.put("byReason", p.byReason());
        if (!p.byRound().isEmpty()) out.put("byRound", p.byRound());
        out.put("createdAt", s.manifest().createdAt());
        out.put("done", finished >= s.manifest().size());
        return out;
    }
}
