package dev.sqloop.testkit.llm;

import java.time.Instant;

/** A request the simulated LLM received and the HTTP status it answered with (tests assert on prompts). */
public record RecordedRequest(ChatCall call, int status, String answer, Instant at) {
    public String system() {
        return call.system();
    }

    public String user() {
        return call.user();
    }
}
