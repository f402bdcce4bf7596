package dev.sqloop.cli;

import dev.sqloop.common.Topic;
import dev.sqloop.common.Topics;
import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.config.KafkaSettings;
import dev.sqloop.common.config.RunnerConfig;
import dev.sqloop.common.datasource.Datasources;
import dev.sqloop.common.datasource.ReadOnlyJdbc;
import dev.sqloop.common.metrics.Metrics;
import dev.sqloop.common.metrics.MicrometerStageMetrics;
import dev.sqloop.common.runtime.KafkaClients;
import dev.sqloop.common.runtime.Stage;
import dev.sqloop.common.runtime.StageRunner;
import dev.sqloop.executor.ExecuteStage;
import dev.sqloop.executor.ReadOnlyExecutor;
import dev.sqloop.fewshot.CaptureStage;
import dev.sqloop.fewshot.ConstraintExtractor;
import dev.sqloop.store.Embedder;
import dev.sqloop.fewshot.ExampleCommandStage;
import dev.sqloop.store.ErrorFixMemory;
import dev.sqloop.fewshot.ExampleSeeder;
import dev.sqloop.fewshot.ExampleTopic;
import dev.sqloop.fewshot.FeedbackStage;
import dev.sqloop.fewshot.FewshotConfig;
import dev.sqloop.fewshot.RetrieveExamplesStage;
import dev.sqloop.fewshot.schema.JdbcSchemaSource;
import dev.sqloop.fewshot.schema.SchemaLinker;
import dev.sqloop.store.ExampleStore;
import dev.sqloop.store.ExampleStoreConfig;
import dev.sqloop.store.LuceneExampleStore;
import dev.sqloop.gateway.Gateway;
import dev.sqloop.gateway.GatewayConfig;
import dev.sqloop.generator.CorrectionPromptBuilder;
import dev.sqloop.generator.DialectLookup;
import dev.sqloop.generator.ErrorPatternRegistry;
import dev.sqloop.generator.GenerateStage;
import dev.sqloop.generator.GeneratorConfig;
import dev.sqloop.generator.LangChainLlmClient;
import dev.sqloop.generator.MemoryPastFixes;
import dev.sqloop.generator.PastFixes;
import dev.sqloop.generator.ProjectionContract;
import dev.sqloop.generator.PromptBuilder;
import dev.sqloop.generator.RepairStage;
import dev.sqloop.testkit.EmbeddedKafka;
import dev.sqloop.testkit.Ports;
import dev.sqloop.testkit.llm.SimulatedLlm;
import dev.sqloop.validator.ConfiguredDatasourceCatalogs;
import dev.sqloop.validator.StaticValidateStage;
import dev.sqloop.validator.schema.CatalogLoadOptions;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Every sqloop stage in one JVM on one real Kafka broker: what {@code ./sqloop demo} runs and what
 * {@code PipelineEndToEndIT} tests. Configured from one {@code SQLOOP_*} map, read by the same
 * {@code fromEnv} methods the standalone services use; the embedded parts (broker, gateway state, example
 * index) get defaults under {@code workDir}, and the LLM is {@code llm} unless {@code SQLOOP_LLM_BASE_URL} is set.
 */
public final class EmbeddedPipeline implements AutoCloseable {
    private final EmbeddedKafka broker;
    private final SimulatedLlm llm;
    private final List<StageRunner<?>> runners;
    private final Gateway gateway;
    private final ExampleStore store;
    private final Embedder embedder;
    private final ReadOnlyExecutor executor;
    private final PrometheusMeterRegistry registry;
    private final Map<String, String> env;

    private EmbeddedPipeline(EmbeddedKafka broker, SimulatedLlm llm, List<StageRunner<?>> runners, Gateway gateway, ExampleStore store,
                             Embedder embedder, ReadOnlyExecutor executor, PrometheusMeterRegistry registry, Map<String, String> env) {
        this.broker = broker;
        this.llm = llm;
        this.runners = runners;
        this.gateway = gateway;
        this.store = store;
        this.embedder = embedder;
        this.executor = executor;
        this.registry = registry;
        this.env = env;
    }

    /**
     * @param settings {@code SQLOOP_*} settings; datasources ({@code SQLOOP_DATASOURCE_<NAME>_*}) are required
     * @param llm the simulated LLM to use when {@code SQLOOP_LLM_BASE_URL} is not set (closed with the pipeline); may be null then
     * @param stripEvidence test-only: correction prompts without the error evidence
     */
    public static EmbeddedPipeline start(Path workDir, Map<String, String> settings, SimulatedLlm llm, boolean stripEvidence)
            throws Exception {
        Files.createDirectories(workDir);
        EmbeddedKafka broker = EmbeddedKafka.start();
        Map<String, String> env = new HashMap<>();
        env.put("SQLOOP_BOOTSTRAP_SERVERS", broker.bootstrapServers());
        env.put("SQLOOP_FEWSHOT_LUCENE_PATH", workDir.resolve("examples").toString());
        env.put("SQLOOP_GATEWAY_PORT", Integer.toString(Ports.free()));
        env.put("SQLOOP_GATEWAY_STATE_DIR", workDir.resolve("gateway-state").toString());
        env.put("SQLOOP_LLM_MODEL", "simulated");
        if (llm != null) env.put("SQLOOP_LLM_BASE_URL", llm.openAiBaseUrl());
        env.putAll(settings);
        EnvConfig config = new EnvConfig(env);

        KafkaSettings kafka = KafkaSettings.fromEnv(config);
        KafkaClients.ensureTopics(kafka, Topics.ALL, Duration.ofSeconds(60));
        PrometheusMeterRegistry registry = Metrics.newRegistry();
        Clock clock = Clock.systemUTC();
        Datasources datasources = Datasources.fromEnv(config);

        Embedder embedder = new Embedder();
        FewshotConfig fewshot = FewshotConfig.fromEnv(config);
        ExampleStoreConfig storeConfig = ExampleStoreConfig.fromEnv(config);
        ExampleStore store = LuceneExampleStore.open(storeConfig.lucenePath());
        SchemaLinker linker = new SchemaLinker(new JdbcSchemaSource(ds -> ReadOnlyJdbc.open(datasources.get(ds)), fewshot.schemaName()),
                embedder, SchemaLinker.Settings.DEFAULTS, clock);
        PastFixes pastFixes = new MemoryPastFixes(new ErrorFixMemory(embedder, store, storeConfig.fixMinScore()));

        GeneratorConfig generator = GeneratorConfig.fromEnv(config);
        DialectLookup dialects = generator.dialectLookup();
        CorrectionPromptBuilder prompts = new CorrectionPromptBuilder(ErrorPatternRegistry.load(), pastFixes,
                stripEvidence ? CorrectionPromptBuilder.Evidence.STRIPPED : CorrectionPromptBuilder.Evidence.INCLUDED);
        ReadOnlyExecutor executor = new ReadOnlyExecutor();

        List<StageRunner<?>> runners = new ArrayList<>();
        runners.add(runner(new RetrieveExamplesStage(embedder, store, linker, new ConstraintExtractor(), fewshot, new MicrometerStageMetrics(registry)),
                Topics.RETRIEVE_EXAMPLES, kafka, config, registry));
        runners.add(runner(new GenerateStage(LangChainLlmClient.fromConfig(generator), dialects, new PromptBuilder(generator.jsonMode()),
                ProjectionContract.of(generator.projectionContract()), new MicrometerStageMetrics(registry), clock), Topics.GENERATE, kafka, config, registry));
        runners.add(runner(new StaticValidateStage(ConfiguredDatasourceCatalogs.fromDatasources(datasources, CatalogLoadOptions.fromEnv(config, "SQLOOP_VALIDATOR_"),
                Duration.ofMinutes(10), clock), clock), Topics.STATIC_VALIDATE, kafka, config, registry));
        runners.add(runner(new ExecuteStage(datasources, executor, clock), Topics.EXECUTE, kafka, config, registry));
        runners.add(runner(new RepairStage(dialects, prompts, new MicrometerStageMetrics(registry), clock), Topics.REPAIR_FEEDBACK, kafka, config, registry));
        runners.add(runner(new CaptureStage(embedder, store, fewshot, clock), Topics.SUCCESS, kafka, config, registry));
        runners.add(runner(new FeedbackStage(embedder, store, fewshot, clock), Topics.FEEDBACK, kafka, config, registry));
        runners.add(runner(new ExampleCommandStage(embedder, store, fewshot, clock), Topics.EXAMPLE_COMMANDS, kafka, config, registry));
        // as the fewshot service does at start: a work dir reused from an earlier run lists its examples again
        ExampleTopic.sync(store, kafka, Duration.ofSeconds(60));
        runners.forEach(StageRunner::start);

        Gateway gateway = Gateway.start(GatewayConfig.fromEnv(config), registry, Duration.ofSeconds(120));
        return new EmbeddedPipeline(broker, llm, runners, gateway, store, embedder, executor, registry, Map.copyOf(env));
    }

    private static <I> StageRunner<I> runner(Stage<I> stage, Topic<I> topic, KafkaSettings kafka, EnvConfig env,
                                             PrometheusMeterRegistry registry) {
        return KafkaClients.runner(stage, topic, kafka, RunnerConfig.fromEnv(env, stage.name()), registry);
    }

    public String gatewayUrl() {
        return "http://127.0.0.1:" + gateway.port();
    }

    public String bootstrapServers() {
        return broker.bootstrapServers();
    }

    /** The simulated LLM, or null when a real endpoint is configured. */
    public SimulatedLlm llm() {
        return llm;
    }

    public ExampleStore store() {
        return store;
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    public Map<String, String> settings() {
        return env;
    }

    /** Seeds examples (YAML, CSV or JSONL) for {@code datasource} and publishes them on {@code examples}; idempotent. */
    public ExampleSeeder.Report seed(Path file, String datasource, String dialect) throws java.io.IOException {
        ExampleSeeder.Report report = new ExampleSeeder(embedder, store, Clock.systemUTC()).seed(file, datasource, dialect);
        ExampleTopic.sync(store, KafkaSettings.fromEnv(new EnvConfig(env)), Duration.ofSeconds(60));
        return report;
    }

    @Override
    public void close() {
        gateway.close();
        runners.forEach(StageRunner::close);
        executor.close();
        try {
            store.close();
        } catch (Exception ignored) {
            // the index was committed after every write
        }
        if (llm != null) llm.close();
        broker.close();
    }
}
