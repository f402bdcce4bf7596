package dev.sqloop.generator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sqloop.common.message.TokenUsage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The OpenAI Batch API's JSONL, both ways: one {@code /v1/chat/completions} request line per prompt (the same request
 * the online client sends: one system message, prefix first, then the user message), and the output and error files'
 * lines read back into an answer or an error per custom id. Pure: no HTTP.
 */
public final class BatchLines {
    private static final ObjectMapper JSON = new ObjectMapper();

    private BatchLines() {}

    /** What a line of the output or error file says about one request. */
    public sealed interface LineResult permits Answer, LineError {}

    /**
     * The model answered: its text and its usage (uncosted), and the prompt tokens it wrote to the provider's cache
     * (Anthropic's {@code cache_creation_input_tokens}, part of the usage's uncached input, priced as a cache write).
     */
    public record Answer(String text, TokenUsage usage, long cacheWriteTokens) implements LineResult {
        public Answer(String text, TokenUsage usage) {
            this(text, usage, 0);
        }
    }

    /** The provider did not answer this request: its code ({@code batch_expired}, an HTTP status…) and message. */
    public record LineError(String code, String message) implements LineResult {}

    /** A request as the model's settings make it. */
    public record RequestSettings(String model, double temperature, int maxTokens, boolean jsonMode) {}

    public static String requestLine(String customId, LlmClient.Prompt prompt, RequestSettings settings) {
        ObjectNode line = JSON.createObjectNode();
        line.put("custom_id", customId);
        line.put("method", "POST");
        line.put("url", "/v1/chat/completions");
        ObjectNode body = line.putObject("body");
        body.put("model", settings.model());
        body.put("temperature", settings.temperature());
        body.put("max_tokens", settings.maxTokens());
        ArrayNode messages = body.putArray("messages");
        messages.addObject().put("role", "system").put("content", prompt.system());
        messages.addObject().put("role", "user").put("content", prompt.user());
        if (settings.jsonMode()) body.putObject("response_format").put("type", "json_object");
        try {
            return JSON.writeValueAsString(line);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The lines of an output or error file by custom id. A line that cannot be read is skipped (its request ends
     * without an answer, which the caller reports); a request answered with a status other than 200 is a {@link LineError}.
     */
    public static Map<String, LineResult> parse(String jsonl) {
        Map<String, LineResult> out = new HashMap<>();
        if (jsonl == null) return out;
        for (String raw : jsonl.split("\n")) {
            if (raw.isBlank()) continue;
            JsonNode line;
            try {
                line = JSON.readTree(raw);
            } catch (IOException e) {
                continue;
            }
            String id = line.path("custom_id").asText(null);
            if (id == null) continue;
            JsonNode error = line.path("error");
            JsonNode response = line.path("response");
            if (error.isObject()) {
                out.put(id, new LineError(error.path("code").asText("error"), error.path("message").asText("")));
            } else if (response.path("status_code").asInt(0) != 200) {
                JsonNode e = response.path("body").path("error");
                out.put(id, new LineError(Integer.toString(response.path("status_code").asInt(0)), e.path("message").asText(response.path("body").toString())));
            } else {
                out.put(id, answer(response.path("body")));
            }
        }
        return out;
    }

    /** A chat completion body: the first choice's content, usage with the cached prompt tokens. */
    static Answer answer(JsonNode completion) {
        JsonNode content = completion.path("choices").path(0).path("message").path("content");
        JsonNode usage = completion.path("usage");
        long input = usage.path("prompt_tokens").asLong(0);
        long cached = Math.max(0, Math.min(input, usage.path("prompt_tokens_details").path("cached_tokens").asLong(0)));
        return new Answer(content.isTextual() ? content.asText() : "", new TokenUsage(input, usage.path("completion_tokens").asLong(0), cached, 0));
    }

    /** The JSONL of several lines, each ending in a newline. */
    public static String jsonl(List<String> lines) {
        StringBuilder sb = new StringBuilder();
        for (String l : lines) sb.append(l).append('\n');
        return sb.toString();
    }
}
