package dev.sqloop.common.runtime;

import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.config.KafkaSettings;
import java.time.Duration;

/** Reads the stage runtime's settings ({@code SQLOOP_MAX_IN_FLIGHT}, {@code SQLOOP_RETRY_*}…) for one stage. */
public final class RunnerConfig {
    private RunnerConfig() {}

    /**
     * {@code SQLOOP_MAX_IN_FLIGHT} applies to every stage; {@code SQLOOP_<STAGE>_MAX_IN_FLIGHT} ({@code <STAGE>}: the
     * stage name upper-cased, {@code -} as {@code _}, e.g. {@code SQLOOP_RETRIEVE_EXAMPLES_MAX_IN_FLIGHT}) to one.
     */
    public static RunnerSettings fromEnv(EnvConfig env, String stageName) {
        RunnerSettings d = RunnerSettings.defaults("sqloop-" + stageName);
        int inFlight = env.integer(stageInFlightKey(stageName), env.integer("SQLOOP_MAX_IN_FLIGHT", d.maxInFlight(), 1, 100_000), 1, 100_000);
        RetryPolicy retry = new RetryPolicy(
                env.integer("SQLOOP_RETRY_MAX", d.retry().maxRetries(), 0, 1000),
                env.duration("SQLOOP_RETRY_INITIAL_BACKOFF", d.retry().initialBackoff()),
                env.duration("SQLOOP_RETRY_MAX_BACKOFF", d.retry().maxBackoff()),
                env.decimal("SQLOOP_RETRY_MULTIPLIER", d.retry().multiplier()));
        return new RunnerSettings(
                env.string("SQLOOP_GROUP_PREFIX", "sqloop") + "-" + stageName,
                inFlight,
                env.integer("SQLOOP_MAX_POLL_RECORDS", d.maxPollRecords(), 1, 100_000),
                retry,
                d.pollTimeout(),
                env.duration("SQLOOP_SHUTDOWN_TIMEOUT", d.shutdownTimeout()),
                env.duration("SQLOOP_REVOKE_TIMEOUT", Duration.ofSeconds(20)));
    }

    /** Default of {@code SQLOOP_ADMISSION_MAX_BACKLOG}: records waiting on the question path before the entry stage waits. */
    public static final int DEFAULT_ADMISSION_MAX_BACKLOG = 1000;

    /**
     * The entry stage's admission control ({@link Admission}): {@code
     * SQLOOP_ADMISSION_MAX_BACKLOG} (records waiting on the question path; 0 turns admission control off) and {@code
     * SQLOOP_ADMISSION_INTERVAL} (how often the backlog is read).
     */
    public static Admission admission(EnvConfig env, KafkaSettings kafka, io.micrometer.core.instrument.MeterRegistry registry) {
        return Admission.following(kafka, env.string("SQLOOP_GROUP_PREFIX", "sqloop"),
                env.integer("SQLOOP_ADMISSION_MAX_BACKLOG", DEFAULT_ADMISSION_MAX_BACKLOG, 0, 10_000_000),
                env.duration("SQLOOP_ADMISSION_INTERVAL", Duration.ofSeconds(1)), registry);
    }

    static String stageInFlightKey(String stageName) {
        return "SQLOOP_" + stageName.toUpperCase(java.util.Locale.ROOT).replace('-', '_') + "_MAX_IN_FLIGHT";
    }
}
