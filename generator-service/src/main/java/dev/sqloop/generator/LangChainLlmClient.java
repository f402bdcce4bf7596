package dev.sqloop.generator;

import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.exception.AuthenticationException;
import dev.langchain4j.exception.HttpException;
import dev.langchain4j.exception.InvalidRequestException;
import dev.langchain4j.exception.ModelNotFoundException;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.ResponseFormat;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.ollama.OllamaChatModel;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiTokenUsage;
import dev.sqloop.common.Whitespace;
import dev.sqloop.common.message.TokenUsage;
import dev.sqloop.common.metrics.Metrics;
import dev.sqloop.common.runtime.InfrastructureException;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;

/**
 * {@link LlmClient} through a langchain4j {@link ChatModel} (OpenAI-compatible or Ollama). The model is built
 * with {@code maxRetries(0)}: the stage runner is the one place that retries, so a 429 storm is never
 * multiplied by a hidden client retry loop.
 */
public final class LangChainLlmClient implements LlmClient {
    private final ChatModel model;
    private final String providerName;
    private final String modelName;
    private final boolean jsonMode;
    private final LlmSlots permits;
    private final RequestPacer pacer;
    private final LlmPrices prices;

    public LangChainLlmClient(ChatModel model, String providerName, String modelName, boolean jsonMode, int maxConcurrency,
                              RequestPacer pacer) {
        this(model, providerName, modelName, jsonMode, maxConcurrency, pacer, LlmPrices.NONE);
    }

    public LangChainLlmClient(ChatModel model, String providerName, String modelName, boolean jsonMode, int maxConcurrency,
                              RequestPacer pacer, LlmPrices prices) {
        this.prices = prices;
        this.model = model;
        this.providerName = providerName;
        this.modelName = modelName;
        this.jsonMode = jsonMode;
        this.permits = new LlmSlots(maxConcurrency);
        this.pacer = pacer;
    }

    public static LangChainLlmClient fromConfig(GeneratorConfig config) {
        return new LangChainLlmClient(chatModel(config), config.provider(), config.model(), config.jsonMode(), config.maxConcurrency(),
                new RequestPacer(config.ratePerSecond()), config.prices());
    }

    /** Exports the concurrency limit's use ({@link Metrics#LLM_SLOTS_BUSY} and the two gauges) to {@code registry}. */
    public LangChainLlmClient bindTo(MeterRegistry registry) {
        bindSlots(permits, registry);
        return this;
    }

    /** The concurrency limit's meters, shared by every provider's client. */
    static void bindSlots(LlmSlots permits, MeterRegistry registry) {
        Gauge.builder(Metrics.LLM_SLOTS_LIMIT, permits, LlmSlots::capacity)
                .description("LLM calls this worker lets run at once").register(registry);
        Gauge.builder(Metrics.LLM_SLOTS_IN_USE, permits, LlmSlots::inUse)
                .description("LLM calls running now").register(registry);
        FunctionCounter.builder(Metrics.LLM_SLOTS_BUSY, permits, LlmSlots::busySeconds).baseUnit("seconds")
                .description("Slot-seconds held by LLM calls (two calls for one second count 2)").register(registry);
    }

    public static ChatModel chatModel(GeneratorConfig c) {
        RetryAfterHttpClient.Builder http = RetryAfterHttpClient.builder();
        if (c.provider().equals(GeneratorConfig.OLLAMA)) {
            // OllamaBaseChatModel.Builder's setters return the raw base builder type, hence no chaining into build().
            OllamaChatModel.OllamaChatModelBuilder b = OllamaChatModel.builder();
            b.httpClientBuilder(http).baseUrl(c.baseUrl()).modelName(c.model()).temperature(c.temperature())
                    .numPredict(c.maxTokens()).timeout(c.timeout());
            b.maxRetries(0);
            return b.build();
        }
        return OpenAiChatModel.builder()
                .httpClientBuilder(http)
                .baseUrl(c.baseUrl())
                .apiKey(c.apiKey())
                .modelName(c.model())
                .temperature(c.temperature())
                .maxTokens(c.maxTokens())
                .timeout(c.timeout())
                .maxRetries(0)
                .build();
    }

    @Override
    public String provider() {
        return providerName;
    }

    @Override
    public String model() {
        return modelName;
    }

    @Override
    public Reply complete(Prompt prompt) {
        ChatRequest.Builder request = ChatRequest.builder()
                .messages(SystemMessage.from(prompt.system()), UserMessage.from(prompt.user()));
        // one system message, its stable prefix first: OpenAI caches the longest repeated token prefix whatever the
        // message boundaries, and some OpenAI-compatible servers refuse a second system message
        if (jsonMode) request.responseFormat(ResponseFormat.JSON);
        permits.acquirePaced(prompt.correction(), pacer);
        ChatResponse response;
        try {
            // the wait for a slot may have been long: a question cancelled meanwhile spends no call
            dev.sqloop.common.runtime.Cancellations.checkpoint();
            response = model.chat(request.build());
        } catch (dev.sqloop.common.runtime.Cancellations.Cancelled c) {
            throw c;
        } catch (RuntimeException e) {
            throw classify(e);
        } finally {
            permits.release();
        }
        String text = response.aiMessage() == null ? null : response.aiMessage().text();
        return new Reply(text == null ? "" : text, prices.priced(usage(response.tokenUsage())));
    }

    /**
     * The call's tokens, with the part of the prompt the provider served from its cache where it says so: OpenAI's
     * {@code usage.prompt_tokens_details.cached_tokens}, which langchain4j keeps in {@link OpenAiTokenUsage}. Ollama
     * reports no such count (0).
     */
    static TokenUsage usage(dev.langchain4j.model.output.TokenUsage usage) {
        if (usage == null) return TokenUsage.ZERO;
        long input = usage.inputTokenCount() == null ? 0 : usage.inputTokenCount();
        long output = usage.outputTokenCount() == null ? 0 : usage.outputTokenCount();
        long cached = 0;
        if (usage instanceof OpenAiTokenUsage openAi && openAi.inputTokensDetails() != null
                && openAi.inputTokensDetails().cachedTokens() != null) {
            cached = Math.max(0, Math.min(input, openAi.inputTokensDetails().cachedTokens()));
        }
        return new TokenUsage(input, output, cached, 0);
    }

    /** Sorts a failed call into "try the same call again later" and "this request will never work". */
    static RuntimeException classify(RuntimeException e) {
        Integer status = null;
        Duration retryAfter = null;
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof StatusHttpException s && retryAfter == null) retryAfter = s.retryAfter().orElse(null);
            if (t instanceof HttpException h && status == null) status = h.statusCode();
            if (t.getCause() == t) break;
        }
        boolean rejected = e instanceof AuthenticationException || e instanceof InvalidRequestException
                || e instanceof ModelNotFoundException
                || (status != null && status >= 400 && status < 500 && status != 408 && status != 429);
        if (rejected) {
            int code = status == null ? 400 : status;
            return new LlmRejectedException(code, "LLM endpoint rejected the request (HTTP " + code + "): "
                    + clip(rootMessage(e)), e);
        }
        // 429, 5xx, timeouts, refused or reset connections, malformed bodies: all may pass.
        String what = status != null ? "HTTP " + status : e.getClass().getSimpleName();
        return new InfrastructureException("LLM call failed (" + what + "): " + clip(rootMessage(e)), e, retryAfter);
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) t = t.getCause();
        String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
        return Whitespace.collapse(m);
    }

    private static String clip(String s) {
        return s.length() <= 300 ? s : s.substring(0, 299) + "…";
    }
}
