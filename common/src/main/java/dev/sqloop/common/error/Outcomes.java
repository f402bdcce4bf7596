package dev.sqloop.common.error;

/** Why a question ended: the {@code reason} of a final result. */
public final class Outcomes {
    public static final String FIRST_ATTEMPT_SUCCESS = "first_attempt_success";
    public static final String CORRECTED_SUCCESS = "corrected_success";
    public static final String MAX_ATTEMPTS = "max_attempts";
    public static final String UNCHANGED_SQL = "unchanged_sql";
    public static final String NON_RETRYABLE = "non_retryable";
    public static final String UNKNOWN_DATASOURCE = "unknown_datasource";
    public static final String LLM_UNAVAILABLE = "llm_unavailable";
    public static final String WAREHOUSE_UNAVAILABLE = "warehouse_unavailable";
    public static final String INFRASTRUCTURE_ERROR = "infrastructure_error";
    public static final String DEADLINE_EXCEEDED = "deadline_exceeded";
    public static final String INTERNAL_ERROR = "internal_error";
    /** The question, or its batch, was cancelled (DELETE on the gateway) before it finished. */
    public static final String CANCELLED = "cancelled";

    /**
     * Several candidates were asked for and their results did not agree (a tie, or all differ): no answer is given and
     * the candidates are kept for review (issue 50). Never captured as an example.
     */
    public static final String UNCERTAIN = "uncertain";

    private Outcomes() {}
}
