package dev.sqloop.testkit.llm;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Answers from a script: per question, the content to return on its 1st, 2nd, … call (the last one repeats).
 * Scripts are maps or JSON files {@code {"question": ["answer 1", "answer 2"]}}. Answers are returned verbatim,
 * so a script can hold JSON, fenced blocks, prose or junk.
 */
public final class ScriptedResponder implements Responder {
    public static final String UNKNOWN_QUESTION = "I do not know which question this is.";

    private final Map<String, List<String>> script;
    private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();

    public ScriptedResponder(Map<String, List<String>> script) {
        this.script = new LinkedHashMap<>(script);
        this.script.replaceAll((q, answers) -> List.copyOf(answers));
    }

    public static ScriptedResponder fromFile(Path json) throws IOException {
        return new ScriptedResponder(new ObjectMapper().readValue(json.toFile(), new TypeReference<Map<String, List<String>>>() {}));
    }

    @Override
    public String respond(ChatCall call) {
        String question = Questions.identify(script.keySet(), call.user());
        if (question == null) return UNKNOWN_QUESTION;
        List<String> answers = script.get(question);
        int n = calls.computeIfAbsent(question, q -> new AtomicInteger()).getAndIncrement();
        return answers.get(Math.min(n, answers.size() - 1));
    }

    /** How many times a question was answered. */
    public int calls(String question) {
        AtomicInteger n = calls.get(question);
        return n == null ? 0 : n.get();
    }
}
