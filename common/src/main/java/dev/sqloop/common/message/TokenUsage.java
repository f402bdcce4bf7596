package dev.sqloop.common.message;

/**
 * LLM tokens spent on a question, summed over its attempts, and what they cost.
 *
 * @param inputTokens every prompt token, those served from the provider's prompt cache included (OpenAI's
 *     {@code prompt_tokens})
 * @param outputTokens completion tokens
 * @param cachedInputTokens the part of {@code inputTokens} the provider served from its prompt cache, billed at the
 *     cached-input price (OpenAI's {@code prompt_tokens_details.cached_tokens}); 0 where the provider reports none
 *     (and in results from before cached counts were read)
 * @param cost in USD, from the generator's price table ({@code SQLOOP_LLM_PRICE_*}); 0 where no price is configured
 */
public record TokenUsage(long inputTokens, long outputTokens, long cachedInputTokens, double cost) {
    public static final TokenUsage ZERO = new TokenUsage(0, 0);

    public TokenUsage(long inputTokens, long outputTokens) {
        this(inputTokens, outputTokens, 0, 0);
    }

    public TokenUsage plus(TokenUsage other) {
        return other == null ? this : new TokenUsage(inputTokens + other.inputTokens, outputTokens + other.outputTokens,
                cachedInputTokens + other.cachedInputTokens, cost + other.cost);
    }

    /** This usage with its cost set. */
    public TokenUsage withCost(double cost) {
        return new TokenUsage(inputTokens, outputTokens, cachedInputTokens, cost);
    }

    /** This usage {@code n} times ({@code -1} retracts it from a sum). */
    public TokenUsage times(long n) {
        return new TokenUsage(inputTokens * n, outputTokens * n, cachedInputTokens * n, cost * n);
    }
}
