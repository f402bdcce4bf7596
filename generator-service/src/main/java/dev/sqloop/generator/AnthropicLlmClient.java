package dev.sqloop.generator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sqloop.common.Whitespace;
import dev.sqloop.common.message.TokenUsage;
import dev.sqloop.common.runtime.Cancellations;
import dev.sqloop.common.runtime.InfrastructureException;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;

/**
 * {@link LlmClient} on Anthropic's Messages API ({@code POST /v1/messages}) with a prompt-cache breakpoint at the end of
 * the prompt's stable prefix (rules, dialect rules, the whole schema), so every later question of a datasource within
 * the cache's five minutes reads that prefix at 0.1x the input price.
 *
 * <p>A small client on {@code java.net.http} rather than langchain4j-anthropic (1.19.0 resolves): its
 * {@code cacheSystemMessages} puts the breakpoint on the <em>last</em> system block, which here is the per-question
 * context, so no two questions would ever share a cached prefix; and {@code anthropic-java} would bring OkHttp and the
 * Kotlin runtime for one call. The same request body is what a Message Batches request's {@code params} holds.
 */
public final class AnthropicLlmClient implements LlmClient {
    /** The API version every request names (Anthropic's only stable one). */
    public static final String API_VERSION = "2023-06-01";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One answer: its text, its usage (input = uncached + cache read + cache write, cached = cache read) and the cache write. */
    public record Answer(String text, TokenUsage usage, long cacheWriteTokens) {}

    /** The model's settings a request carries. */
    public record Settings(String model, double temperature, int maxTokens) {}

    private final HttpClient http;
    private final URI messages;
    private final String apiKey;
    private final Settings settings;
    private final Duration timeout;
    private final LlmSlots permits;
    private final RequestPacer pacer;
    private final LlmPrices prices;

    /** @param baseUrl the API root ending in {@code /v1} ({@code https://api.anthropic.com/v1}), as for the OpenAI client */
    public AnthropicLlmClient(String baseUrl, String apiKey, Settings settings, Duration timeout, int maxConcurrency,
                              RequestPacer pacer, LlmPrices prices) {
        String base = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
        this.messages = URI.create(base + "/messages");
        this.apiKey = apiKey;
        this.settings = settings;
        this.timeout = timeout;
        this.permits = new LlmSlots(maxConcurrency);
        this.pacer = pacer;
        this.prices = prices;
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(timeout).build();
    }

    public static AnthropicLlmClient fromConfig(GeneratorConfig c) {
        return new AnthropicLlmClient(c.baseUrl(), c.apiKey(), new Settings(c.model(), c.temperature(), c.maxTokens()), c.timeout(),
                c.maxConcurrency(), new RequestPacer(c.ratePerSecond()), c.prices());
    }

    /** Exports the concurrency limit's use, as {@link LangChainLlmClient#bindTo} does. */
    public AnthropicLlmClient bindTo(MeterRegistry registry) {
        LangChainLlmClient.bindSlots(permits, registry);
        return this;
    }

    @Override
    public String provider() {
        return GeneratorConfig.ANTHROPIC;
    }

    @Override
    public String model() {
        return settings.model();
    }

    /**
     * The Messages request: the system as two text blocks, the prefix carrying {@code cache_control: ephemeral} (the
     * cache covers everything up to and including that block) and the question's context after it, then the user turn.
     * JSON mode needs no field: the prefix already asks for {@code {"sql": …}} and the guardrails read either form.
     */
    public static ObjectNode requestBody(Prompt prompt, Settings settings) {
        ObjectNode body = JSON.createObjectNode();
        body.put("model", settings.model());
        body.put("max_tokens", settings.maxTokens());
        body.put("temperature", settings.temperature());
        ArrayNode system = JSON.createArrayNode();
        // Anthropic refuses an empty text block, and a breakpoint on nothing caches nothing
        if (!prompt.prefix().isBlank()) {
            ObjectNode prefix = system.addObject().put("type", "text").put("text", prompt.prefix());
            prefix.putObject("cache_control").put("type", "ephemeral");
        }
        if (!prompt.context().isBlank()) system.addObject().put("type", "text").put("text", prompt.context().stripTrailing());
        if (!system.isEmpty()) body.set("system", system);
        body.putArray("messages").addObject().put("role", "user").put("content", prompt.user());
        return body;
    }

    /**
     * A Messages response: its text blocks, and its usage read the way Anthropic bills it. Its {@code input_tokens} are
     * only the tokens after the last breakpoint; the prompt is those plus {@code cache_read_input_tokens} (billed at the
     * cached price) plus {@code cache_creation_input_tokens} (billed at the cache-write price).
     */
    public static Answer answer(JsonNode message) {
        StringBuilder text = new StringBuilder();
        for (JsonNode block : message.path("content")) {
            if ("text".equals(block.path("type").asText())) text.append(block.path("text").asText(""));
        }
        JsonNode usage = message.path("usage");
        long read = Math.max(0, usage.path("cache_read_input_tokens").asLong(0));
        long written = Math.max(0, usage.path("cache_creation_input_tokens").asLong(0));
        long input = Math.max(0, usage.path("input_tokens").asLong(0)) + read + written;
        return new Answer(text.toString(), new TokenUsage(input, usage.path("output_tokens").asLong(0), read, 0), written);
    }

    @Override
    public Reply complete(Prompt prompt) {
        HttpRequest request = HttpRequest.newBuilder(messages).timeout(timeout)
                .header("x-api-key", apiKey).header("anthropic-version", API_VERSION).header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(requestBody(prompt, settings).toString(), StandardCharsets.UTF_8)).build();
        permits.acquirePaced(prompt.correction(), pacer);
        HttpResponse<String> response;
        try {
            // the wait for a slot may have been long: a question cancelled meanwhile spends no call
            Cancellations.checkpoint();
            response = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (HttpTimeoutException e) {
            throw new InfrastructureException("LLM call failed (timeout after " + timeout + ")", e);
        } catch (IOException e) {
            throw new InfrastructureException("LLM call failed (" + e.getClass().getSimpleName() + "): " + clip(String.valueOf(e.getMessage())), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InfrastructureException("interrupted while calling the LLM", e);
        } finally {
            permits.release();
        }
        Answer a = answer(checked(response));
        return new Reply(a.text(), a.usage().withCost(prices.cost(a.usage(), a.cacheWriteTokens(), false)));
    }

    /**
     * The body of a 2xx answer; otherwise what the failure means: 408, 429, 5xx and Anthropic's 529 (overloaded) may pass
     * and carry their Retry-After, any other 4xx will never work.
     */
    static JsonNode checked(HttpResponse<String> response) {
        int code = response.statusCode();
        String body = response.body();
        if (code / 100 == 2) {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new InfrastructureException("LLM call failed (malformed answer): " + clip(body), e);
            }
        }
        throw failure(response, "LLM call");
    }

    /** An error status as the stage runner reads it: {@code what} failed (may pass) or was rejected (never will). */
    static RuntimeException failure(HttpResponse<String> response, String what) {
        int code = response.statusCode();
        String message = errorMessage(response.body());
        if (code == 408 || code == 429 || code >= 500) {
            Duration retryAfter = response.headers().firstValue("retry-after")
                    .map(v -> RetryAfterHttpClient.parseRetryAfter(v, Instant.now())).orElse(null);
            return new InfrastructureException(what + " failed (HTTP " + code + "): " + message, null, retryAfter);
        }
        return new LlmRejectedException(code, what + " rejected (HTTP " + code + "): " + message, null);
    }

    /** Anthropic's {@code {"type":"error","error":{"type":…,"message":…}}}, or the body itself. */
    private static String errorMessage(String body) {
        try {
            JsonNode error = JSON.readTree(body).path("error");
            if (error.isObject()) return clip(error.path("type").asText("error") + ": " + error.path("message").asText(""));
        } catch (IOException | RuntimeException ignored) {
            // not JSON: the body as it came
        }
        return clip(body == null ? "" : body);
    }

    private static String clip(String s) {
        String c = Whitespace.collapse(s);
        return c.length() <= 300 ? c : c.substring(0, 299) + "…";
    }
}
