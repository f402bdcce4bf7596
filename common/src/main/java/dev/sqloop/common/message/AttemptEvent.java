package dev.sqloop.common.message;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One entry of a question's trace on the {@code events} topic: what a stage did with an attempt
 * (its SQL, the issues found, the repair decision and its reason, the SQL diff against the previous attempt).
 *
 * @param round the question's retry round ({@link QuestionTask#round()}): a retried question's attempts start at 1 again
 * @param retries the question's infrastructure retries per stage so far ({@link QuestionTask#retries()})
 * @param prompt what the attempt's prompt held (schema tables, examples with scores, tokens so far); on the
 *     validator's event of each attempt (on the repair decision's when the answer was not SQL and never reached the
 *     validator), null on the others
 */
public record AttemptEvent(
        int schemaVersion,
        String questionId,
        int attempt,
        String stage,
        String kind,
        String sql,
        List<Issue> issues,
        String decision,
        String reason,
        String sqlDiff,
        long durationMillis,
        Instant at,
        int round,
        Map<String, Integer> retries,
        PromptParts prompt) implements Message {

    /**
     * The kind of the events of a failed candidates' repair (issue 50): the executor's ({@code repair-candidates}: which,
     * why, with their issues) and the generator's ({@code candidates-repaired}). One attempt may hold several rounds.
     */
    public static final String CANDIDATE_REPAIR = "candidate-repair";

    public AttemptEvent {
        Objects.requireNonNull(questionId, "questionId");
        Objects.requireNonNull(stage, "stage");
        schemaVersion = schemaVersion <= 0 ? CURRENT_SCHEMA_VERSION : schemaVersion;
        issues = issues == null ? List.of() : List.copyOf(issues);
        retries = retries == null ? Map.of() : Map.copyOf(retries);
    }

    /** An event without the prompt's parts (every stage but the validator). */
    public AttemptEvent(int schemaVersion, String questionId, int attempt, String stage, String kind, String sql, List<Issue> issues,
                        String decision, String reason, String sqlDiff, long durationMillis, Instant at, int round,
                        Map<String, Integer> retries) {
        this(schemaVersion, questionId, attempt, stage, kind, sql, issues, decision, reason, sqlDiff, durationMillis, at, round, retries, null);
    }

    /** An event without retry counts (a stage that does not know the question's task). */
    public AttemptEvent(int schemaVersion, String questionId, int attempt, String stage, String kind, String sql, List<Issue> issues,
                        String decision, String reason, String sqlDiff, long durationMillis, Instant at, int round) {
        this(schemaVersion, questionId, attempt, stage, kind, sql, issues, decision, reason, sqlDiff, durationMillis, at, round, Map.of(), null);
    }

    @Override
    public String key() {
        return questionId;
    }
}
