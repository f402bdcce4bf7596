package dev.sqloop.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.message.TokenUsage;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The Messages request as built (breakpoint after the stable prefix only) and the response's usage as Anthropic bills it. */
class AnthropicLlmClientTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final AnthropicLlmClient.Settings SETTINGS = new AnthropicLlmClient.Settings("claude-haiku-4-5", 0.0, 512);

    @Test
    void shouldPutTheCacheBreakpointOnThePrefixAndNotOnTheQuestionsContext() {
        ObjectNode body = AnthropicLlmClient.requestBody(
                new LlmClient.Prompt("## Rules\n…\n## Schema\nCREATE TABLE t (a INT);\n\n", "## Similar Examples\nQ: x\nSQL: y\n\n", "How many t?", false),
                SETTINGS);
        assertEquals("claude-haiku-4-5", body.path("model").asText());
        assertEquals(512, body.path("max_tokens").asInt());
        JsonNode system = body.path("system");
        assertEquals(2, system.size());
        assertEquals("## Rules\n…\n## Schema\nCREATE TABLE t (a INT);\n\n", system.path(0).path("text").asText());
        assertEquals("ephemeral", system.path(0).path("cache_control").path("type").asText());
        assertEquals("## Similar Examples\nQ: x\nSQL: y", system.path(1).path("text").asText());
        assertFalse(system.path(1).has("cache_control"), "the per-question context would make every prefix unique");
        assertEquals(1, body.path("messages").size());
        assertEquals("user", body.path("messages").path(0).path("role").asText());
        assertEquals("How many t?", body.path("messages").path(0).path("content").asText());
    }

    @Test
    void shouldSendNoEmptyBlockAndNoBreakpointOnNothing() {
        ObjectNode contextOnly = AnthropicLlmClient.requestBody(new LlmClient.Prompt("", "linked subset", "q", false), SETTINGS);
        assertEquals(1, contextOnly.path("system").size());
        assertFalse(contextOnly.path("system").path(0).has("cache_control"));
        ObjectNode bare = AnthropicLlmClient.requestBody(new LlmClient.Prompt("", "", "q", false), SETTINGS);
        assertFalse(bare.has("system"), "Anthropic refuses an empty text block");
    }

    @Test
    void shouldCountCacheReadsAsCachedInputAndAllThreePartsAsThePrompt() throws Exception {
        JsonNode message = JSON.readTree("""
                {"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"{\\"sql\\":"},
                 {"type":"text","text":" \\"SELECT 1\\"}"}],"stop_reason":"end_turn",
                 "usage":{"input_tokens":120,"cache_creation_input_tokens":0,"cache_read_input_tokens":1800,"output_tokens":30}}""");
        AnthropicLlmClient.Answer a = AnthropicLlmClient.answer(message);
        assertEquals("{\"sql\": \"SELECT 1\"}", a.text());
        assertEquals(new TokenUsage(1920, 30, 1800, 0), a.usage());
        assertEquals(0, a.cacheWriteTokens());

        AnthropicLlmClient.Answer first = AnthropicLlmClient.answer(JSON.readTree("""
                {"content":[{"type":"text","text":"x"}],
                 "usage":{"input_tokens":120,"cache_creation_input_tokens":1800,"cache_read_input_tokens":0,"output_tokens":30}}"""));
        assertEquals(new TokenUsage(1920, 30, 0, 0), first.usage(), "a cache write is uncached input, priced apart");
        assertEquals(1800, first.cacheWriteTokens());
    }

    @Test
    void shouldPriceACacheWriteAtOneAndAQuarterTimesTheInputPrice() {
        // Claude Haiku 4.5's list prices: $1 input, $0.10 cache read, $1.25 cache write, $5 output per million tokens
        LlmPrices p = LlmPrices.fromEnv(new EnvConfig(Map.of("SQLOOP_LLM_PRICE_INPUT", "1", "SQLOOP_LLM_PRICE_CACHED_INPUT", "0.10",
                "SQLOOP_LLM_PRICE_OUTPUT", "5")));
        assertEquals(1.25, p.cacheWrite(), 1e-12, "1.25x input unless configured");
        TokenUsage written = new TokenUsage(1920, 30, 0, 0);
        assertEquals((120 * 1.0 + 1800 * 1.25 + 30 * 5.0) / 1e6, p.cost(written, 1800, false), 1e-12);
        TokenUsage read = new TokenUsage(1920, 30, 1800, 0);
        assertEquals((120 * 1.0 + 1800 * 0.10 + 30 * 5.0) / 1e6, p.cost(read, 0, false), 1e-12);
        assertEquals(p.cost(written, 1800, false) / 2, p.cost(written, 1800, true), 1e-12, "the batch discount applies to writes too");
        LlmPrices configured = LlmPrices.fromEnv(new EnvConfig(Map.of("SQLOOP_LLM_PRICE_INPUT", "1", "SQLOOP_LLM_PRICE_CACHE_WRITE", "2")));
        assertEquals((120 + 1800 * 2.0) / 1e6, configured.cost(written, 1800, false), 1e-12);
        assertTrue(p.cost(written, 1800, false) > p.cost(written, 0, false));
    }
}
