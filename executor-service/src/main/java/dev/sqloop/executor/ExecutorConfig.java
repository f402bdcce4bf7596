package dev.sqloop.executor;

import dev.sqloop.common.config.ConfigException;
import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.config.KafkaSettings;
import dev.sqloop.common.config.RunnerConfig;
import dev.sqloop.common.datasource.Datasources;
import dev.sqloop.common.runtime.RunnerSettings;

/**
 * The executor service's settings: Kafka, the runner and the datasources it may run on. The management port is
 * read by {@code ServiceHost} ({@code SQLOOP_MANAGEMENT_PORT}, default 9404).
 */
public record ExecutorConfig(KafkaSettings kafka, RunnerSettings runner, Datasources datasources) {

    public static ExecutorConfig fromEnv(EnvConfig env) {
        Datasources datasources = Datasources.fromEnv(env);
        if (datasources.isEmpty()) {
            throw new ConfigException(Datasources.PREFIX + "<NAME>_URL and _DIALECT are required for at least one datasource");
        }
        return new ExecutorConfig(KafkaSettings.fromEnv(env), RunnerConfig.fromEnv(env, ExecuteStage.NAME), datasources);
    }
}
