package dev.sqloop.generator;

import dev.sqloop.common.Topics;
import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.config.KafkaSettings;
import dev.sqloop.common.config.RunnerConfig;
import dev.sqloop.common.metrics.Metrics;
import dev.sqloop.common.metrics.MicrometerStageMetrics;
import dev.sqloop.common.runtime.KafkaClients;
import dev.sqloop.common.runtime.ServiceHost;
import dev.sqloop.common.runtime.StageRunner;
import dev.sqloop.store.Embedder;
import dev.sqloop.store.ErrorFixMemory;
import dev.sqloop.store.ExampleStoreConfig;
import dev.sqloop.store.ExampleStores;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wires the generator service: config → LLM client → the generate and repair stages → their runners → the
 * management server. {@code SQLOOP_GENERATOR_WORKERS=generate,repair} picks which workers this process runs.
 */
public final class Main {
    private static final Logger log = LoggerFactory.getLogger(Main.class);

    private Main() {}

    public static void main(String[] args) throws Exception {
        EnvConfig env = new EnvConfig(System.getenv());
        GeneratorConfig config = GeneratorConfig.fromEnv(env);
        KafkaSettings kafka = KafkaSettings.fromEnv(env);
        // "./sqloop run repair" passes the worker list as an argument; a deployment sets SQLOOP_GENERATOR_WORKERS
        String workerList = args.length > 0 ? args[0] : env.string("SQLOOP_GENERATOR_WORKERS", "generate,repair");
        Set<String> workers = Set.of(workerList.split("\\s*,\\s*"));
        log.info("generator-service starting: {} {} workers={} settings={}", config, kafka, workers, env.describe());

        PrometheusMeterRegistry registry = Metrics.newRegistry();
        DialectLookup dialects = config.dialectLookup();
        List<StageRunner<?>> runners = new ArrayList<>();
        if (workers.contains(GenerateStage.NAME)) {
            GenerateStage generate = new GenerateStage(LangChainLlmClient.fromConfig(config), dialects,
                    new PromptBuilder(config.jsonMode()), ProjectionContract.of(config.projectionContract()), new MicrometerStageMetrics(registry),
                    Clock.systemUTC());
            runners.add(KafkaClients.runner(generate, Topics.GENERATE, kafka, RunnerConfig.fromEnv(env, GenerateStage.NAME), registry));
        }
        if (workers.contains(RepairStage.NAME)) {
            CorrectionPromptBuilder prompts = new CorrectionPromptBuilder(ErrorPatternRegistry.load(), pastFixes(env),
                    CorrectionPromptBuilder.Evidence.INCLUDED);
            RepairStage repair = new RepairStage(dialects, prompts, new MicrometerStageMetrics(registry), Clock.systemUTC());
            runners.add(KafkaClients.runner(repair, Topics.REPAIR_FEEDBACK, kafka, RunnerConfig.fromEnv(env, RepairStage.NAME), registry));
        }
        if (runners.isEmpty()) throw new IllegalArgumentException("SQLOOP_GENERATOR_WORKERS names no worker (generate, repair)");
        ServiceHost.serve("generator-service", runners, registry, env);
    }

    /**
     * Similar past fixes need the store the fewshot service writes error→fix pairs to. Only a shared store
     * (Qdrant) can be read from another process; with the embedded Lucene store the prompt goes without them.
     */
    static PastFixes pastFixes(EnvConfig env) {
        ExampleStoreConfig store = ExampleStoreConfig.fromEnv(env);
        if (!store.shared()) {
            log.info("repair: no shared example store (SQLOOP_FEWSHOT_STORE=qdrant): correction prompts go without similar past fixes");
            return PastFixes.NONE;
        }
        return new MemoryPastFixes(new ErrorFixMemory(new Embedder(), ExampleStores.open(store), store.fixMinScore()));
    }
}
