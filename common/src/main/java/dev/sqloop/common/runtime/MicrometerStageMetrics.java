package dev.sqloop.common.runtime;

import dev.sqloop.common.message.TokenUsage;
import dev.sqloop.common.metrics.Metrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;

/** {@link StageMetrics} as Micrometer meters, under the names in {@link Metrics}. */
public final class MicrometerStageMetrics implements StageMetrics {
    /** OTel gen-ai semconv 1.37.0 advice for {@code gen_ai.client.operation.duration}, seconds. */
    static final double[] GEN_AI_DURATION_BUCKETS = {0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24,
            20.48, 40.96, 81.92};
    /** OTel gen-ai semconv 1.37.0 advice for {@code gen_ai.client.token.usage}. */
    static final double[] GEN_AI_TOKEN_BUCKETS = {1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304};
    /** OTel db semconv advice for {@code db.client.operation.duration}, seconds. */
    static final double[] DB_DURATION_BUCKETS = {0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10};
    /** Embedding (a few ms on CPU) plus a search, up to a slow remote store. */
    static final double[] FEWSHOT_RETRIEVAL_BUCKETS = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5};
    static final String CHAT = "chat";
    private static final Duration[] GEN_AI_DURATION_SLOS = durations(GEN_AI_DURATION_BUCKETS);
    private static final Duration[] DB_DURATION_SLOS = durations(DB_DURATION_BUCKETS);
    private static final Duration[] FEWSHOT_RETRIEVAL_SLOS = durations(FEWSHOT_RETRIEVAL_BUCKETS);

    private final MeterRegistry registry;

    public MicrometerStageMetrics(MeterRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
    }

    @Override
    public void llmCall(String provider, String model, String errorType, Duration duration) {
        Timer.builder(Metrics.GEN_AI_OPERATION_DURATION).description("One LLM call, including failed and retried ones")
                .tag(Metrics.GEN_AI_OPERATION_NAME, CHAT).tag(Metrics.GEN_AI_PROVIDER_NAME, provider)
                .tag(Metrics.GEN_AI_REQUEST_MODEL, model).tag(Metrics.ERROR_TYPE, errorType)
                .serviceLevelObjectives(GEN_AI_DURATION_SLOS)
                .register(registry).record(duration);
    }

    @Override
    public void llmTokens(String provider, String model, TokenUsage usage) {
        tokens(provider, model, Metrics.TOKEN_TYPE_INPUT).record(usage.inputTokens());
        // a part of the input, not more of it: recorded even at 0, so a cache share is 0 rather than "no data"
        tokens(provider, model, Metrics.TOKEN_TYPE_CACHE_READ).record(usage.cachedInputTokens());
        tokens(provider, model, Metrics.TOKEN_TYPE_OUTPUT).record(usage.outputTokens());
        Counter.builder(Metrics.LLM_COST).baseUnit(Metrics.USD).description("What answered LLM calls cost, from the configured price table")
                .tag(Metrics.GEN_AI_PROVIDER_NAME, provider).tag(Metrics.GEN_AI_REQUEST_MODEL, model)
                .register(registry).increment(usage.cost());
    }

    private DistributionSummary tokens(String provider, String model, String type) {
        return DistributionSummary.builder(Metrics.GEN_AI_TOKEN_USAGE).description("Tokens one LLM call used")
                .tag(Metrics.GEN_AI_TOKEN_TYPE, type).tag(Metrics.GEN_AI_OPERATION_NAME, CHAT)
                .tag(Metrics.GEN_AI_PROVIDER_NAME, provider).tag(Metrics.GEN_AI_REQUEST_MODEL, model)
                .serviceLevelObjectives(GEN_AI_TOKEN_BUCKETS)
                .register(registry);
    }

    @Override
    public void dbCall(String system, String errorType, Duration duration) {
        Timer.builder(Metrics.DB_OPERATION_DURATION).description("One statement sent to a SQL engine, success or failure")
                .tag(Metrics.DB_SYSTEM_NAME, system).tag(Metrics.ERROR_TYPE, errorType)
                .serviceLevelObjectives(DB_DURATION_SLOS)
                .register(registry).record(duration);
    }

    @Override
    public void fewshotRetrieval(Duration duration) {
        Timer.builder(Metrics.FEWSHOT_RETRIEVAL_DURATION).description("Embedding one question and searching the example store")
                .serviceLevelObjectives(FEWSHOT_RETRIEVAL_SLOS)
                .register(registry).record(duration);
    }

    @Override
    public void fewshotHits(int examples) {
        DistributionSummary.builder(Metrics.FEWSHOT_HITS).description("Examples placed in one prompt")
                .register(registry).record(examples);
    }

    @Override
    public void shortcut(String datasource, String kind) {
        registry.counter(Metrics.FEWSHOT_SHORTCUTS, "datasource", datasource, "kind", kind).increment();
    }

    @Override
    public void capture() {
        Counter.builder(Metrics.FEWSHOT_CAPTURES).description("Successes stored as examples by auto-capture")
                .register(registry).increment();
    }

    private static Duration[] durations(double[] seconds) {
        return Arrays.stream(seconds).mapToObj(s -> Duration.ofNanos(Math.round(s * 1e9))).toArray(Duration[]::new);
    }
}
