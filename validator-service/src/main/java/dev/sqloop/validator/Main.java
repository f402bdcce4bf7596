package dev.sqloop.validator;

import dev.sqloop.common.Topics;
import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.config.KafkaSettings;
import dev.sqloop.common.config.RunnerConfig;
import dev.sqloop.common.datasource.Datasources;
import dev.sqloop.common.metrics.Metrics;
import dev.sqloop.common.runtime.KafkaClients;
import dev.sqloop.common.runtime.ServiceHost;
import dev.sqloop.validator.schema.CatalogLoadOptions;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The static-validate worker: config → datasource catalogs → stage → runner. */
public final class Main {
    private static final Logger log = LoggerFactory.getLogger(Main.class);

    private Main() {}

    public static void main(String[] args) throws Exception {
        EnvConfig env = new EnvConfig(System.getenv());
        KafkaSettings kafka = KafkaSettings.fromEnv(env);
        Datasources datasources = Datasources.fromEnv(env);
        log.info("validator-service starting: {} datasources={} settings={}", kafka, datasources.names(), env.describe());
        PrometheusMeterRegistry registry = Metrics.newRegistry();
        StaticValidateStage stage = new StaticValidateStage(ConfiguredDatasourceCatalogs.fromDatasources(datasources,
                CatalogLoadOptions.fromEnv(env, "SQLOOP_VALIDATOR_"),
                env.duration("SQLOOP_VALIDATOR_CATALOG_TTL", java.time.Duration.ofMinutes(10)), Clock.systemUTC()), Clock.systemUTC());
        ServiceHost.serve("validator-service", List.of(KafkaClients.runner(stage, Topics.STATIC_VALIDATE, kafka,
                RunnerConfig.fromEnv(env, stage.name()), registry)), registry, env);
    }
}
