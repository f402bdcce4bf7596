package dev.sqloop.generator;

import dev.sqloop.common.config.ConfigException;
import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.message.TokenUsage;
import java.util.Locale;

/**
 * The configured model's price table, in USD per million tokens: what one call costs is computed where its usage is
 * read, so every result carries the cost of its own attempts. Prices change and differ per contract, hence
 * configuration rather than a built-in list; none configured costs 0 (and the dashboards show 0, not a guess).
 *
 * @param input uncached prompt tokens
 * @param cachedInput prompt tokens the provider served from its prompt cache; unset, the input price (no discount
 *     is claimed that was not configured)
 * @param output completion tokens
 * @param batchDiscount the share taken off calls sent through a provider batch API (OpenAI Batch and Anthropic
 *     Message Batches both take 50 %); for the batch mode, which online calls never use
 * @param cacheWrite prompt tokens written to the prompt cache: Anthropic bills a cache write (its
 *     {@code cache_creation_input_tokens}) at 1.25x the input price for the 5-minute cache; OpenAI reports none
 */
public record LlmPrices(double input, double cachedInput, double output, double batchDiscount, double cacheWrite) {
    public static final LlmPrices NONE = new LlmPrices(0, 0, 0, 0.5, 0);
    /** Anthropic's surcharge on a 5-minute cache write: 1.25x the base input price. */
    public static final double CACHE_WRITE_FACTOR = 1.25;

    public LlmPrices {
        if (input < 0 || cachedInput < 0 || output < 0 || cacheWrite < 0) throw new ConfigException("LLM prices must not be negative: " + this);
        if (batchDiscount < 0 || batchDiscount > 1) throw new ConfigException("the batch discount is a share between 0 and 1, was " + batchDiscount);
    }

    /** Cache writes at 1.25x the input price (they only occur where a provider reports them: Anthropic). */
    public LlmPrices(double input, double cachedInput, double output, double batchDiscount) {
        this(input, cachedInput, output, batchDiscount, input * CACHE_WRITE_FACTOR);
    }

    /**
     * {@code SQLOOP_LLM_PRICE_INPUT}, {@code SQLOOP_LLM_PRICE_CACHED_INPUT}, {@code SQLOOP_LLM_PRICE_OUTPUT} (USD per
     * million tokens of the model in {@code SQLOOP_LLM_MODEL}), {@code SQLOOP_LLM_PRICE_BATCH_DISCOUNT} (0-1) and
     * {@code SQLOOP_LLM_PRICE_CACHE_WRITE} (default 1.25x the input price, Anthropic's 5-minute cache write).
     */
    public static LlmPrices fromEnv(EnvConfig env) {
        double input = env.decimal("SQLOOP_LLM_PRICE_INPUT", 0);
        return new LlmPrices(input, env.decimal("SQLOOP_LLM_PRICE_CACHED_INPUT", input), env.decimal("SQLOOP_LLM_PRICE_OUTPUT", 0),
                env.decimal("SQLOOP_LLM_PRICE_BATCH_DISCOUNT", NONE.batchDiscount()),
                env.decimal("SQLOOP_LLM_PRICE_CACHE_WRITE", input * CACHE_WRITE_FACTOR));
    }

    /** What a call that used {@code usage} costs, in USD; {@code batched} when it went through a provider batch API. */
    public double cost(TokenUsage usage, boolean batched) {
        long cached = Math.min(usage.cachedInputTokens(), usage.inputTokens());
        double full = ((usage.inputTokens() - cached) * input + cached * cachedInput + usage.outputTokens() * output) / 1e6;
        return batched ? full * (1 - batchDiscount) : full;
    }

    /**
     * What a call costs whose prompt wrote {@code cacheWriteTokens} to the provider's cache: those tokens are part of
     * the usage's uncached input and cost the cache-write price instead of the input price.
     */
    public double cost(TokenUsage usage, long cacheWriteTokens, boolean batched) {
        long written = Math.max(0, Math.min(cacheWriteTokens, usage.inputTokens() - Math.min(usage.cachedInputTokens(), usage.inputTokens())));
        double full = cost(usage, false) + written * (cacheWrite - input) / 1e6;
        return batched ? full * (1 - batchDiscount) : full;
    }

    /** The usage of one online call with its cost set. */
    public TokenUsage priced(TokenUsage usage) {
        return usage.withCost(cost(usage, false));
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "LlmPrices[input=%s, cachedInput=%s, output=%s, cacheWrite=%s per 1M tokens, batchDiscount=%s]",
                input, cachedInput, output, cacheWrite, batchDiscount);
    }
}
