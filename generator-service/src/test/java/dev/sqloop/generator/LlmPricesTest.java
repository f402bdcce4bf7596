package dev.sqloop.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.config.ConfigException;
import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.message.TokenUsage;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LlmPricesTest {
    private static LlmPrices prices(Map<String, String> env) {
        return LlmPrices.fromEnv(new EnvConfig(env));
    }

    @Test
    void shouldPriceUncachedCachedAndOutputTokensEachAtTheirOwnRate() {
        LlmPrices p = prices(Map.of("SQLOOP_LLM_PRICE_INPUT", "2.50", "SQLOOP_LLM_PRICE_CACHED_INPUT", "1.25",
                "SQLOOP_LLM_PRICE_OUTPUT", "10"));
        // 400 uncached at 2.50, 1,024 cached at 1.25, 50 out at 10 (USD per million)
        double expected = (400 * 2.50 + 1024 * 1.25 + 50 * 10.0) / 1e6;
        assertEquals(expected, p.cost(new TokenUsage(1424, 50, 1024, 0), false), 1e-12);
        assertEquals(expected / 2, p.cost(new TokenUsage(1424, 50, 1024, 0), true), 1e-12, "the batch APIs' 50 % by default");
        assertEquals(expected, p.priced(new TokenUsage(1424, 50, 1024, 0)).cost(), 1e-12);
    }

    @Test
    void shouldClaimNoCacheDiscountThatWasNotConfigured() {
        LlmPrices p = prices(Map.of("SQLOOP_LLM_PRICE_INPUT", "1", "SQLOOP_LLM_PRICE_OUTPUT", "4"));
        assertEquals(1.0, p.cachedInput());
        assertEquals(p.cost(new TokenUsage(2000, 10, 0, 0), false), p.cost(new TokenUsage(2000, 10, 1920, 0), false), 1e-12);
    }

    @Test
    void shouldCostNothingWithoutAPriceTableAndRefuseNonsense() {
        assertEquals(0.0, prices(Map.of()).cost(new TokenUsage(5000, 500, 0, 0), false));
        assertThrows(ConfigException.class, () -> prices(Map.of("SQLOOP_LLM_PRICE_OUTPUT", "-1")));
        ConfigException e = assertThrows(ConfigException.class, () -> prices(Map.of("SQLOOP_LLM_PRICE_BATCH_DISCOUNT", "50")));
        assertTrue(e.getMessage().contains("between 0 and 1"), e.getMessage());
        assertThrows(ConfigException.class, () -> prices(Map.of("SQLOOP_LLM_PRICE_INPUT", "cheap")));
    }

    @Test
    void shouldSumUsageAcrossAttemptsAndRetractIt() {
        TokenUsage a = new TokenUsage(1500, 20, 1024, 0.5);
        TokenUsage b = new TokenUsage(1600, 30, 1152, 0.25);
        assertEquals(new TokenUsage(3100, 50, 2176, 0.75), a.plus(b));
        assertEquals(a, a.plus(b).plus(b.times(-1)));
    }
}
