package dev.sqloop.generator;

import dev.sqloop.common.message.TokenUsage;

/**
 * One chat completion. Implementations throw {@link dev.sqloop.common.runtime.InfrastructureException} for
 * failures worth retrying unchanged (429, 5xx, timeouts, connection refused) and {@link LlmRejectedException}
 * when the endpoint refuses the request for good (400, 401, 404). They never retry themselves.
 */
public interface LlmClient {

    Reply complete(Prompt prompt);

    /** The two parts of a prompt: instructions and context (system), and the question or correction (user). */
    record Prompt(String system, String user) {}

    /** What the model answered and what it cost. */
    record Reply(String text, TokenUsage usage) {}
}
