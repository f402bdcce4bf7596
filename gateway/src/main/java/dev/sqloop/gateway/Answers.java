package dev.sqloop.gateway;

import static io.swagger.v3.oas.annotations.media.Schema.RequiredMode.REQUIRED;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.AttemptEvent;
import dev.sqloop.common.message.Candidate;
import dev.sqloop.common.message.Execution;
import dev.sqloop.common.message.Issue;
import dev.sqloop.common.message.TokenUsage;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The JSON bodies the API answers with, one record each: the handlers serialize these and {@link OpenApiDocument}
 * generates the document's schemas from them, so an answer and its schema come from the same type. A component the
 * record leaves null is left out of the JSON (the codec writes no nulls); the ones marked required are always there.
 */
final class Answers {
    private Answers() {}

    @Schema(description = "A probe's answer: 200 UP, 503 DOWN")
    record Probe(@Schema(requiredMode = REQUIRED, allowableValues = {"UP", "DOWN"}) String status) {}

    @Schema(description = "The datasources questions may target")
    record Datasources(@Schema(requiredMode = REQUIRED) List<Datasource> datasources) {}

    @Schema(description = "A datasource and the SQL dialect its questions are answered in")
    record Datasource(@Schema(requiredMode = REQUIRED) String name, @Schema(requiredMode = REQUIRED) Dialect dialect) {}

    @Schema(description = "A question accepted (202), or the existing one a reused clientId names (200)")
    record QuestionAccepted(
            @Schema(requiredMode = REQUIRED) String id,
            @Schema(requiredMode = REQUIRED, description = "queued when accepted; the existing question's status for a reused clientId",
                    allowableValues = {"queued", "in_progress", "succeeded", "failed"}) String status,
            @Schema(requiredMode = REQUIRED, description = "where to poll it") String statusUrl,
            @Schema(description = "present when a reused clientId named an existing question: its id") String duplicateOf) {}

    /** {@code GET /v1/questions/{id}}: before a result, where it is; after, the result. */
    @Schema(description = "Status of a question: queued, in_progress (with stage and attempt), succeeded or failed (with SQL, "
            + "attempts, reason, error category, preview rows, token usage and timings)")
    record QuestionStatus(
            @Schema(requiredMode = REQUIRED) String id,
            @Schema(requiredMode = REQUIRED, allowableValues = {"queued", "in_progress", "succeeded", "failed"},
                    description = "failed includes cancelled questions (reason cancelled)") String status,
            @Schema(description = "in_progress: the stage of the newest attempt") String stage,
            @Schema(description = "in_progress: the newest attempt's number") Integer attempt,
            @Schema(description = "the retry round (absent before a retry)") Integer round,
            String batchId,
            String datasource,
            String question,
            @Schema(description = "the SQL that ran; present only when status is succeeded") String sql,
            @Schema(description = "only when status is failed: the text of the last attempt, which was refused (by the "
                    + "validator, the engine or the guardrails); never run it") String lastRejectedSql,
            @Schema(description = "attempts made (final states)") Integer attempts,
            @Schema(description = "why it ended: first_attempt_success, corrected_success, a failure reason, cancelled, uncertain (several candidates did not agree: no answer)") String reason,
            ErrorCategory errorCategory,
            String errorMessage,
            List<Issue> issues,
            @Schema(description = "what running the SQL returned: columns, types, row count and a bounded preview") Execution preview,
            TokenUsage usage,
            @Schema(description = "milliseconds spent per stage") Map<String, Long> timings,
            @Schema(description = "infrastructure retries per stage (LLM 429/5xx, warehouse connection lost): no attempt spent;"
                    + " absent when none") Map<String, Integer> retries,
            Instant submittedAt,
            Instant completedAt,
            @Schema(description = "a question asked with several candidates (SQLOOP_DATASOURCE_<NAME>_CANDIDATES): each one's SQL,"
                    + " status, result preview and result fingerprint, for review (reason uncertain: they did not agree);"
                    + " absent with one candidate") List<Candidate> candidates) {}

    @Schema(description = "Every attempt of a question, in order: SQL, issues or error, repair decision and reason, SQL diff")
    record QuestionTrace(@Schema(requiredMode = REQUIRED) String id, @Schema(requiredMode = REQUIRED) List<AttemptEvent> attempts,
                         @Schema(requiredMode = REQUIRED, description = "infrastructure retries per stage so far (no attempt spent):"
                                 + " the result's count once it ended, else the newest attempt's") Map<String, Integer> retries) {}

    @Schema(description = "A cancellation accepted: the question ends cancelled at the next stage it reaches")
    record QuestionCancelling(
            @Schema(requiredMode = REQUIRED) String id,
            @Schema(requiredMode = REQUIRED, allowableValues = "cancelling") String status,
            @Schema(requiredMode = REQUIRED) String statusUrl) {}

    @Schema(description = "A failed question sent again from attempt 1, at the next round")
    record QuestionRetried(
            @Schema(requiredMode = REQUIRED) String id,
            @Schema(requiredMode = REQUIRED, allowableValues = "queued") String status,
            @Schema(requiredMode = REQUIRED, minimum = "1") int round,
            @Schema(requiredMode = REQUIRED, description = "the reason the previous round failed") String previousReason,
            @Schema(requiredMode = REQUIRED) String statusUrl) {}

    @Schema(description = "Feedback accepted: the fewshot service applies it moments later")
    record FeedbackAccepted(
            @Schema(requiredMode = REQUIRED) String id,
            @Schema(requiredMode = REQUIRED, allowableValues = {"save", "unsave", "mark-wrong"}) String action,
            @Schema(requiredMode = REQUIRED, allowableValues = "accepted") String status) {}

    @Schema(description = "A batch accepted: every question enqueued in one Kafka transaction")
    record BatchAccepted(
            @Schema(requiredMode = REQUIRED) String batchId,
            @Schema(requiredMode = REQUIRED, minimum = "1") int count,
            @Schema(requiredMode = REQUIRED) String statusUrl,
            @Schema(requiredMode = REQUIRED) String resultsUrl) {}

    @Schema(description = "A batch's progress: counts of its finished questions by status, by reason and (after a retry) by round")
    record BatchReport(
            @Schema(requiredMode = REQUIRED) String batchId,
            @Schema(requiredMode = REQUIRED) int total,
            @Schema(requiredMode = REQUIRED) long finished,
            @Schema(requiredMode = REQUIRED) long pending,
            @Schema(requiredMode = REQUIRED, minimum = "0", maximum = "1") double progress,
            @Schema(requiredMode = REQUIRED) Map<String, Long> byStatus,
            @Schema(requiredMode = REQUIRED) Map<String, Long> byReason,
            @Schema(description = "results per retry round; absent for a batch never retried") Map<String, Long> byRound,
            @Schema(requiredMode = REQUIRED) Instant createdAt,
            @Schema(requiredMode = REQUIRED, description = "every question has a final result") boolean done,
            @Schema(description = "LLM tokens (input, the part of it served from the provider's prompt cache, output) and "
                    + "cost in USD (at the generator's SQLOOP_LLM_PRICE_* table) summed over the finished questions, all "
                    + "attempts; divide the cost by byStatus.succeeded for the cost per successful question") TokenUsage usage) {}

    @Schema(description = "The caller's batches on every gateway instance, newest first")
    record BatchListing(
            @Schema(requiredMode = REQUIRED) java.util.List<BatchReport> batches,
            @Schema(requiredMode = REQUIRED, description = "more batches than the list holds (" + BatchList.MAX + ", the newest)") boolean truncated) {}

    @Schema(description = "A batch cancellation accepted: its questions not yet final end cancelled at the next stage they reach")
    record BatchCancelling(
            @Schema(requiredMode = REQUIRED) String batchId,
            @Schema(requiredMode = REQUIRED, allowableValues = "cancelling") String status,
            @Schema(requiredMode = REQUIRED, description = "questions without a final result") long pending,
            @Schema(requiredMode = REQUIRED) String statusUrl) {}

    @Schema(description = "A batch's failed questions sent again, all at one new round")
    record BatchRetried(
            @Schema(requiredMode = REQUIRED) String batchId,
            @Schema(requiredMode = REQUIRED, description = "questions sent again (0: nothing failed for those reasons)") int retried,
            @Schema(requiredMode = REQUIRED, minimum = "1") int round,
            @Schema(requiredMode = REQUIRED, description = "questions sent again, per reason") Map<String, Long> byReason,
            @Schema(requiredMode = REQUIRED, description = "the reasons asked for") Set<String> reasons,
            @Schema(description = "failed questions not sent again: their datasource is no longer configured") Long skippedUnknownDatasource,
            @Schema(requiredMode = REQUIRED) String statusUrl) {}

    @Schema(description = "One page of examples in id order; nextCursor is absent on the last")
    record ExamplePage(
            @Schema(requiredMode = REQUIRED) List<ExampleView> examples,
            @Schema(requiredMode = REQUIRED) int count,
            @Schema(description = "pass as cursor for the next page", format = "uuid") String nextCursor) {}

    @Schema(description = "A few-shot example as the caller sees it (the creating tenant is not shown)")
    record ExampleView(
            @Schema(requiredMode = REQUIRED, format = "uuid") String id,
            @Schema(requiredMode = REQUIRED) String datasource,
            @Schema(requiredMode = REQUIRED) String question,
            @Schema(requiredMode = REQUIRED) String sql,
            String dialect,
            @Schema(allowableValues = {"seed", "auto", "manual"}) String source,
            @Schema(requiredMode = REQUIRED, description = "seen by every tenant of the datasource (a seed or curator-shared), "
                    + "or only by its creator") boolean shared,
            String notes,
            @Schema(requiredMode = REQUIRED) List<String> tags,
            Instant createdAt,
            @Schema(requiredMode = REQUIRED, description = "whether the caller may delete it (its own, or any for a curator)") boolean deletable) {}

    @Schema(description = "An example change accepted (202, applied by the fewshot service moments later) or already in place (200)")
    record ExampleAccepted(
            @Schema(requiredMode = REQUIRED, format = "uuid") String id,
            @Schema(requiredMode = REQUIRED, allowableValues = {"accepted", "exists"}) String status,
            @Schema(requiredMode = REQUIRED) String url) {}

    @Schema(description = "A batch's auto-captured examples being deleted (the fewshot service applies each moments later)")
    record CapturesRolledBack(
            @Schema(requiredMode = REQUIRED) String batchId,
            @Schema(requiredMode = REQUIRED, description = "examples captured from the batch's questions, deleted") int deleted,
            @Schema(requiredMode = REQUIRED, description = "the examples still listed as captured from it (none once applied)") String examplesUrl) {}
}
