package dev.sqloop.generator;

import dev.sqloop.common.message.TokenUsage;

/**
 * One chat completion. Implementations throw {@link dev.sqloop.common.runtime.InfrastructureException} for
 * failures worth retrying unchanged (429, 5xx, timeouts, connection refused) and {@link LlmRejectedException}
 * when the endpoint refuses the request for good (400, 401, 404). They never retry themselves.
 */
public interface LlmClient {

    Reply complete(Prompt prompt);

    /** The OTel {@code gen_ai.provider.name} of the endpoint: {@code openai}, {@code anthropic} or {@code ollama}. */
    default String provider() {
        return GeneratorConfig.OPENAI;
    }

    /** The OTel {@code gen_ai.request.model}: the model asked for (test doubles answer for none). */
    default String model() {
        return "none";
    }

    /**
     * A prompt: the system part, laid out as a {@code prefix} that is the same for every question of a datasource (rules,
     * answer format, dialect, the whole schema) followed by this question's {@code context} (a linked schema subset,
     * examples), then the {@code user} part (the question or correction). Providers cache a repeated prompt prefix
     * (OpenAI from 1,024 tokens on, automatically; Anthropic up to an explicit breakpoint, which belongs at the end of
     * {@code prefix}). {@code correction} when it is a later attempt of a question in repair, which gets the LLM before
     * first attempts.
     */
    record Prompt(String prefix, String context, String user, boolean correction) {
        public Prompt {
            prefix = prefix == null ? "" : prefix;
            context = context == null ? "" : context;
        }

        public Prompt(String system, String user, boolean correction) {
            this(system, "", user, correction);
        }

        public Prompt(String system, String user) {
            this(system, "", user, false);
        }

        /** The system message as sent: the prefix, then the context. */
        public String system() {
            return (prefix + context).stripTrailing();
        }
    }

    /** What the model answered and what it cost. */
    record Reply(String text, TokenUsage usage) {}
}
