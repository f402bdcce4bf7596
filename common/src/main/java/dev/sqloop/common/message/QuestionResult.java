package dev.sqloop.common.message;

import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.error.Outcomes;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The final state of a question, as kept on the compacted {@code results} topic.
 *
 * @param status {@code succeeded} or {@code failed}
 * @param reason one of {@link Outcomes}: why it ended
 * @param sql the SQL that ran: set only when the question succeeded, so a consumer that runs each result's
 *     {@code sql} never runs a refused statement
 * @param lastRejectedSql on a failure, the text of the last attempt (what was refused: a write statement,
 *     SQL the engine rejected, prose); null on success
 * @param maxAttempts the question's attempt budget (0 in a result from a producer older than this field)
 * @param round the retry round that produced this result (0: the question as submitted); see {@link QuestionTask#round()}
 * @param instructions, capture as the question was submitted ({@link QuestionTask#instructions()},
 *        {@link QuestionTask#capture()}): a retry asks the same question
 * @param retries infrastructure retries per stage ({@link QuestionTask#retries()}): no attempt spent, but counted
 * @param candidates every candidate SQL of a question asked with several (issue 50), index 1 being {@code sql}'s or
 *        {@code lastRejectedSql}'s, with what each returned and its result fingerprint; empty with one candidate
 * @param candidatesWanted the candidates its submitter asked for ({@link QuestionTask#candidatesWanted()}): a retry asks
 *        for as many; null when the datasource's number applied
 */
public record QuestionResult(
        int schemaVersion,
        String questionId,
        String tenant,
        String batchId,
        String datasource,
        String question,
        String status,
        String reason,
        ErrorCategory errorCategory,
        String errorMessage,
        String sql,
        String lastRejectedSql,
        int attempts,
        List<Issue> issues,
        Execution execution,
        TokenUsage usage,
        Map<String, Long> timings,
        Instant submittedAt,
        Instant completedAt,
        Map<String, String> metadata,
        int maxAttempts,
        int round,
        String instructions,
        Boolean capture,
        Map<String, Integer> retries,
        List<Candidate> candidates,
        Integer candidatesWanted) implements Message {

    public static final String SUCCEEDED = "succeeded";
    public static final String FAILED = "failed";

    public QuestionResult {
        Objects.requireNonNull(questionId, "questionId");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(reason, "reason");
        schemaVersion = schemaVersion <= 0 ? CURRENT_SCHEMA_VERSION : schemaVersion;
        issues = issues == null ? List.of() : List.copyOf(issues);
        usage = usage == null ? TokenUsage.ZERO : usage;
        timings = timings == null ? Map.of() : Map.copyOf(timings);
        metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
        retries = retries == null ? Map.of() : Map.copyOf(retries);
        candidates = candidates == null ? List.of() : List.copyOf(candidates);
        if (!SUCCEEDED.equals(status) && sql != null) {
            // A failure never carries runnable-looking SQL in `sql`: what was refused moves to lastRejectedSql.
            lastRejectedSql = lastRejectedSql == null ? sql : lastRejectedSql;
            sql = null;
        }
    }

    /** A result that does not say how many candidates its submitter asked for. */
    public QuestionResult(int schemaVersion, String questionId, String tenant, String batchId, String datasource, String question,
                          String status, String reason, ErrorCategory errorCategory, String errorMessage, String sql,
                          String lastRejectedSql, int attempts, List<Issue> issues, Execution execution, TokenUsage usage,
                          Map<String, Long> timings, Instant submittedAt, Instant completedAt, Map<String, String> metadata,
                          int maxAttempts, int round, String instructions, Boolean capture, Map<String, Integer> retries,
                          List<Candidate> candidates) {
        this(schemaVersion, questionId, tenant, batchId, datasource, question, status, reason, errorCategory, errorMessage, sql,
                lastRejectedSql, attempts, issues, execution, usage, timings, submittedAt, completedAt, metadata, maxAttempts, round,
                instructions, capture, retries, candidates, null);
    }

    public static QuestionResult succeeded(QuestionTask task, Instant now) {
        String reason = task.attempt() == 1 ? Outcomes.FIRST_ATTEMPT_SUCCESS : Outcomes.CORRECTED_SUCCESS;
        return of(task, SUCCEEDED, reason, null, null, now);
    }

    /**
     * No agreement among the candidates (issue 50): no answer is given ({@code sql} null, status {@code failed} so every
     * client that waits for succeeded or failed ends), reason {@link Outcomes#UNCERTAIN}, the candidates kept for review.
     */
    public static QuestionResult uncertain(QuestionTask task, String why, Instant now) {
        return of(task, FAILED, Outcomes.UNCERTAIN, null, why, now);
    }

    public static QuestionResult failed(QuestionTask task, String reason, ErrorCategory category, String message, Instant now) {
        return of(task, FAILED, reason, category, message, now);
    }

    private static QuestionResult of(QuestionTask t, String status, String reason, ErrorCategory category, String message,
                                     Instant now) {
        return new QuestionResult(CURRENT_SCHEMA_VERSION, t.questionId(), t.tenant(), t.batchId(), t.datasource(),
                t.question(), status, reason, category, message, SUCCEEDED.equals(status) ? t.sql() : null,
                SUCCEEDED.equals(status) ? null : t.sql(), t.attempt(), t.issues(), t.execution(),
                t.usage(), t.timings(), t.submittedAt(), now, t.metadata(), t.maxAttempts(), t.round(), t.instructions(), t.capture(), t.retries(),
                t.candidates(), t.candidatesWanted());
    }

    public boolean succeeded() {
        return SUCCEEDED.equals(status);
    }

    @Override
    public String key() {
        return questionId;
    }
}
