package dev.sqloop.common.runtime;

import dev.sqloop.common.message.TokenUsage;
import java.time.Duration;

/**
 * What stages report beyond what the runner measures itself (duration, outcome, retries, dead letters), without a
 * metrics library in stage code: the wiring passes {@link MicrometerStageMetrics}, tests
 * pass {@link #NONE} or a registry-backed one. Every tag value passed here must be bounded (no question, SQL or id).
 */
public interface StageMetrics {
    /**
     * One LLM chat call, failed ones included (also those the runner retries).
     *
     * @param provider  {@code openai} | {@code ollama}
     * @param model     the configured model name
     * @param errorType empty on success; else an HTTP status code, {@code timeout}, {@code rejected} or a class name
     */
    void llmCall(String provider, String model, String errorType, Duration duration);

    /**
     * Tokens one LLM answer used, the part of its prompt served from the provider's cache, and its cost (only answered
     * calls have a usage).
     */
    void llmTokens(String provider, String model, TokenUsage usage);

    /**
     * One statement sent to a SQL engine, success or failure.
     *
     * @param system    the OTel {@code db.system.name}: trino | postgresql | duckdb | hive | spark | presto
     * @param errorType empty on success; else the error category's wire name, or {@code timeout}
     */
    void dbCall(String system, String errorType, Duration duration);

    /** Embedding the question and searching the example store, for one question. */
    void fewshotRetrieval(Duration duration);

    /** Examples placed in one prompt. */
    void fewshotHits(int examples);

    /** A question answered from memory without an LLM call; {@code kind} = exact | similar. */
    void shortcut(String datasource, String kind);

    /** A success stored as an example by auto-capture. */
    void capture();

    /** Reports nothing. */
    StageMetrics NONE = new StageMetrics() {
        @Override
        public void llmCall(String provider, String model, String errorType, Duration duration) {}

        @Override
        public void llmTokens(String provider, String model, TokenUsage usage) {}

        @Override
        public void dbCall(String system, String errorType, Duration duration) {}

        @Override
        public void fewshotRetrieval(Duration duration) {}

        @Override
        public void fewshotHits(int examples) {}

        @Override
        public void shortcut(String datasource, String kind) {}

        @Override
        public void capture() {}
    };
}
