package dev.sqloop.common;

/** Kafka header names that every stage reads and writes (values are UTF-8 strings). */
public final class SqloopHeaders {
    public static final String ATTEMPT = "sqloop-attempt";
    public static final String MAX_ATTEMPTS = "sqloop-max-attempts";
    public static final String PREVIOUS_SQL = "sqloop-previous-sql";
    public static final String QUESTION_ID = "sqloop-question-id";
    public static final String DATASOURCE = "sqloop-datasource";
    public static final String TENANT = "sqloop-tenant";
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
