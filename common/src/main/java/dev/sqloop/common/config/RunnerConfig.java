package dev.sqloop.common.config;

import dev.sqloop.common.runtime.RetryPolicy;
import dev.sqloop.common.runtime.RunnerSettings;
import java.time.Duration;

/** Reads the stage runtime's settings ({@code SQLOOP_MAX_IN_FLIGHT}, {@code SQLOOP_RETRY_*}…) for one stage. */
public final class RunnerConfig {
    private RunnerConfig() {}

    public static RunnerSettings fromEnv(EnvConfig env, String stageName) {
        RunnerSettings d = RunnerSettings.defaults("sqloop-" + stageName);
        RetryPolicy retry = new RetryPolicy(
                env.integer("SQLOOP_RETRY_MAX", d.retry().maxRetries(), 0, 1000),
                env.duration("SQLOOP_RETRY_INITIAL_BACKOFF", d.retry().initialBackoff()),
                env.duration("SQLOOP_RETRY_MAX_BACKOFF", d.retry().maxBackoff()),
                env.decimal("SQLOOP_RETRY_MULTIPLIER", d.retry().multiplier()));
        return new RunnerSettings(
                env.string("SQLOOP_GROUP_PREFIX", "sqloop") + "-" + stageName,
                env.integer("SQLOOP_MAX_IN_FLIGHT", d.maxInFlight(), 1, 100_000),
                env.integer("SQLOOP_MAX_POLL_RECORDS", d.maxPollRecords(), 1, 100_000),
                retry,
                d.pollTimeout(),
                env.duration("SQLOOP_SHUTDOWN_TIMEOUT", d.shutdownTimeout()),
                env.duration("SQLOOP_REVOKE_TIMEOUT", Duration.ofSeconds(20)));
    }
}
