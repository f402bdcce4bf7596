package dev.sqloop.generator;

import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.error.Outcomes;
import dev.sqloop.common.message.Issue;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.sql.SqlNormalizer;
import java.util.Optional;

/**
 * Whether a failed attempt gets another try, and why (004 §6). Checked in this order: the attempt budget,
 * a category that no new SQL can fix, the datasource, the retry guard on SQL unchanged since the previous attempt,
 * then a too-expensive query whose repair did not lower the engine's estimate. Anything else is retried.
 *
 * @param reason {@code retry}, or why the question stops: one of {@link Outcomes}
 * @param category the error category the decision is about (metrics tag)
 */
public record RepairDecision(boolean retry, String reason, ErrorCategory category, String detail) {
    public static final String RETRY = "retry";

    public static RepairDecision decide(QuestionTask task, DialectLookup dialects) {
        Issue primary = CorrectionPromptBuilder.primaryIssue(task.issues());
        if (task.attempt() >= task.maxAttempts()) {
            return stop(Outcomes.MAX_ATTEMPTS, primary.category(),
                    "attempt " + task.attempt() + " of " + task.maxAttempts() + " failed: " + primary.message());
        }
        Optional<Issue> fatal = task.issues().stream().filter(i -> i.error() && !i.category().retryable()).findFirst();
        if (fatal.isPresent()) {
            return stop(Outcomes.NON_RETRYABLE, fatal.get().category(),
                    fatal.get().category().wireName() + " cannot be fixed by new SQL: " + fatal.get().message());
        }
        if (dialects.dialectOf(task).isEmpty()) {
            return stop(Outcomes.UNKNOWN_DATASOURCE, primary.category(), "unknown datasource '" + task.datasource() + "'");
        }
        if (SqlNormalizer.sameStatement(task.sql(), task.previousSql())) {
            return stop(Outcomes.UNCHANGED_SQL, primary.category(),
                    "attempt " + task.attempt() + " repeated the previous SQL; last error: " + primary.message());
        }
        Optional<String> notCheaper = notCheaper(task);
        if (notCheaper.isPresent()) return stop(Outcomes.NON_RETRYABLE, ErrorCategory.TOO_EXPENSIVE, notCheaper.get());
        return new RepairDecision(true, RETRY, primary.category(), "attempt " + (task.attempt() + 1) + " of " + task.maxAttempts());
    }

    /**
     * Why a repair of a too-expensive query is not worth another: the previous attempt was refused as too expensive too,
     * and this one's estimate is no lower over the budget. Asking again would spend an LLM call on the same warehouse bill.
     */
    private static Optional<String> notCheaper(QuestionTask task) {
        Double now = overBudget(task.issues());
        Double before = overBudget(task.previousIssues());
        if (now == null || before == null || now < before) return Optional.empty();
        return Optional.of(String.format(java.util.Locale.ROOT, "the repair did not lower the cost estimate (%.1f× the budget,"
                + " was %.1f×): %s", now, before, CorrectionPromptBuilder.primaryIssue(task.issues()).message()));
    }

    private static Double overBudget(java.util.List<Issue> issues) {
        return issues.stream().filter(i -> i.error() && i.category() == ErrorCategory.TOO_EXPENSIVE && i.overBudget() != null)
                .map(Issue::overBudget).findFirst().orElse(null);
    }

    private static RepairDecision stop(String reason, ErrorCategory category, String detail) {
        return new RepairDecision(false, reason, category, detail);
    }

    /** The event's decision field: {@code retry} or {@code final}. */
    public String decision() {
        return retry ? "retry" : "final";
    }
}
