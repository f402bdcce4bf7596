package dev.sqloop.executor;

import dev.sqloop.common.config.ConfigException;
import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.config.KafkaSettings;
import dev.sqloop.common.config.RunnerConfig;
import dev.sqloop.common.datasource.Datasources;
import dev.sqloop.common.runtime.RunnerSettings;

/** The executor service's settings: Kafka, the runner, the datasources it may run on, the management port. */
public record ExecutorConfig(KafkaSettings kafka, RunnerSettings runner, Datasources datasources, String managementHost,
                             int managementPort) {

    public static ExecutorConfig fromEnv(EnvConfig env) {
        Datasources datasources = Datasources.fromEnv(env);
        if (datasources.isEmpty()) {
            throw new ConfigException(Datasources.PREFIX + "<NAME>_URL and _DIALECT are required for at least one datasource");
        }
        return new ExecutorConfig(KafkaSettings.fromEnv(env), RunnerConfig.fromEnv(env, ExecuteStage.NAME), datasources,
                env.string("SQLOOP_MANAGEMENT_HOST", "0.0.0.0"), env.integer("SQLOOP_MANAGEMENT_PORT", 8083, 0, 65535));
    }
}
