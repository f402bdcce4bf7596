package dev.sqloop.generator;

import dev.sqloop.common.config.ConfigException;
import dev.sqloop.common.config.EnvConfig;
import java.time.Duration;
import java.util.Locale;

/**
 * Whether the generate worker answers through the provider's batch API ({@code SQLOOP_LLM_MODE=batch}) instead of one
 * online call per request, and how it windows and polls.
 *
 * @param maxRequests a window is sealed at this many requests ({@code SQLOOP_LLM_BATCH_MAX_REQUESTS}, default 1,000)
 * @param maxBytes ... or when its questions' encoded size reaches this ({@code SQLOOP_LLM_BATCH_MAX_BYTES}, default
 *     900,000): the sealed window is one record on the {@code llm-batches} topic, below Kafka's 1 MB default limit
 * @param maxAge ... or when its oldest request has waited this long ({@code SQLOOP_LLM_BATCH_MAX_AGE}, default 60 s)
 * @param pollInterval first wait between two looks at a provider batch ({@code SQLOOP_LLM_BATCH_POLL_INTERVAL}, 30 s),
 *     growing by half each look up to {@code maxPollInterval} ({@code SQLOOP_LLM_BATCH_MAX_POLL_INTERVAL}, 5 min)
 * @param giveUpAfter a window whose provider batch has not ended this long after sealing ends its questions failed
 *     ({@code SQLOOP_LLM_BATCH_GIVE_UP_AFTER}, 26 h: OpenAI's 24 h completion window and a margin), never left in progress
 */
public record ProviderBatchSettings(boolean enabled, int maxRequests, long maxBytes, Duration maxAge, Duration pollInterval,
                                    Duration maxPollInterval, Duration giveUpAfter) {
    public static final String MODE = "SQLOOP_LLM_MODE";
    public static final ProviderBatchSettings ONLINE = new ProviderBatchSettings(false, 1000, 900_000, Duration.ofSeconds(60),
            Duration.ofSeconds(30), Duration.ofMinutes(5), Duration.ofHours(26));

    public ProviderBatchSettings {
        if (maxRequests < 1) throw new ConfigException("a provider batch window needs at least one request, was " + maxRequests);
        if (pollInterval.isNegative() || pollInterval.isZero()) throw new ConfigException("the batch poll interval must be positive");
        if (maxPollInterval.compareTo(pollInterval) < 0) maxPollInterval = pollInterval;
    }

    public static ProviderBatchSettings fromEnv(EnvConfig env) {
        String mode = env.string(MODE, "online").strip().toLowerCase(Locale.ROOT);
        if (!mode.equals("online") && !mode.equals("batch")) throw new ConfigException(MODE + " must be online or batch, was '" + mode + "'");
        ProviderBatchSettings d = ONLINE;
        return new ProviderBatchSettings(mode.equals("batch"),
                env.integer("SQLOOP_LLM_BATCH_MAX_REQUESTS", d.maxRequests(), 1, 50_000),
                env.integer("SQLOOP_LLM_BATCH_MAX_BYTES", (int) d.maxBytes(), 10_000, 100_000_000),
                env.duration("SQLOOP_LLM_BATCH_MAX_AGE", d.maxAge()),
                env.duration("SQLOOP_LLM_BATCH_POLL_INTERVAL", d.pollInterval()),
                env.duration("SQLOOP_LLM_BATCH_MAX_POLL_INTERVAL", d.maxPollInterval()),
                env.duration("SQLOOP_LLM_BATCH_GIVE_UP_AFTER", d.giveUpAfter()));
    }

    /** The wait before the next look at a batch that was still running at the {@code looks}-th look (1-based). */
    public Duration pollDelay(int looks) {
        double millis = pollInterval.toMillis() * Math.pow(1.5, Math.max(0, looks - 1));
        return Duration.ofMillis((long) Math.min(millis, maxPollInterval.toMillis()));
    }
}
