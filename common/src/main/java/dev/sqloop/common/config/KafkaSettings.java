package dev.sqloop.common.config;

import java.util.Map;
import java.util.TreeMap;

/**
 * Where the brokers are and any extra Kafka client settings, passed through by prefix
 * ({@code SQLOOP_KAFKA_SECURITY_PROTOCOL=SASL_SSL} → {@code security.protocol}).
 */
public record KafkaSettings(String bootstrapServers, Map<String, String> clientOverrides) {
    public static final String BOOTSTRAP = "SQLOOP_BOOTSTRAP_SERVERS";
    public static final String CLIENT_PREFIX = "SQLOOP_KAFKA_";

    public KafkaSettings {
        if (bootstrapServers == null || bootstrapServers.isBlank()) throw new ConfigException(BOOTSTRAP + " is required but not set");
        clientOverrides = Map.copyOf(clientOverrides);
    }

    public static KafkaSettings of(String bootstrapServers) {
        return new KafkaSettings(bootstrapServers, Map.of());
    }

    public static KafkaSettings fromEnv(EnvConfig env) {
        return new KafkaSettings(env.required(BOOTSTRAP), env.prefixed(CLIENT_PREFIX));
    }

    @Override
    public String toString() {
        Map<String, String> shown = new TreeMap<>();
        clientOverrides.forEach((k, v) -> shown.put(k, EnvConfig.isSecret(k.replace('.', '_')) ? "****" : v));
        return "KafkaSettings[bootstrapServers=" + bootstrapServers + ", clientOverrides=" + shown + "]";
    }
}
