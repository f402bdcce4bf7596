package dev.sqloop.testkit.llm;

/**
 * One chat request as the simulated LLM saw it: the system and user text, whether JSON output was asked for,
 * the model name and which API it came through ({@code openai} or {@code ollama}).
 *
 * @param user every user message, joined
 * @param lastUser the last user message alone: the turn being answered (earlier turns may hold few-shot questions)
 */
public record ChatCall(String api, String model, String system, String user, boolean jsonMode, String lastUser) {
    public ChatCall {
        lastUser = lastUser == null ? user : lastUser;
    }

    public ChatCall(String api, String model, String system, String user, boolean jsonMode) {
        this(api, model, system, user, jsonMode, user);
    }
}
