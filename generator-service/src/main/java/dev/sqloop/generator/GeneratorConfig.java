package dev.sqloop.generator;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.config.ConfigException;
import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.datasource.Datasources;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/**
 * The generator service's settings: which LLM endpoint to call and how, and which dialect each datasource speaks.
 *
 * @param provider {@code openai} (any OpenAI-compatible endpoint), {@code anthropic} (the Messages API, with a prompt-cache
 *     breakpoint after the stable prefix) or {@code ollama}
 * @param jsonMode ask the endpoint for a JSON object {@code {"sql": …}}; off for endpoints that reject it
 * @param maxConcurrency LLM calls in flight at once per worker, protecting the endpoint
 * @param ratePerSecond optional cap on LLM calls per second per worker; 0 is off
 * @param projectionContract prune SELECT items the question did not ask for (002's projection contract)
 * @param prices the model's price table, from which every call's cost is computed
 */
public record GeneratorConfig(String provider, String baseUrl, String apiKey, String model, double temperature,
                              int maxTokens, Duration timeout, boolean jsonMode, int maxConcurrency,
                              double ratePerSecond, boolean projectionContract, Map<String, Dialect> dialects, LlmPrices prices) {
    public static final String OPENAI = "openai";
    public static final String OLLAMA = "ollama";
    public static final String ANTHROPIC = "anthropic";

    public GeneratorConfig {
        dialects = Map.copyOf(dialects);
        prices = prices == null ? LlmPrices.NONE : prices;
    }

    /** Without a price table: every call costs 0. */
    public GeneratorConfig(String provider, String baseUrl, String apiKey, String model, double temperature, int maxTokens,
                           Duration timeout, boolean jsonMode, int maxConcurrency, double ratePerSecond,
                           boolean projectionContract, Map<String, Dialect> dialects) {
        this(provider, baseUrl, apiKey, model, temperature, maxTokens, timeout, jsonMode, maxConcurrency, ratePerSecond,
                projectionContract, dialects, LlmPrices.NONE);
    }

    public static GeneratorConfig fromEnv(EnvConfig env) {
        String provider = env.string("SQLOOP_LLM_PROVIDER", OPENAI).toLowerCase(Locale.ROOT);
        if (!provider.equals(OPENAI) && !provider.equals(OLLAMA) && !provider.equals(ANTHROPIC)) {
            throw new ConfigException("SQLOOP_LLM_PROVIDER must be openai, anthropic or ollama, was '" + provider + "'");
        }
        return new GeneratorConfig(
                provider,
                env.required("SQLOOP_LLM_BASE_URL"),
                env.string("SQLOOP_LLM_API_KEY", "not-needed"),
                env.string("SQLOOP_LLM_MODEL", switch (provider) {
                    case OLLAMA -> "llama3.1";
                    case ANTHROPIC -> "claude-haiku-4-5";
                    default -> "gpt-4o-mini";
                }),
                env.decimal("SQLOOP_LLM_TEMPERATURE", 0.0),
                env.integer("SQLOOP_LLM_MAX_TOKENS", 1024, 16, 100_000),
                env.duration("SQLOOP_LLM_TIMEOUT", Duration.ofSeconds(60)),
                env.bool("SQLOOP_LLM_JSON_MODE", true),
                env.integer("SQLOOP_LLM_MAX_CONCURRENCY", 32, 1, 10_000),
                env.decimal("SQLOOP_LLM_RATE_PER_SECOND", 0),
                env.bool("SQLOOP_PROJECTION_CONTRACT", false),
                Datasources.dialectsFromEnv(env),
                LlmPrices.fromEnv(env));
    }

    /** The online client for {@link #provider}, its concurrency meters bound to {@code registry}. */
    public LlmClient llmClient(io.micrometer.core.instrument.MeterRegistry registry) {
        return provider.equals(ANTHROPIC) ? AnthropicLlmClient.fromConfig(this).bindTo(registry)
                : LangChainLlmClient.fromConfig(this).bindTo(registry);
    }

    public DialectLookup dialectLookup() {
        return DialectLookup.of(dialects);
    }

    @Override
    public String toString() {
        return "GeneratorConfig[provider=" + provider + ", baseUrl=" + baseUrl + ", apiKey=****, model=" + model
                + ", temperature=" + temperature + ", maxTokens=" + maxTokens + ", timeout=" + timeout + ", jsonMode="
                + jsonMode + ", maxConcurrency=" + maxConcurrency + ", ratePerSecond=" + ratePerSecond + ", projectionContract="
                + projectionContract + ", dialects=" + dialects + ", prices=" + prices + "]";
    }
}
