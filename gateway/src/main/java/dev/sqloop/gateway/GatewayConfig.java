package dev.sqloop.gateway;

import dev.sqloop.common.config.ConfigException;
import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.config.KafkaSettings;
import dev.sqloop.common.datasource.Datasources;
import dev.sqloop.common.Dialect;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The gateway's settings.
 *
 * @param apiKeys API key → tenant; empty means authentication is off and every caller is tenant {@code default}
 * @param datasources datasource name → dialect, from {@code SQLOOP_DATASOURCE_<NAME>_DIALECT}: what a question may target
 * @param advertisedUrl how other gateway instances reach this one (for forwarding interactive queries)
 * @param curators tenants that may replace or delete any example (seeds, other tenants'); others change only their own
 * @param maxBodyBytes the largest JSON body (questions, feedback, examples) read; counted while reading, never buffered beyond
 * @param maxLineBytes the largest single NDJSON line or JSON array element of a batch
 * @param maxBatchBytes the largest batch body (its own limit: a batch holds up to {@code maxBatchSize} questions)
 */
public record GatewayConfig(KafkaSettings kafka, String host, int port, String advertisedUrl, Map<String, String> apiKeys,
                            Map<String, Dialect> datasources, int maxQuestionChars, int maxBatchSize, int defaultMaxAttempts,
                            int maxAttemptsLimit, Duration questionTimeout, String applicationId, Path stateDir,
                            Set<String> curators, int maxSqlChars, long maxBodyBytes, int maxLineBytes,
                            long maxBatchBytes) {

    public GatewayConfig {
        apiKeys = Map.copyOf(apiKeys);
        datasources = Map.copyOf(datasources);
        curators = Set.copyOf(curators);
        if (datasources.isEmpty()) {
            throw new ConfigException("no datasource configured: set SQLOOP_DATASOURCE_<NAME>_DIALECT for each datasource questions may target");
        }
    }

    public static GatewayConfig fromEnv(EnvConfig env) {
        String host = env.string("SQLOOP_GATEWAY_HOST", "127.0.0.1");
        int port = env.integer("SQLOOP_GATEWAY_PORT", 8080, 0, 65535);
        return new GatewayConfig(
                KafkaSettings.fromEnv(env),
                host,
                port,
                env.string("SQLOOP_GATEWAY_ADVERTISED_URL", "http://" + host + ":" + port),
                parseKeys(env.string("SQLOOP_GATEWAY_API_KEYS", "")),
                Datasources.dialectsFromEnv(env),
                env.integer("SQLOOP_GATEWAY_MAX_QUESTION_CHARS", 2000, 1, 100_000),
                env.integer("SQLOOP_GATEWAY_MAX_BATCH", 100_000, 1, 10_000_000),
                env.integer("SQLOOP_MAX_ATTEMPTS", 3, 1, 10),
                env.integer("SQLOOP_GATEWAY_MAX_ATTEMPTS_LIMIT", 10, 1, 100),
                env.duration("SQLOOP_QUESTION_TIMEOUT", Duration.ofHours(1)),
                env.string("SQLOOP_GATEWAY_APPLICATION_ID", "sqloop-gateway"),
                Path.of(env.string("SQLOOP_GATEWAY_STATE_DIR", System.getProperty("java.io.tmpdir") + "/sqloop-gateway-state")),
                Arrays.stream(env.string("SQLOOP_GATEWAY_CURATORS", "").split(",")).map(String::strip).filter(t -> !t.isEmpty())
                        .collect(Collectors.toSet()),
                env.integer("SQLOOP_GATEWAY_MAX_SQL_CHARS", 20_000, 1, 1_000_000),
                env.integer("SQLOOP_GATEWAY_MAX_BODY_BYTES", 4 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
                env.integer("SQLOOP_GATEWAY_MAX_LINE_BYTES", 64 * 1024, 256, 64 * 1024 * 1024),
                env.integer("SQLOOP_GATEWAY_MAX_BATCH_BYTES", 64 * 1024 * 1024, 1024, Integer.MAX_VALUE));
    }

    /** With authentication off there is one tenant, and it curates. */
    public boolean isCurator(String tenant) {
        return apiKeys.isEmpty() || curators.contains(tenant);
    }

    /** {@code key1:tenantA,key2:tenantB}. */
    static Map<String, String> parseKeys(String raw) {
        Map<String, String> keys = new LinkedHashMap<>();
        for (String pair : raw.split(",")) {
            if (pair.isBlank()) continue;
            int colon = pair.indexOf(':');
            if (colon <= 0 || colon == pair.length() - 1) {
                throw new ConfigException("SQLOOP_GATEWAY_API_KEYS must be key:tenant pairs separated by commas");
            }
            keys.put(pair.substring(0, colon).trim(), pair.substring(colon + 1).trim());
        }
        return keys;
    }


    @Override
    public String toString() {
        return "GatewayConfig[kafka=" + kafka + ", listen=" + host + ":" + port + ", advertised=" + advertisedUrl
                + ", apiKeys=" + apiKeys.size() + " (masked), datasources=" + datasources.keySet() + ", maxBatch=" + maxBatchSize + ", curators=" + curators
                + ", maxBodyBytes=" + maxBodyBytes + ", maxLineBytes=" + maxLineBytes + ", maxBatchBytes=" + maxBatchBytes + "]";
    }
}
