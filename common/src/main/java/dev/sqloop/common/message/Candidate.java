package dev.sqloop.common.message;

import java.util.Objects;

/**
 * One SQL answer among several to the same question (issue 50), with what running it read-only gave: its result
 * (a bounded preview) and the result's fingerprint, by which the executor's selector groups candidates that agree.
 *
 * @param index 1-based; 1 is the question's own attempt ({@code sql}), 2 on the extra ones
 * @param status {@link #GENERATED} (not run yet), {@link #INVALID} (the answer was not one SQL statement), {@link #RAN}
 *               or {@link #FAILED} (refused by a safeguard or the engine: it does not vote)
 * @param error why it is invalid or failed; null otherwise
 * @param fingerprint the normalized result's digest when it ran; candidates with equal fingerprints agree
 */
public record Candidate(int index, String sql, String status, String error, Execution execution, String fingerprint) {
    public static final String GENERATED = "generated";
    public static final String INVALID = "invalid";
    public static final String RAN = "ran";
    public static final String FAILED = "failed";

    public Candidate {
        if (index < 1) throw new IllegalArgumentException("index must be >= 1, was " + index);
        Objects.requireNonNull(status, "status");
    }

    public static Candidate generated(int index, String sql) {
        return new Candidate(index, sql, GENERATED, null, null, null);
    }

    public static Candidate invalid(int index, String text, String reason) {
        return new Candidate(index, text, INVALID, reason, null, null);
    }

    public Candidate ran(Execution execution, String fingerprint) {
        return new Candidate(index, sql, RAN, null, execution, fingerprint);
    }

    public Candidate failed(String error) {
        return new Candidate(index, sql, FAILED, error, null, null);
    }

    /** Whether it ran and so votes with its result. */
    public boolean votes() {
        return RAN.equals(status) && fingerprint != null;
    }
}
