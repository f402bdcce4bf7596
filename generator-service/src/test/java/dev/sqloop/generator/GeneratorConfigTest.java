package dev.sqloop.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.config.ConfigException;
import dev.sqloop.common.config.EnvConfig;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GeneratorConfigTest {

    @Test
    void shouldReadTheLlmAndDialectSettings() {
        GeneratorConfig c = GeneratorConfig.fromEnv(new EnvConfig(Map.of(
                "SQLOOP_LLM_BASE_URL", "http://llm:8000/v1",
                "SQLOOP_LLM_API_KEY", "sk-secret",
                "SQLOOP_LLM_MODEL", "qwen2.5-coder",
                "SQLOOP_LLM_TIMEOUT", "15s",
                "SQLOOP_LLM_JSON_MODE", "false",
                "SQLOOP_DATASOURCE_DEMO_DIALECT", "duckdb", "SQLOOP_DATASOURCE_WAREHOUSE_DIALECT", "trino")));
        assertEquals(GeneratorConfig.OPENAI, c.provider());
        assertEquals("qwen2.5-coder", c.model());
        assertEquals(Duration.ofSeconds(15), c.timeout());
        assertFalse(c.jsonMode());
        assertEquals(Dialect.TRINO, c.dialectLookup().dialectOf("warehouse").orElseThrow());
        assertTrue(c.dialectLookup().dialectOf("nope").isEmpty());
        assertFalse(c.toString().contains("sk-secret"), "the API key is masked: " + c);
    }

    @Test
    void shouldFailFastNamingTheVariable() {
        assertTrue(assertThrows(ConfigException.class, () -> GeneratorConfig.fromEnv(new EnvConfig(Map.of())))
                .getMessage().contains("SQLOOP_LLM_BASE_URL"));
        assertTrue(assertThrows(ConfigException.class, () -> GeneratorConfig.fromEnv(new EnvConfig(Map.of(
                "SQLOOP_LLM_BASE_URL", "http://x", "SQLOOP_LLM_PROVIDER", "bard")))).getMessage().contains("SQLOOP_LLM_PROVIDER"));
        assertTrue(assertThrows(ConfigException.class, () -> GeneratorConfig.fromEnv(new EnvConfig(Map.of(
                "SQLOOP_LLM_BASE_URL", "http://x", "SQLOOP_DATASOURCE_DEMO_DIALECT", "oracle")))).getMessage().contains("SQLOOP_DATASOURCE_DEMO_DIALECT"));
    }

    @Test
    void shouldBuildBothProviders() {
        for (String provider : new String[] {"openai", "ollama"}) {
            GeneratorConfig c = GeneratorConfig.fromEnv(new EnvConfig(Map.of("SQLOOP_LLM_BASE_URL", "http://127.0.0.1:1", "SQLOOP_LLM_PROVIDER", provider)));
            assertTrue(LangChainLlmClient.chatModel(c) != null);
        }
        GeneratorConfig anthropic = GeneratorConfig.fromEnv(new EnvConfig(Map.of("SQLOOP_LLM_BASE_URL", "http://127.0.0.1:1",
                "SQLOOP_LLM_PROVIDER", "Anthropic")));
        LlmClient client = anthropic.llmClient(new io.micrometer.core.instrument.simple.SimpleMeterRegistry());
        assertTrue(client instanceof AnthropicLlmClient, "provider anthropic gets the Messages client");
        assertTrue(client.provider().equals("anthropic") && client.model().equals("claude-haiku-4-5"));
    }
}
