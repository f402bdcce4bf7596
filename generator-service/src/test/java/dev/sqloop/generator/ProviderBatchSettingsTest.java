package dev.sqloop.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.config.ConfigException;
import dev.sqloop.common.config.EnvConfig;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProviderBatchSettingsTest {
    @Test
    void shouldBeOnlineUnlessBatchModeIsAskedFor() {
        assertFalse(ProviderBatchSettings.fromEnv(new EnvConfig(Map.of())).enabled());
        ProviderBatchSettings s = ProviderBatchSettings.fromEnv(new EnvConfig(Map.of("SQLOOP_LLM_MODE", "Batch",
                "SQLOOP_LLM_BATCH_MAX_REQUESTS", "500", "SQLOOP_LLM_BATCH_MAX_AGE", "5m")));
        assertTrue(s.enabled());
        assertEquals(500, s.maxRequests());
        assertEquals(Duration.ofMinutes(5), s.maxAge());
        ConfigException e = assertThrows(ConfigException.class,
                () -> ProviderBatchSettings.fromEnv(new EnvConfig(Map.of("SQLOOP_LLM_MODE", "offline"))));
        assertTrue(e.getMessage().contains("SQLOOP_LLM_MODE"), e.getMessage());
    }

    @Test
    void shouldPollWithGrowingWaitsUpToTheLimit() {
        ProviderBatchSettings s = new ProviderBatchSettings(true, 10, 100_000, Duration.ofSeconds(1), Duration.ofSeconds(30),
                Duration.ofMinutes(5), Duration.ofHours(26));
        assertEquals(Duration.ofSeconds(30), s.pollDelay(1));
        assertEquals(Duration.ofSeconds(45), s.pollDelay(2));
        assertEquals(Duration.ofMinutes(5), s.pollDelay(50));
    }
}
