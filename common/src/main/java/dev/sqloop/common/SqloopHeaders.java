package dev.sqloop.common;

/**
 * Kafka header names on every sqloop record (values are UTF-8 strings). The {@code sqloop-*} headers mirror fields of
 * the message ({@link dev.sqloop.common.message.Message#headers()}) so operators, tooling and dead letters can see a
 * record's question, attempt, tenant and deadline without decoding it; no stage reads them — a stage reads its
 * message. The runner reads {@code sqloop-deadline} (for messages without a deadline field), {@code traceparent},
 * and the question and batch ids (to end cancelled questions).
 */
public final class SqloopHeaders {
    public static final String ATTEMPT = "sqloop-attempt";
    public static final String MAX_ATTEMPTS = "sqloop-max-attempts";
    public static final String PREVIOUS_SQL = "sqloop-previous-sql";
    /** The retry round of a failed question run again (absent for the question as submitted: round 0). */
    public static final String ROUND = "sqloop-round";
    public static final String QUESTION_ID = "sqloop-question-id";
    public static final String DATASOURCE = "sqloop-datasource";
    public static final String TENANT = "sqloop-tenant";
    /** The batch a question belongs to (absent for a single question): what a batch cancellation matches. */
    public static final String BATCH_ID = "sqloop-batch-id";
    /** Epoch milliseconds after which the question is no longer worth working on. */
    public static final String DEADLINE = "sqloop-deadline";
    /** W3C trace context. */
    public static final String TRACEPARENT = "traceparent";

    /** Prefix of the dead-letter headers, modelled on Kafka Connect's DLQ reporter. */
    public static final String ERROR_PREFIX = "sqloop.error.";
    public static final String ERROR_TOPIC = ERROR_PREFIX + "topic";
    public static final String ERROR_PARTITION = ERROR_PREFIX + "partition";
    public static final String ERROR_OFFSET = ERROR_PREFIX + "offset";
    public static final String ERROR_STAGE = ERROR_PREFIX + "stage";
    public static final String ERROR_REASON = ERROR_PREFIX + "reason";
    public static final String ERROR_CLASS = ERROR_PREFIX + "exception.class";
    public static final String ERROR_MESSAGE = ERROR_PREFIX + "exception.message";

    private SqloopHeaders() {}
}
