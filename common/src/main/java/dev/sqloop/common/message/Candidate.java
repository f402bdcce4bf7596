package dev.sqloop.common.message;

import dev.sqloop.common.error.ErrorCategory;
import java.util.Objects;

/**
 * One SQL answer among several to the same question (issue 50), with what running it read-only gave: its result
 * (a bounded preview) and the result's fingerprint, by which the executor's selector groups candidates that agree.
 *
 * @param index 1-based; 1 is the question's own attempt ({@code sql}), 2 on the extra ones
 * @param status {@link #GENERATED} (not run yet), {@link #INVALID} (the answer was not one SQL statement), {@link #RAN},
 *               {@link #FAILED} (refused by a safeguard or the engine: it does not vote) or {@link #REPAIR} (failed, and
 *               sent to the generator for a corrected version)
 * @param error why it is invalid or failed; null otherwise
 * @param fingerprint the normalized result's digest when it ran; candidates with equal fingerprints agree
 * @param attempt how many times this candidate was generated: 1, and one more per repair (bounded by the question's
 *                attempt budget, as a question's own attempts are)
 * @param issue the failure as a stage reported it (category, message, identifier, near names), for its repair; null
 *              when it did not fail
 */
public record Candidate(int index, String sql, String status, String error, Execution execution, String fingerprint, int attempt,
                        Issue issue) {
    public static final String GENERATED = "generated";
    public static final String INVALID = "invalid";
    public static final String RAN = "ran";
    public static final String FAILED = "failed";
    public static final String REPAIR = "repair";

    public Candidate {
        if (index < 1) throw new IllegalArgumentException("index must be >= 1, was " + index);
        Objects.requireNonNull(status, "status");
        attempt = Math.max(1, attempt); // records written before candidates were repaired carry none
    }

    public static Candidate generated(int index, String sql) {
        return new Candidate(index, sql, GENERATED, null, null, null, 1, null);
    }

    public static Candidate invalid(int index, String text, String reason) {
        return new Candidate(index, text, INVALID, reason, null, null, 1, Issue.of("generate", ErrorCategory.LLM_OUTPUT_INVALID, reason));
    }

    public Candidate ran(Execution execution, String fingerprint) {
        return new Candidate(index, sql, RAN, null, execution, fingerprint, attempt, null);
    }

    public Candidate failed(String error) {
        return new Candidate(index, sql, FAILED, error, null, null, attempt, null);
    }

    /** Failed for {@code issue}: kept so that a repair can be asked for with the engine's own words. */
    public Candidate failed(Issue issue) {
        return new Candidate(index, sql, FAILED, issue.category().wireName() + ": " + issue.message(), null, null, attempt, issue);
    }

    /** This failed candidate, sent to the generator for a corrected version. */
    public Candidate toRepair() {
        return new Candidate(index, sql, REPAIR, error, null, null, attempt, issue);
    }

    /** The corrected answer of this candidate: its next attempt, not run yet (or not SQL again: {@code invalid}). */
    public Candidate repairedAs(Candidate answer) {
        return new Candidate(index, answer.sql(), answer.status(), answer.error(), null, null, attempt + 1, answer.issue());
    }

    /** Whether it ran and so votes with its result. */
    public boolean votes() {
        return RAN.equals(status) && fingerprint != null;
    }

    /**
     * Whether a repair may still make it vote: it failed or was not SQL, for a reason a correction can address, and it
     * has an attempt left of the question's budget.
     */
    public boolean repairable(int maxAttempts) {
        return (FAILED.equals(status) || INVALID.equals(status)) && attempt < maxAttempts
                && (issue == null || issue.category().retryable());
    }
}
