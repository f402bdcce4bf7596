package dev.sqloop.generator;

import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.config.ConfigException;
import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.config.KafkaSettings;
import dev.sqloop.common.runtime.Cancellations;
import dev.sqloop.common.runtime.KafkaClients;
import dev.sqloop.common.runtime.OutgoingRecords;
import dev.sqloop.common.runtime.RunnerSettings;
import dev.sqloop.common.runtime.MicrometerStageMetrics;
import dev.sqloop.common.runtime.RunnerConfig;
import dev.sqloop.common.runtime.StageRunner;
import dev.sqloop.store.Embedder;
import dev.sqloop.store.ErrorFixMemory;
import dev.sqloop.store.ExampleStore;
import dev.sqloop.store.ExampleStoreConfig;
import dev.sqloop.store.ExampleStores;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.clients.producer.Producer;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The generator service's wiring, the only one: config → LLM client → the generate and/or repair stage
 * ({@code SQLOOP_GENERATOR_WORKERS}) → their runners. Used by {@link Main} and by the embedded pipeline.
 *
 * <p>Similar past fixes in correction prompts need the error→fix pairs the fewshot service writes: the repair
 * worker reads them from an example store this process can reach — one the caller shares
 * ({@link Options#withSharedStore}: the embedded pipeline's in-process store), else a shared Qdrant store
 * ({@code SQLOOP_FEWSHOT_STORE=qdrant}); with an embedded Lucene store owned by another process, prompts go without them.
 */
public final class GeneratorWorker implements AutoCloseable {
    public static final String WORKERS = "SQLOOP_GENERATOR_WORKERS";
    /** The consumer group suffix of the generate worker's priority lane ({@code regenerate}). */
    public static final String REGENERATE_GROUP = "regenerate";
    /** Whether repairs go to the priority lane {@code regenerate} (default) or back to {@code generate}; off only to measure the difference. */
    public static final String PRIORITY_LANE = "SQLOOP_REPAIR_PRIORITY_LANE";
    private static final Logger log = LoggerFactory.getLogger(GeneratorWorker.class);

    /**
     * @param workers {@code generate}, {@code repair} or both
     * @param sharedEmbedder with {@code sharedStore}: an embedder and store already open in this process, or both null
     * @param evidence {@code INCLUDED}; {@code STRIPPED} only for the test that proves the evidence is what repairs
     */
    public record Options(Set<String> workers, Embedder sharedEmbedder, ExampleStore sharedStore,
                          CorrectionPromptBuilder.Evidence evidence) {
        public Options {
            workers = Set.copyOf(workers);
        }

        /** {@code SQLOOP_GENERATOR_WORKERS} (default {@code generate,repair}), no shared store, evidence included. */
        public static Options fromEnv(EnvConfig env) {
            return new Options(Set.of(), null, null, CorrectionPromptBuilder.Evidence.INCLUDED)
                    .withWorkers(env.string(WORKERS, GenerateStage.NAME + "," + RepairStage.NAME));
        }

        /** A comma-separated worker list, as {@code SQLOOP_GENERATOR_WORKERS} or {@code ./sqloop run repair} give it. */
        public Options withWorkers(String list) {
            Set<String> names = new LinkedHashSet<>(Arrays.stream(list.split(",")).map(String::strip).filter(s -> !s.isEmpty()).toList());
            for (String n : names) {
                if (!n.equals(GenerateStage.NAME) && !n.equals(RepairStage.NAME)) {
                    throw new ConfigException(WORKERS + " names an unknown worker '" + n + "' (generate, repair)");
                }
            }
            if (names.isEmpty()) throw new ConfigException(WORKERS + " names no worker (generate, repair)");
            return new Options(names, sharedEmbedder, sharedStore, evidence);
        }

        public Options withSharedStore(Embedder embedder, ExampleStore store) {
            return new Options(workers, embedder, store, evidence);
        }

        public Options withEvidence(CorrectionPromptBuilder.Evidence value) {
            return new Options(workers, sharedEmbedder, sharedStore, value);
        }
    }

    private final GeneratorConfig config;
    private final KafkaSettings kafka;
    private final Set<String> workers;
    private final List<StageRunner<?>> runners;
    private final List<AutoCloseable> owned;

    private GeneratorWorker(GeneratorConfig config, KafkaSettings kafka, Set<String> workers, List<StageRunner<?>> runners,
                            List<AutoCloseable> owned) {
        this.config = config;
        this.kafka = kafka;
        this.workers = workers;
        this.runners = runners;
        this.owned = owned;
    }

    public static GeneratorWorker create(EnvConfig env, Options options, MeterRegistry registry, Clock clock) {
        GeneratorConfig config = GeneratorConfig.fromEnv(env);
        KafkaSettings kafka = KafkaSettings.fromEnv(env);
        DialectLookup dialects = config.dialectLookup();
        List<StageRunner<?>> runners = new ArrayList<>();
        List<AutoCloseable> owned = new ArrayList<>();
        // one correction prompt builder: the repair worker's, which the generate worker's failed candidates use too
        CorrectionPromptBuilder corrections = options.workers().contains(RepairStage.NAME)
                ? new CorrectionPromptBuilder(ErrorPatternRegistry.load(), pastFixes(env, options, owned), options.evidence())
                : new CorrectionPromptBuilder(ErrorPatternRegistry.load(), PastFixes.NONE, options.evidence());
        if (options.workers().contains(GenerateStage.NAME)) {
            ProviderBatchSettings batch = ProviderBatchSettings.fromEnv(env);
            MicrometerStageMetrics metrics = new MicrometerStageMetrics(registry);
            BatchWindows windows = batch.enabled() ? batchMode(env, config, kafka, batch, clock, owned) : null;
            GenerateStage generate = new GenerateStage(config.llmClient(registry), dialects,
                    new PromptBuilder(config.jsonMode()), ProjectionContract.of(config.projectionContract()), metrics, clock, windows)
                    .withCandidates(candidates(env, config)).withCorrections(corrections);
            RunnerSettings first = RunnerConfig.fromEnv(env, GenerateStage.NAME);
            RunnerSettings lane = RunnerConfig.fromEnv(env, REGENERATE_GROUP);
            if (windows != null) {
                // a request waits in the runner until its window is recorded: a window can be only as big as the runner's in-flight limit
                first = first.withMaxInFlight(Math.max(first.maxInFlight(), batch.maxRequests()));
                lane = lane.withMaxInFlight(Math.max(lane.maxInFlight(), batch.maxRequests()));
                ProviderBatchApi api = config.provider().equals(GeneratorConfig.ANTHROPIC)
                        ? new AnthropicBatchClient(config.baseUrl(), config.apiKey(), config.timeout())
                        : new OpenAiBatchClient(config.baseUrl(), config.apiKey(), config.timeout());
                owned.add(0, new ProviderBatchPoller(batch, api,
                        generate, new BatchLines.RequestSettings(config.model(), config.temperature(), config.maxTokens(), config.jsonMode()),
                        config.prices(), config.provider(), metrics, kafka, env.string("SQLOOP_GROUP_PREFIX", "sqloop") + "-llm-batches",
                        KafkaClients.producer(kafka, "sqloop-llm-batch-poller"), Cancellations.follow(kafka, "sqloop-llm-batch-poller"),
                        clock).start());
            }
            runners.add(KafkaClients.runner(generate, Topics.GENERATE, kafka, first, registry));
            // the priority lane: corrections have a consumer of their own (never behind first attempts in a partition)
            // and the shared LLM client serves their calls first
            runners.add(KafkaClients.runner(generate, Topics.REGENERATE, kafka, lane, registry));
        }
        if (options.workers().contains(RepairStage.NAME)) {
            RepairStage repair = new RepairStage(dialects, corrections, clock, env.bool(PRIORITY_LANE, true));
            runners.add(KafkaClients.runner(repair, Topics.REPAIR_FEEDBACK, kafka, RunnerConfig.fromEnv(env, RepairStage.NAME), registry));
        }
        return new GeneratorWorker(config, kafka, options.workers(), List.copyOf(runners), owned);
    }

    /**
     * Provider batch mode ({@code SQLOOP_LLM_MODE=batch}): the windows the generate stage fills, recorded on
     * {@code llm-batches} by a producer of their own. OpenAI's Batch API or Anthropic's Message Batches; Ollama has none.
     */
    static BatchWindows batchMode(EnvConfig env, GeneratorConfig config, KafkaSettings kafka, ProviderBatchSettings batch, Clock clock,
                                  List<AutoCloseable> owned) {
        if (config.provider().equals(GeneratorConfig.OLLAMA)) {
            throw new ConfigException(ProviderBatchSettings.MODE + "=batch needs a provider batch API (SQLOOP_LLM_PROVIDER=openai or anthropic), not "
                    + config.provider());
        }
        Producer<byte[], byte[]> producer = KafkaClients.producer(kafka, "sqloop-llm-batch-windows");
        BatchWindows windows = new BatchWindows(batch, w -> producer.send(OutgoingRecords.record(ProviderBatch.TOPIC.name(), w, java.util.Map.of()))
                .get(KafkaClients.DELIVERY_TIMEOUT.toSeconds() + 10, java.util.concurrent.TimeUnit.SECONDS), clock);
        owned.add(windows);
        owned.add(() -> producer.close(java.time.Duration.ofSeconds(5)));
        log.info("generate: provider batch mode, windows of up to {} requests / {} bytes / {}", batch.maxRequests(), batch.maxBytes(), batch.maxAge());
        return windows;
    }

    /** {@code SQLOOP_DATASOURCE_<NAME>_CANDIDATES} per datasource (1 to 9, default 1: one candidate, as before issue 50). */
    static java.util.Map<String, Integer> candidates(EnvConfig env, GeneratorConfig config) {
        java.util.Map<String, Integer> out = new java.util.HashMap<>();
        for (String name : config.dialects().keySet()) {
            String key = dev.sqloop.common.datasource.Datasources.PREFIX + name.toUpperCase(java.util.Locale.ROOT)
                    + dev.sqloop.common.datasource.Datasources.CANDIDATES;
            out.put(name.toLowerCase(java.util.Locale.ROOT), env.integer(key, 1, 1, dev.sqloop.common.datasource.Datasources.MAX_CANDIDATES));
        }
        return out;
    }

    /** The one rule for similar past fixes (see the class comment). */
    static PastFixes pastFixes(EnvConfig env, Options options, List<AutoCloseable> owned) {
        ExampleStoreConfig storeConfig = ExampleStoreConfig.fromEnv(env);
        if (options.sharedStore() != null) {
            return new MemoryPastFixes(new ErrorFixMemory(options.sharedEmbedder(), options.sharedStore(), storeConfig.fixMinScore()));
        }
        if (!storeConfig.shared()) {
            log.info("repair: no shared example store (SQLOOP_FEWSHOT_STORE=qdrant): correction prompts go without similar past fixes");
            return PastFixes.NONE;
        }
        ExampleStore store = ExampleStores.open(storeConfig);
        owned.add(store);
        return new MemoryPastFixes(new ErrorFixMemory(storeConfig.newEmbedder(), store, storeConfig.fixMinScore()));
    }

    /** Not started: the host ({@code ServiceHost} or the embedded pipeline) starts and closes them. */
    public List<StageRunner<?>> runners() {
        return runners;
    }

    /** Closes what the worker opened itself (a Qdrant store for past fixes), after its runners are closed. */
    @Override
    public void close() {
        for (AutoCloseable c : owned) {
            try {
                c.close();
            } catch (Exception e) {
                log.warn("generator: closing {} failed: {}", c, e.toString());
            }
        }
    }

    @Override
    public String toString() {
        return config + " " + kafka + " workers=" + workers;
    }
}
