package dev.sqloop.executor;

import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.runtime.KafkaClients;
import dev.sqloop.common.runtime.MicrometerStageMetrics;
import dev.sqloop.common.runtime.StageRunner;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.List;

/**
 * The executor's wiring, the only one: config → read-only executor → {@link ExecuteStage} → its runner on
 * {@code execute}. Used by {@link Main} and by the embedded pipeline. The runner closes the executor's pools.
 */
public final class ExecutorWorker {
    private final ExecutorConfig config;
    private final StageRunner<QuestionTask> runner;

    private ExecutorWorker(ExecutorConfig config, StageRunner<QuestionTask> runner) {
        this.config = config;
        this.runner = runner;
    }

    public static ExecutorWorker create(EnvConfig env, MeterRegistry registry, Clock clock) {
        ExecutorConfig config = ExecutorConfig.fromEnv(env);
        ReadOnlyExecutor executor = new ReadOnlyExecutor();
        ExecuteStage stage = new ExecuteStage(config.datasources(), executor, new MicrometerStageMetrics(registry), clock,
                config.emptyAnswerRepair()).withTieBreak(config.tieBreak());
        StageRunner<QuestionTask> runner = KafkaClients.runner(stage, Topics.EXECUTE, config.kafka(), config.runner(), registry)
                .closing(executor);
        return new ExecutorWorker(config, runner);
    }

    public ExecutorConfig config() {
        return config;
    }

    /** Not started: the host ({@code ServiceHost} or the embedded pipeline) starts and closes them. */
    public List<StageRunner<?>> runners() {
        return List.of(runner);
    }
}
