package dev.sqloop.generator;

import dev.sqloop.common.message.TokenUsage;

/**
 * One chat completion. Implementations throw {@link dev.sqloop.common.runtime.InfrastructureException} for
 * failures worth retrying unchanged (429, 5xx, timeouts, connection refused) and {@link LlmRejectedException}
 * when the endpoint refuses the request for good (400, 401, 404). They never retry themselves.
 */
public interface LlmClient {

    Reply complete(Prompt prompt);

    /** The OTel {@code gen_ai.provider.name} of the endpoint: {@code openai} or {@code ollama}. */
    default String provider() {
        return GeneratorConfig.OPENAI;
    }

    /** The OTel {@code gen_ai.request.model}: the model asked for (test doubles answer for none). */
    default String model() {
        return "none";
    }

    /**
     * The two parts of a prompt: instructions and context (system), and the question or correction (user);
     * {@code correction} when it is a later attempt of a question in repair, which gets the LLM before first attempts.
     */
    record Prompt(String system, String user, boolean correction) {
        public Prompt(String system, String user) {
            this(system, user, false);
        }
    }

    /** What the model answered and what it cost. */
    record Reply(String text, TokenUsage usage) {}
}
