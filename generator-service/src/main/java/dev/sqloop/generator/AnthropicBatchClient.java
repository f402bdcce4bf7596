package dev.sqloop.generator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sqloop.common.runtime.InfrastructureException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Anthropic's Message Batches over {@code java.net.http}: {@code POST /v1/messages/batches} with each request's Messages
 * body (the online client's, cache breakpoint included: cache reads and writes are billed in batches too, at the batch
 * price), retrieve, cancel, and the results JSONL from the batch's {@code results_url}. Four calls, hence no SDK.
 */
public final class AnthropicBatchClient implements ProviderBatchApi {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http;
    private final String baseUrl;
    private final String apiKey;
    private final Duration timeout;

    /** @param baseUrl as for the online client, ending in {@code /v1} */
    public AnthropicBatchClient(String baseUrl, String apiKey, Duration timeout) {
        this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
        this.apiKey = apiKey;
        this.timeout = timeout;
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(timeout).build();
    }

    /** Anthropic's custom ids allow only {@code [A-Za-z0-9_-]{1,64}}: the window's {@code index:question} becomes {@code index-question}. */
    static String customId(String windowCustomId) {
        String id = windowCustomId.replace(':', '-').replaceAll("[^A-Za-z0-9_-]", "_");
        return id.length() <= 64 ? id : id.substring(0, 64);
    }

    /** The create request: one {@code {custom_id, params}} per prompt, params being the online Messages body. */
    static ObjectNode createBody(List<Request> requests, BatchLines.RequestSettings settings) {
        AnthropicLlmClient.Settings params = new AnthropicLlmClient.Settings(settings.model(), settings.temperature(), settings.maxTokens());
        ObjectNode body = JSON.createObjectNode();
        ArrayNode out = body.putArray("requests");
        for (Request r : requests) {
            ObjectNode line = out.addObject().put("custom_id", customId(r.customId()));
            line.set("params", AnthropicLlmClient.requestBody(r.prompt(), params));
        }
        return body;
    }

    /** Message batches have no metadata to find a window's batch by: a window sealed but not recorded as submitted is sent again. */
    @Override
    public Optional<String> submittedAs(String windowId) {
        return Optional.empty();
    }

    @Override
    public Submission submit(String windowId, List<Request> requests, BatchLines.RequestSettings settings) {
        HttpRequest request = request(baseUrl + "/messages/batches").header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(createBody(requests, settings).toString(), StandardCharsets.UTF_8)).build();
        return new Submission(state(json(send(request, "batch creation for window " + windowId))).id(), null);
    }

    @Override
    public State state(String batchId) {
        return state(json(send(request(baseUrl + "/messages/batches/" + batchId).GET().build(), "batch " + batchId)));
    }

    @Override
    public Map<String, BatchLines.LineResult> results(State ended) {
        Map<String, BatchLines.LineResult> out = new HashMap<>();
        for (String url : ended.results()) out.putAll(parse(send(request(url).GET().build(), "results of batch " + ended.id())));
        return out;
    }

    @Override
    public void stop(String batchId) {
        send(request(baseUrl + "/messages/batches/" + batchId + "/cancel").POST(HttpRequest.BodyPublishers.noBody()).build(),
                "cancel of batch " + batchId);
    }

    /**
     * A message batch: {@code processing_status} {@code in_progress}, {@code canceling} or {@code ended}; once ended its
     * status names the request counts, so a question left unanswered says why (expired, canceled, errored).
     */
    static State state(JsonNode b) {
        String processing = b.path("processing_status").asText("");
        boolean ended = processing.equals("ended");
        String status = processing;
        if (ended) {
            JsonNode c = b.path("request_counts");
            status = "ended (succeeded " + c.path("succeeded").asLong() + ", errored " + c.path("errored").asLong() + ", expired "
                    + c.path("expired").asLong() + ", canceled " + c.path("canceled").asLong() + ")";
        }
        String url = b.path("results_url").isTextual() ? b.path("results_url").asText() : null;
        return new State(b.path("id").asText(), status, ended, null, ended && url != null ? List.of(url) : List.of());
    }

    /**
     * The results JSONL: a {@code succeeded} line is an answer with its usage (cache reads and writes as online); an
     * {@code errored} one the provider's refusal; {@code expired} and {@code canceled} lines are no answer, so their
     * questions end as unanswered by the ended batch. An unreadable line is skipped, as for OpenAI.
     */
    static Map<String, BatchLines.LineResult> parse(String jsonl) {
        Map<String, BatchLines.LineResult> out = new HashMap<>();
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
            JsonNode result = line.path("result");
            if (id == null) continue;
            switch (result.path("type").asText("")) {
                case "succeeded" -> {
                    AnthropicLlmClient.Answer a = AnthropicLlmClient.answer(result.path("message"));
                    out.put(id, new BatchLines.Answer(a.text(), a.usage(), a.cacheWriteTokens()));
                }
                case "errored" -> {
                    JsonNode e = result.path("error").path("error");
                    out.put(id, new BatchLines.LineError(e.path("type").asText("error"), e.path("message").asText("")));
                }
                default -> { } // expired, canceled: not answered
            }
        }
        return out;
    }

    private HttpRequest.Builder request(String url) {
        return HttpRequest.newBuilder(URI.create(url)).timeout(timeout).header("x-api-key", apiKey)
                .header("anthropic-version", AnthropicLlmClient.API_VERSION);
    }

    private String send(HttpRequest request, String what) {
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new InfrastructureException("LLM batch API unreachable (" + what + "): " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InfrastructureException("interrupted during " + what, e);
        }
        if (response.statusCode() / 100 == 2) return response.body();
        throw AnthropicLlmClient.failure(response, "LLM batch API: " + what);
    }

    private static JsonNode json(String body) {
        try {
            return JSON.readTree(body);
        } catch (IOException e) {
            throw new InfrastructureException("LLM batch API answered something that is not JSON: "
                    + (body.length() > 300 ? body.substring(0, 300) + "…" : body), e);
        }
    }
}
