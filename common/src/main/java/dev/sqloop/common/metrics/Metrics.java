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
    /**
     * Timer (histogram), one LLM call including failed and retried ones; OpenTelemetry gen-ai semconv 1.37.0.
     * Tags {@link #GEN_AI_OPERATION_NAME}, {@link #GEN_AI_PROVIDER_NAME}, {@link #GEN_AI_REQUEST_MODEL}, {@link #ERROR_TYPE}.
     */
    public static final String GEN_AI_OPERATION_DURATION = "gen_ai.client.operation.duration";
    /** Gauge: the LLM calls one generator worker lets run at once ({@code SQLOOP_LLM_MAX_CONCURRENCY}). */
    public static final String LLM_SLOTS_LIMIT = "sqloop.llm.slots.limit";
    /** Gauge: LLM calls running now (slots held), out of {@link #LLM_SLOTS_LIMIT}. */
    public static final String LLM_SLOTS_IN_USE = "sqloop.llm.slots.in.use";
    /**
     * Function counter, seconds: slot-seconds held (two calls running for one second add 2). Its rate over {@link
     * #LLM_SLOTS_LIMIT} is the share of the LLM's concurrency the pipeline keeps busy.
     */
    public static final String LLM_SLOTS_BUSY = "sqloop.llm.slots.busy";
    /**
     * Distribution summary (histogram) of tokens per answered LLM call: {@link #GEN_AI_TOKEN_TYPE} plus the call's tags.
     * Types: {@link #TOKEN_TYPE_INPUT} (every prompt token), {@link #TOKEN_TYPE_CACHE_READ} (the part of the input the
     * provider served from its prompt cache) and {@link #TOKEN_TYPE_OUTPUT}.
     */
    public static final String GEN_AI_TOKEN_USAGE = "gen_ai.client.token.usage";
    /** The OTel {@code gen_ai.token.type} values; {@code input} includes the cached part, as providers count it. */
    public static final String TOKEN_TYPE_INPUT = "input";
    public static final String TOKEN_TYPE_OUTPUT = "output";
    /**
     * Not (yet) an OTel {@code gen_ai.token.type} value: named after OTel's {@code gen_ai.usage.cache_read.input_tokens}
     * attribute. A subset of {@link #TOKEN_TYPE_INPUT}, so never summed with it.
     */
    public static final String TOKEN_TYPE_CACHE_READ = "cache_read";
    /**
     * Counter, USD ({@link #USD}): what answered LLM calls cost at the generator's price table ({@code SQLOOP_LLM_PRICE_*});
     * tags {@link #GEN_AI_PROVIDER_NAME}, {@link #GEN_AI_REQUEST_MODEL}. Prometheus: {@code sqloop_llm_cost_usd_total}.
     */
    public static final String LLM_COST = "sqloop.llm.cost";
    public static final String USD = "usd";
    /** Timer (histogram), one statement sent to a SQL engine; OTel db semconv. Tags {@link #DB_SYSTEM_NAME}, {@link #ERROR_TYPE}. */
    public static final String DB_OPERATION_DURATION = "db.client.operation.duration";
    /** Timer (histogram): embedding one question and searching the example store. */
    public static final String FEWSHOT_RETRIEVAL_DURATION = "sqloop.fewshot.retrieval.duration";
    /** Distribution summary: examples placed in one prompt. */
    public static final String FEWSHOT_HITS = "sqloop.fewshot.hits";
    /** Counter, tags datasource, kind = exact | similar: questions answered from memory without an LLM call. */
    public static final String FEWSHOT_SHORTCUTS = "sqloop.fewshot.shortcuts";
    /** Counter: successes auto-capture stored as examples (a duplicate it did not store is not counted). */
    public static final String FEWSHOT_CAPTURES = "sqloop.fewshot.captures";
    /** Gauge, tag datasource: examples stored per configured datasource, read from the store at each scrape. */
    public static final String FEWSHOT_EXAMPLES = "sqloop.fewshot.examples";

    /** OTel tag keys (Prometheus shows {@code gen_ai_operation_name} etc.). */
    public static final String GEN_AI_OPERATION_NAME = "gen_ai.operation.name";
    public static final String GEN_AI_PROVIDER_NAME = "gen_ai.provider.name";
    public static final String GEN_AI_REQUEST_MODEL = "gen_ai.request.model";
    public static final String GEN_AI_TOKEN_TYPE = "gen_ai.token.type";
    public static final String DB_SYSTEM_NAME = "db.system.name";
    /** Empty on success; otherwise a bounded error class. Always present, so every meter of a name has the same keys. */
    public static final String ERROR_TYPE = "error.type";
    /** Timer, tags datasource, dialect, outcome: submission to final result. */
    public static final String END_TO_END = "sqloop.end.to.end";
    /** Distribution summary, tags datasource, dialect: LLM tokens (input + output) one question cost. */
    public static final String QUESTION_TOKENS = "sqloop.question.tokens";
    /**
     * Distribution summary, USD ({@link #USD}), tags datasource, dialect, outcome: what one question's LLM calls cost, all
     * attempts (Prometheus: {@code sqloop_question_cost_usd}); its sum over the successes' count is the cost per success.
     */
    public static final String QUESTION_COST = "sqloop.question.cost";
    /** Counter, tag category: non-blocking hints passed on with an attempt. */
    public static final String HINTS = "sqloop.hints";
    /**
     * Distribution summary, tags datasource, dialect: candidates a question was answered from (issue 50; only questions
     * whose datasource asks for more than one); with {@link #QUESTION_COST} by datasource, the cost multiplier.
     */
    public static final String QUESTION_CANDIDATES = "sqloop.question.candidates";
    /** Distribution summary, tags datasource, dialect: the largest agreeing group's share of the candidates that ran (0-1). */
    public static final String CANDIDATE_AGREEMENT = "sqloop.candidate.agreement";
    /** Counter, tag decision (unanimous, majority, sole, pairwise, uncertain): how a question's answer was chosen among its candidates. */
    public static final String CANDIDATE_SELECTIONS = "sqloop.candidate.selections";
    /** Counter, tag category: failed candidates sent to repair (issue 50), by the category of their failure. */
    public static final String CANDIDATE_REPAIRS = "sqloop.candidate.repairs";

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
