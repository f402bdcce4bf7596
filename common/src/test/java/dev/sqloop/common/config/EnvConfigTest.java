package dev.sqloop.common.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.runtime.RunnerConfig;
import dev.sqloop.common.runtime.RunnerSettings;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EnvConfigTest {

    @Test
    void shouldNameTheMissingVariable() {
        ConfigException e = assertThrows(ConfigException.class, () -> KafkaSettings.fromEnv(new EnvConfig(Map.of())));
        assertTrue(e.getMessage().contains("SQLOOP_BOOTSTRAP_SERVERS"), e.getMessage());
    }

    @Test
    void shouldNameTheMalformedVariable() {
        EnvConfig env = new EnvConfig(Map.of("SQLOOP_MAX_IN_FLIGHT", "lots", "SQLOOP_RETRY_MAX", "-3", "SQLOOP_SHUTDOWN_TIMEOUT", "soon"));
        assertTrue(assertThrows(ConfigException.class, () -> env.integer("SQLOOP_MAX_IN_FLIGHT", 1, 1, 10))
                .getMessage().contains("SQLOOP_MAX_IN_FLIGHT"));
        assertTrue(assertThrows(ConfigException.class, () -> RunnerConfig.fromEnv(env, "x")).getMessage().contains("SQLOOP_"));
        assertTrue(assertThrows(ConfigException.class, () -> env.duration("SQLOOP_SHUTDOWN_TIMEOUT", Duration.ZERO))
                .getMessage().contains("SQLOOP_SHUTDOWN_TIMEOUT"));
    }

    @Test
    void shouldPassKafkaClientSettingsThroughByPrefix() {
        KafkaSettings k = KafkaSettings.fromEnv(new EnvConfig(Map.of(
                "SQLOOP_BOOTSTRAP_SERVERS", "b:9092",
                "SQLOOP_KAFKA_SECURITY_PROTOCOL", "SASL_SSL",
                "SQLOOP_KAFKA_SASL_JAAS_CONFIG", "secret-jaas")));
        assertEquals("SASL_SSL", k.clientOverrides().get("security.protocol"));
        assertEquals("secret-jaas", k.clientOverrides().get("sasl.jaas.config"));
        assertFalse(k.toString().contains("secret-jaas"), "secrets never printed: " + k);
    }

    @Test
    void shouldMaskSecretsInTheStartupDescription() {
        EnvConfig env = new EnvConfig(Map.of("SQLOOP_LLM_API_KEY", "sk-123", "SQLOOP_DATASOURCE_DW_PASSWORD", "hunter2",
                "SQLOOP_MAX_IN_FLIGHT", "64", "HOME", "/root"));
        Map<String, String> shown = env.describe();
        assertEquals("****", shown.get("SQLOOP_LLM_API_KEY"));
        assertEquals("****", shown.get("SQLOOP_DATASOURCE_DW_PASSWORD"));
        assertEquals("64", shown.get("SQLOOP_MAX_IN_FLIGHT"));
        assertFalse(shown.containsKey("HOME"), "only sqloop settings are described");
    }

    @Test
    void shouldReadRunnerSettingsWithDefaults() {
        RunnerSettings s = RunnerConfig.fromEnv(new EnvConfig(Map.of("SQLOOP_MAX_IN_FLIGHT", "32", "SQLOOP_RETRY_INITIAL_BACKOFF", "1s")), "generate");
        assertEquals("sqloop-generate", s.groupId());
        assertEquals(32, s.maxInFlight());
        assertEquals(Duration.ofSeconds(1), s.retry().initialBackoff());
        assertEquals(RunnerSettings.DEFAULT_MAX_IN_FLIGHT, RunnerConfig.fromEnv(new EnvConfig(Map.of()), "x").maxInFlight());
    }

    @Test
    void shouldLetOneStageSetItsOwnInFlight() {
        EnvConfig env = new EnvConfig(Map.of("SQLOOP_MAX_IN_FLIGHT", "32", "SQLOOP_RETRIEVE_EXAMPLES_MAX_IN_FLIGHT", "3"));
        assertEquals(3, RunnerConfig.fromEnv(env, "retrieve-examples").maxInFlight());
        assertEquals(32, RunnerConfig.fromEnv(env, "generate").maxInFlight());
    }
}
