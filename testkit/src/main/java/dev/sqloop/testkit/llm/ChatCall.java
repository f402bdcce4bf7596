package dev.sqloop.testkit.llm;

/**
 * One chat request as the simulated LLM saw it: the system and user text, whether JSON output was asked for,
 * the model name and which API it came through ({@code openai} or {@code ollama}).
 */
public record ChatCall(String api, String model, String system, String user, boolean jsonMode) {}
