package dev.sqloop.common.runtime;

import java.time.Duration;

/**
 * What stages report beyond what the runner measures itself (duration, outcome, retries, dead letters), without a
 * metrics library in stage code: the wiring passes {@code MicrometerStageMetrics} (in {@code common.metrics}), tests
 * pass {@link #NONE} or a recording fake.
 */
public interface StageMetrics {
    /** One LLM call, failed ones included; {@code outcome} = ok | rejected | error. */
    void llmCall(String outcome, Duration duration);

    /** Tokens one LLM answer cost. */
    void llmTokens(long input, long output);

    /** A repair decision: the error category it was about and its outcome (retry reason or final reason). */
    void repairDecision(String category, String outcome);

    /** A question answered from memory without an LLM call; {@code kind} = exact | similar. */
    void shortcut(String datasource, String kind);

    /** Reports nothing. */
    StageMetrics NONE = new StageMetrics() {
        @Override
        public void llmCall(String outcome, Duration duration) {}

        @Override
        public void llmTokens(long input, long output) {}

        @Override
        public void repairDecision(String category, String outcome) {}

        @Override
        public void shortcut(String datasource, String kind) {}
    };
}
