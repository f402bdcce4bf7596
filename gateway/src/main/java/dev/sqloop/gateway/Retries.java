package dev.sqloop.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.gateway.SchemaKeywords.From;
import io.swagger.v3.oas.annotations.media.ArraySchema;
import io.swagger.v3.oas.annotations.media.Schema;
import dev.sqloop.common.error.Outcomes;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.message.QuestionTask;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Running failed questions again ({@code POST /v1/questions/{id}/retry}, {@code POST /v1/batches/{id}/retry}), once the
 * LLM or the warehouse is back. A retry is not a repair: the question starts again from attempt 1 with its full budget
 * at a higher {@link QuestionTask#round() round}, and the gateway's view reopens it (no result, the batch's counts
 * drop it from its old status) until the new round's result replaces the old one. A result of an older round arriving
 * late never replaces a newer one.
 */
final class Retries {
    /** What a batch retry picks when the request names no reasons: the failures of something outside the question. */
    static final Set<String> DEFAULT_REASONS = Set.of(Outcomes.LLM_UNAVAILABLE, Outcomes.WAREHOUSE_UNAVAILABLE,
            Outcomes.INFRASTRUCTURE_ERROR, Outcomes.DEADLINE_EXCEEDED);
    /**
     * Every failure reason may be retried on request but {@code cancelled}: a cancellation stays in force for the
     * question or batch (the next stage would end it cancelled again), so a cancelled question is submitted anew.
     */
    static final Set<String> RETRYABLE = QuestionMetrics.FAILURE_REASONS.stream()
            .filter(r -> !Outcomes.CANCELLED.equals(r))
            .collect(java.util.stream.Collectors.toUnmodifiableSet());
    /** Retried questions per Kafka transaction: each chunk lands whole or not at all, and stays well inside the timeout. */
    static final int CHUNK = 1_000;

    private Retries() {}

    /** The optional body of {@code POST /v1/batches/{id}/retry}, as {@link #reasons} reads it. */
    @Schema(description = "Which of the batch's failed questions to run again; an empty body picks the outages")
    record BatchRetryRequest(@ArraySchema(minItems = 1, uniqueItems = true) @From(SchemaKeywords.RETRY_REASONS) List<String> reasons) {}

    /**
     * The reasons a batch retry picks: {@code {"reasons": [..]}} in an optional JSON body, else {@link #DEFAULT_REASONS}.
     * Unknown fields, unknown reasons and {@code cancelled} are 400s that say why.
     */
    static Set<String> reasons(byte[] body) {
        if (Http.isBlank(body)) return DEFAULT_REASONS;
        JsonNode node = Http.parseJson(body);
        if (!node.isObject()) throw ApiError.badRequest("the body must be a JSON object such as {\"reasons\": [\"llm_unavailable\"]}", null);
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!name.equals("reasons")) throw ApiError.badRequest("unknown field '" + name + "'; the only field is 'reasons'", name);
        }
        JsonNode reasons = node.get("reasons");
        if (reasons == null || reasons.isNull()) return DEFAULT_REASONS;
        if (!reasons.isArray() || reasons.isEmpty()) {
            throw ApiError.badRequest("'reasons' must be a non-empty array of failure reasons", "reasons");
        }
        Set<String> out = new LinkedHashSet<>();
        for (JsonNode r : reasons) {
            if (!r.isTextual()) throw ApiError.badRequest("'reasons' must hold strings", "reasons");
            String reason = r.asText();
            if (Outcomes.CANCELLED.equals(reason)) {
                throw ApiError.badRequest("cancelled questions are not retried (the cancellation stays in force): submit them again", "reasons");
            }
            if (!RETRYABLE.contains(reason)) {
                throw ApiError.badRequest("unknown failure reason '" + reason + "'; one of " + new java.util.TreeSet<>(RETRYABLE), "reasons");
            }
            out.add(reason);
        }
        return out;
    }

    /** Whether {@code r} is a failure a retry may run again (any failure but a cancellation). */
    static boolean retryable(QuestionResult r) {
        return !r.succeeded() && RETRYABLE.contains(r.reason());
    }

    /**
     * The question of {@code r} again, from attempt 1 at {@code round}, submitted now (its deadline counts from now) with
     * the datasource's dialect as configured now; null when the datasource is no longer configured.
     */
    static QuestionTask task(QuestionResult r, int round, Submitter submitter, GatewayConfig config) {
        if (!config.datasources().containsKey(r.datasource())) return null;
        int maxAttempts = r.maxAttempts() > 0 ? r.maxAttempts() : QuestionTask.DEFAULT_MAX_ATTEMPTS;
        QuestionRequest request = new QuestionRequest(r.question(), r.datasource(), maxAttempts, null, r.metadata(), r.instructions(), r.capture(),
                r.candidatesWanted()); // as many candidates as its submitter asked for (null: the datasource's number)
        return submitter.task(r.questionId(), r.tenant(), r.batchId(), request).withRound(round);
    }

    /** Submits retried tasks in transactions of {@link #CHUNK}; returns how many were sent. */
    static int submit(Submitter submitter, List<QuestionTask> tasks, String traceparent) {
        for (int i = 0; i < tasks.size(); i += CHUNK) {
            submitter.submitAll(tasks.subList(i, Math.min(tasks.size(), i + CHUNK)), traceparent);
        }
        return tasks.size();
    }

    /** A single question's retry: a 409 saying why unless {@code r} is a retryable failure. */
    static void requireFailed(String id, QuestionResult r) {
        if (r == null) throw new ApiError(409, "not_final", "question " + id + " is still in progress: nothing to retry", null, null);
        if (r.succeeded()) throw new ApiError(409, "already_succeeded", "question " + id + " has succeeded: nothing to retry", null, null);
        if (Outcomes.CANCELLED.equals(r.reason())) {
            throw new ApiError(409, "cancelled", "question " + id + " was cancelled and stays so: submit it again", null, null);
        }
        if (!retryable(r)) throw new ApiError(409, "not_retryable", "question " + id + " failed for '" + r.reason() + "', which is not retried", null, null);
    }
}
