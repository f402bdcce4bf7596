package dev.sqloop.executor;

import dev.sqloop.common.Topics;
import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.metrics.Metrics;
import dev.sqloop.common.runtime.KafkaClients;
import dev.sqloop.common.runtime.ServiceHost;
import dev.sqloop.common.runtime.StageRunner;
import java.util.List;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The executor worker: config → read-only executor → {@link ExecuteStage} → runner on {@code execute}. */
public final class Main {
    private static final Logger LOG = LoggerFactory.getLogger(Main.class);

    private Main() {}

    public static void main(String[] args) throws Exception {
        EnvConfig env = new EnvConfig(System.getenv());
        ExecutorConfig config = ExecutorConfig.fromEnv(env);
        LOG.info("executor starting: settings {} datasources {}", env.describe(), config.datasources());
        PrometheusMeterRegistry registry = Metrics.newRegistry();
        ReadOnlyExecutor executor = new ReadOnlyExecutor();
        ExecuteStage stage = new ExecuteStage(config.datasources(), executor, Clock.systemUTC());
        StageRunner<QuestionTask> runner = KafkaClients.runner(stage, Topics.EXECUTE, config.kafka(), config.runner(), registry)
                .closing(executor);
        ServiceHost.serve("executor-service", List.of(runner), registry, env);
    }
}
