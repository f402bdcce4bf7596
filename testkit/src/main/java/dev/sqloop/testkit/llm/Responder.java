package dev.sqloop.testkit.llm;

/** Decides what the simulated LLM answers: the assistant message's content for one call. */
@FunctionalInterface
public interface Responder {
    String respond(ChatCall call);
}
