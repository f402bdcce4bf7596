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
            AttemptEvent last = s.events().isEmpty() ? null : s.events().get(s.events().size() - 1);
            out.put("status", last == null ? "queued" : "in_progress");
            if (last != null) {
                out.put("stage", last.stage());
                out.put("attempt", last.attempt());
            }
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
        out.put("createdAt", s.manifest().createdAt());
        out.put("done", finished >= s.manifest().size());
        return out;
    }
}
