package dev.sqloop.common.message;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One entry of a question's trace on the {@code events} topic: what a stage did with an attempt
 * (its SQL, the issues found, the repair decision and its reason, the SQL diff against the previous attempt).
 *
 * @param round the question's retry round ({@link QuestionTask#round()}): a retried question's attempts start at 1 again
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
        int round) implements Message {

    public AttemptEvent {
        Objects.requireNonNull(questionId, "questionId");
        Objects.requireNonNull(stage, "stage");
        schemaVersion = schemaVersion <= 0 ? CURRENT_SCHEMA_VERSION : schemaVersion;
        issues = issues == null ? List.of() : List.copyOf(issues);
    }

    @Override
    public String key() {
        return questionId;
    }
}
