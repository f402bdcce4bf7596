package dev.sqloop.common.metrics;

import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * Metric names shared by the stages (dot-case; Prometheus shows {@code sqloop_questions_total} etc.)
 * and the registry every process exposes.
 */
public final class Metrics {
    /** Counter, tags outcome = first_attempt_success | corrected_success | failed, reason, datasource, dialect. */
    public static final String QUESTIONS = "sqloop.questions";
    /** Counter, tags stage, category. */
    public static final String ERRORS = "sqloop.errors";
    /** Counter, tags category, decision = retry | max_attempts | unchanged_sql | non_retryable | unknown_datasource. */
    public static final String REPAIRS = "sqloop.repairs";
    /** Distribution summary of attempts used per finished question. */
    public static final String ATTEMPTS = "sqloop.attempts";
    /** Timer, tags stage, outcome. */
    public static final String STAGE_DURATION = "sqloop.stage.duration";
    /** Timer, tag outcome = ok | rejected | error: one LLM call, including failed ones. */
    public static final String LLM_DURATION = "sqloop.llm.duration";
    /** Counter of LLM tokens spent, tag type = input | output. */
    public static final String LLM_TOKENS = "sqloop.llm.tokens";
    /** Counter, tags datasource, kind = exact | similar: questions answered from memory without an LLM call. */
    public static final String FEWSHOT_SHORTCUTS = "sqloop.fewshot.shortcuts";
    /** Timer, tags datasource, dialect, outcome: submission to final result. */
    public static final String END_TO_END = "sqloop.end.to.end";
    /** Distribution summary, tags datasource, dialect: LLM tokens (input + output) one question cost. */
    public static final String QUESTION_TOKENS = "sqloop.question.tokens";
    /** Counter, tag category: non-blocking hints passed on with an attempt. */
    public static final String HINTS = "sqloop.hints";

    private Metrics() {}

    /** A Prometheus registry with JVM and process binders attached. */
    public static PrometheusMeterRegistry newRegistry() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new JvmMemoryMetrics().bindTo(registry);
        new JvmGcMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        return registry;
    }
}
