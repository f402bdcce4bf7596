package dev.sqloop.common.message;

/** LLM tokens spent on a question, summed over its attempts. */
public record TokenUsage(long inputTokens, long outputTokens) {
    public static final TokenUsage ZERO = new TokenUsage(0, 0);

    public TokenUsage plus(TokenUsage other) {
        return other == null ? this : new TokenUsage(inputTokens + other.inputTokens, outputTokens + other.outputTokens);
    }
}
