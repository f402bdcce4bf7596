package dev.sqloop.validator;

import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.config.KafkaSettings;
import dev.sqloop.common.datasource.Datasources;
import dev.sqloop.common.runtime.KafkaClients;
import dev.sqloop.common.runtime.RunnerConfig;
import dev.sqloop.common.runtime.StageRunner;
import dev.sqloop.validator.schema.CatalogLoadOptions;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/**
 * The static-validate wiring, the only one: config → datasource catalogs (loaded over read-only JDBC, cached for
 * {@code SQLOOP_VALIDATOR_CATALOG_TTL}) → {@link StaticValidateStage} → its runner on {@code static-validate}.
 * Used by {@link Main} and by the embedded pipeline.
 */
public final class ValidatorWorker {
    public static final String CATALOG_TTL = "SQLOOP_VALIDATOR_CATALOG_TTL";
    public static final Duration DEFAULT_CATALOG_TTL = Duration.ofMinutes(10);

    private final KafkaSettings kafka;
    private final Datasources datasources;
    private final Duration catalogTtl;
    private final StageRunner<?> runner;

    private ValidatorWorker(KafkaSettings kafka, Datasources datasources, Duration catalogTtl, StageRunner<?> runner) {
        this.kafka = kafka;
        this.datasources = datasources;
        this.catalogTtl = catalogTtl;
        this.runner = runner;
    }

    public static ValidatorWorker create(EnvConfig env, MeterRegistry registry, Clock clock) {
        KafkaSettings kafka = KafkaSettings.fromEnv(env);
        Datasources datasources = Datasources.fromEnv(env);
        Duration ttl = env.duration(CATALOG_TTL, DEFAULT_CATALOG_TTL);
        StaticValidateStage stage = new StaticValidateStage(ConfiguredDatasourceCatalogs.fromDatasources(datasources,
                CatalogLoadOptions.fromEnv(env, "SQLOOP_VALIDATOR_"), ttl, clock), clock);
        StageRunner<?> runner = KafkaClients.runner(stage, Topics.STATIC_VALIDATE, kafka, RunnerConfig.fromEnv(env, stage.name()), registry);
        return new ValidatorWorker(kafka, datasources, ttl, runner);
    }

    /** Not started: the host ({@code ServiceHost} or the embedded pipeline) starts and closes them. */
    public List<StageRunner<?>> runners() {
        return List.of(runner);
    }

    @Override
    public String toString() {
        return kafka + " datasources=" + datasources.names() + " catalogTtl=" + catalogTtl;
    }
}
