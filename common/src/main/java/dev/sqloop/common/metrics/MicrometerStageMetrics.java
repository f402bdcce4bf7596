package dev.sqloop.common.metrics;

import dev.sqloop.common.runtime.StageMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Objects;

/** {@link StageMetrics} as Micrometer meters, under the names in {@link Metrics}. */
public final class MicrometerStageMetrics implements StageMetrics {
    private final MeterRegistry registry;

    public MicrometerStageMetrics(MeterRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
    }

    @Override
    public void llmCall(String outcome, Duration duration) {
        Timer.builder(Metrics.LLM_DURATION).description("One LLM call, including failed ones")
                .tag("outcome", outcome).register(registry).record(duration);
    }

    @Override
    public void llmTokens(long input, long output) {
        registry.counter(Metrics.LLM_TOKENS, "type", "input").increment(input);
        registry.counter(Metrics.LLM_TOKENS, "type", "output").increment(output);
    }

    @Override
    public void repairDecision(String category, String outcome) {
        Counter.builder(Metrics.REPAIRS).description("Repair decisions by error category and outcome")
                .tag("category", category).tag("outcome", outcome).register(registry).increment();
    }

    @Override
    public void shortcut(String datasource, String kind) {
        registry.counter(Metrics.FEWSHOT_SHORTCUTS, "datasource", datasource, "kind", kind).increment();
    }
}
