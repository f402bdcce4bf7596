package dev.sqloop.embedded.pipeline;

import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.metrics.ManagementServer;
import dev.sqloop.common.metrics.Metrics;
import dev.sqloop.common.runtime.KafkaClients;
import dev.sqloop.common.runtime.StageRunner;
import dev.sqloop.executor.ExecutorWorker;
import dev.sqloop.fewshot.ExampleSeeder;
import dev.sqloop.fewshot.FewshotWorker;
import dev.sqloop.gateway.Gateway;
import dev.sqloop.gateway.GatewayConfig;
import dev.sqloop.generator.CorrectionPromptBuilder;
import dev.sqloop.generator.GenerateStage;
import dev.sqloop.generator.GeneratorWorker;
import dev.sqloop.generator.RepairStage;
import dev.sqloop.store.Embedder;
import dev.sqloop.store.ExampleStore;
import dev.sqloop.store.ExampleStoreConfig;
import dev.sqloop.store.ExampleStores;
import dev.sqloop.testkit.EmbeddedKafka;
import dev.sqloop.testkit.Ports;
import dev.sqloop.testkit.llm.SimulatedLlm;
import dev.sqloop.validator.ValidatorWorker;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every sqloop stage in one JVM on one real Kafka broker: what {@code ./sqloop demo} runs and what
 * {@code PipelineEndToEndIT} tests. It composes the services' own wiring classes ({@link FewshotWorker},
 * {@link GeneratorWorker}, {@link ValidatorWorker}, {@link ExecutorWorker}, {@link Gateway}) from one
 * {@code SQLOOP_*} map, so there is exactly one wiring of each stage. What the embedded run adds: the broker, and
 * defaults under {@code workDir} for the gateway state and the example index (one store, opened here and shared by
 * the fewshot workers and the repair worker's similar past fixes); the LLM is {@code llm} unless
 * {@code SQLOOP_LLM_BASE_URL} is set.
 *
 * <p>Each service keeps its own metrics registry, served on its own management port as a deployed service would
 * ({@link ManagementPorts}: fixed ones for {@code serve}, free ones otherwise): {@link #metricsEndpoints()} lists them by
 * the job name Prometheus gives each service ({@code gateway}, {@code fewshot}, {@code generator}, {@code repair},
 * {@code validator}, {@code executor}).
 */
public final class EmbeddedPipeline implements AutoCloseable {
    private static final Duration SYNC_TIMEOUT = Duration.ofSeconds(60);

    private final EmbeddedKafka broker;
    private final SimulatedLlm llm;
    private final List<StageRunner<?>> runners;
    private final GeneratorWorker generator;
    private final FewshotWorker fewshot;
    private final Gateway gateway;
    private final ExampleStore store;
    private final GeneratorWorker repair;
    private final Map<String, PrometheusMeterRegistry> registries;
    private final List<ManagementServer> management;
    private final Map<String, URI> metricsEndpoints;
    private final Map<String, String> env;

    private EmbeddedPipeline(EmbeddedKafka broker, SimulatedLlm llm, List<StageRunner<?>> runners, GeneratorWorker generator,
                             GeneratorWorker repair, FewshotWorker fewshot, Gateway gateway, ExampleStore store,
                             Map<String, PrometheusMeterRegistry> registries, List<ManagementServer> management,
                             Map<String, URI> metricsEndpoints, Map<String, String> env) {
        this.broker = broker;
        this.llm = llm;
        this.runners = runners;
        this.generator = generator;
        this.fewshot = fewshot;
        this.gateway = gateway;
        this.store = store;
        this.repair = repair;
        this.registries = registries;
        this.management = management;
        this.metricsEndpoints = metricsEndpoints;
        this.env = env;
    }

    /**
     * @param settings {@code SQLOOP_*} settings; datasources ({@code SQLOOP_DATASOURCE_<NAME>_*}) are required
     * @param llm the simulated LLM to use when {@code SQLOOP_LLM_BASE_URL} is not set (closed with the pipeline); may be null then
     * @param stripEvidence test-only: correction prompts without the error evidence
     */
    public static EmbeddedPipeline start(Path workDir, Map<String, String> settings, SimulatedLlm llm, boolean stripEvidence)
            throws Exception {
        return start(workDir, settings, llm, stripEvidence, EmbeddedKafka::start, ManagementPorts.FREE);
    }

    /**
     * What {@code ./sqloop serve} runs: everything under {@code dataDir} kept across restarts — the broker's log
     * ({@code dataDir/kafka}), the gateway's state, the example index — or an external Kafka when
     * {@code SQLOOP_BOOTSTRAP_SERVERS} is set. The LLM is the configured one.
     */
    public static EmbeddedPipeline serve(Path dataDir, Map<String, String> settings) throws Exception {
        return serve(dataDir, settings, ManagementPorts.FREE);
    }

    /** {@link #serve(Path, Map)} with the services' management ports given ({@code ./sqloop serve}'s fixed ones). */
    public static EmbeddedPipeline serve(Path dataDir, Map<String, String> settings, ManagementPorts ports) throws Exception {
        boolean external = settings.containsKey("SQLOOP_BOOTSTRAP_SERVERS");
        return start(dataDir, settings, null, false, external ? () -> null : () -> EmbeddedKafka.persistent(dataDir.resolve("kafka")), ports);
    }

    private static EmbeddedPipeline start(Path workDir, Map<String, String> settings, SimulatedLlm llm, boolean stripEvidence,
                                          java.util.function.Supplier<EmbeddedKafka> brokers, ManagementPorts ports) throws Exception {
        // what started so far, closed (last first) if the start fails: a port in use must not leave a broker running
        java.util.Deque<AutoCloseable> started = new java.util.ArrayDeque<>();
        try {
            return start(workDir, settings, llm, stripEvidence, brokers, ports, started);
        } catch (Exception | Error e) {
            while (!started.isEmpty()) {
                try {
                    started.pop().close();
                } catch (Exception suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw e;
        }
    }

    private static EmbeddedPipeline start(Path workDir, Map<String, String> settings, SimulatedLlm llm, boolean stripEvidence,
                                          java.util.function.Supplier<EmbeddedKafka> brokers, ManagementPorts ports,
                                          java.util.Deque<AutoCloseable> started) throws Exception {
        Files.createDirectories(workDir);
        Map<String, PrometheusMeterRegistry> registries = new LinkedHashMap<>();
        for (String service : List.of(GATEWAY, FEWSHOT, GENERATOR, REPAIR, VALIDATOR, EXECUTOR)) registries.put(service, Metrics.newRegistry());
        // the management ports first, before the broker or any runner: one in use stops the start with nothing consumed
        Map<String, List<StageRunner<?>>> runnersOf = new java.util.concurrent.ConcurrentHashMap<>();
        List<ManagementServer> management = new ArrayList<>();
        Map<String, URI> endpoints = new LinkedHashMap<>();
        for (String service : List.of(FEWSHOT, GENERATOR, REPAIR, VALIDATOR, EXECUTOR)) {
            int port = ports.port(service);
            ManagementServer m;
            try {
                m = ManagementServer.start(ports.host(), port, registries.get(service),
                        () -> runnersOf.getOrDefault(service, List.of()).stream().allMatch(StageRunner::healthy) && runnersOf.containsKey(service),
                        () -> runnersOf.getOrDefault(service, List.of()).stream().allMatch(StageRunner::ready) && runnersOf.containsKey(service));
            } catch (java.net.BindException e) {
                throw new dev.sqloop.common.config.ConfigException("serve: " + ports.whenTaken(service, port) + " (" + e.getMessage() + ")");
            }
            started.push(m::close);
            management.add(m);
            endpoints.put(service, URI.create("http://" + ports.host() + ":" + m.port() + "/metrics"));
        }
        EmbeddedKafka broker = brokers.get();
        if (broker != null) started.push(broker);
        Map<String, String> env = new HashMap<>();
        if (broker != null) env.put("SQLOOP_BOOTSTRAP_SERVERS", broker.bootstrapServers());
        env.put("SQLOOP_FEWSHOT_LUCENE_PATH", workDir.resolve("examples").toString());
        env.put("SQLOOP_GATEWAY_PORT", Integer.toString(Ports.free()));
        env.put("SQLOOP_GATEWAY_STATE_DIR", workDir.resolve("gateway-state").toString());
        if (llm != null) {
            env.put("SQLOOP_LLM_MODEL", "simulated");
            env.put("SQLOOP_LLM_BASE_URL", llm.openAiBaseUrl());
        }
        env.putAll(settings);
        EnvConfig config = new EnvConfig(env);

        Clock clock = Clock.systemUTC();
        ExampleStoreConfig storeConfig = ExampleStoreConfig.fromEnv(config);
        Embedder embedder = storeConfig.newEmbedder();
        ExampleStore store = ExampleStores.open(storeConfig);
        started.push(store);

        FewshotWorker fewshot = FewshotWorker.create(config, registries.get(FEWSHOT), clock, embedder, store);
        GeneratorWorker.Options options = GeneratorWorker.Options.fromEnv(config).withSharedStore(embedder, store)
                .withEvidence(stripEvidence ? CorrectionPromptBuilder.Evidence.STRIPPED : CorrectionPromptBuilder.Evidence.INCLUDED);
        // generate and repair as the two services a deployment runs (./sqloop run generator | repair)
        GeneratorWorker generator = GeneratorWorker.create(config, options.withWorkers(GenerateStage.NAME), registries.get(GENERATOR), clock);
        started.push(generator::close);
        GeneratorWorker repair = GeneratorWorker.create(config, options.withWorkers(RepairStage.NAME), registries.get(REPAIR), clock);
        started.push(repair::close);
        Map<String, List<StageRunner<?>>> byService = new LinkedHashMap<>();
        byService.put(FEWSHOT, fewshot.runners());
        byService.put(GENERATOR, generator.runners());
        byService.put(REPAIR, repair.runners());
        byService.put(VALIDATOR, ValidatorWorker.create(config, registries.get(VALIDATOR), clock).runners());
        byService.put(EXECUTOR, ExecutorWorker.create(config, registries.get(EXECUTOR), clock).runners());
        List<StageRunner<?>> runners = new ArrayList<>();
        byService.values().forEach(runners::addAll);
        runnersOf.putAll(byService);

        KafkaClients.ensureTopics(fewshot.kafka(), Topics.ALL, SYNC_TIMEOUT);
        // as the fewshot service does at start: a work dir reused from an earlier run lists its examples again
        fewshot.syncExamples(SYNC_TIMEOUT);
        runners.forEach(StageRunner::start);
        started.push(() -> StageRunner.closeAll(runners));

        Gateway gateway = Gateway.start(GatewayConfig.fromEnv(config), registries.get(GATEWAY), Duration.ofSeconds(120));
        Map<String, URI> metricsEndpoints = new LinkedHashMap<>();
        metricsEndpoints.put(GATEWAY, URI.create("http://127.0.0.1:" + gateway.port() + "/metrics"));
        metricsEndpoints.putAll(endpoints);
        return new EmbeddedPipeline(broker, llm, runners, generator, repair, fewshot, gateway, store, Map.copyOf(registries),
                management, java.util.Collections.unmodifiableMap(metricsEndpoints), Map.copyOf(env));
    }

    public static final String GATEWAY = "gateway";
    public static final String FEWSHOT = "fewshot";
    public static final String GENERATOR = "generator";
    public static final String REPAIR = "repair";
    public static final String VALIDATOR = "validator";
    public static final String EXECUTOR = "executor";


    public String gatewayUrl() {
        return "http://127.0.0.1:" + gateway.port();
    }

    public String bootstrapServers() {
        return env.get("SQLOOP_BOOTSTRAP_SERVERS");
    }

    /** Whether the broker runs in this JVM (else {@code SQLOOP_BOOTSTRAP_SERVERS} named an external one). */
    public boolean embeddedBroker() {
        return broker != null;
    }

    /** The simulated LLM, or null when a real endpoint is configured. */
    public SimulatedLlm llm() {
        return llm;
    }

    public ExampleStore store() {
        return store;
    }

    /** Every stage runner of the pipeline (the gateway is not one). */
    public List<StageRunner<?>> runners() {
        return runners;
    }

    /** Each service's metrics registry, by job name. */
    public Map<String, PrometheusMeterRegistry> registries() {
        return registries;
    }

    /** Each service's {@code /metrics} URL, by the job name Prometheus scrapes it as. */
    public Map<String, URI> metricsEndpoints() {
        return metricsEndpoints;
    }

    public Map<String, String> settings() {
        return env;
    }

    /** Seeds examples (YAML, CSV or JSONL) for {@code datasource} and publishes them on {@code examples}; idempotent. */
    public ExampleSeeder.Report seed(Path file, String datasource, String dialect) throws java.io.IOException {
        return fewshot.seed(file, datasource, dialect, SYNC_TIMEOUT);
    }

    @Override
    public void close() {
        // the gateway (its Streams view, ~0.9 s) and the stage runners stop side by side, not one after the other
        Thread gatewayStop = Thread.ofPlatform().name("sqloop-gateway-stop").start(gateway::close);
        StageRunner.closeAll(runners);
        try {
            gatewayStop.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        management.forEach(ManagementServer::close);
        generator.close();
        repair.close();
        try {
            store.close();
        } catch (Exception ignored) {
            // the index was committed after every write
        }
        if (llm != null) llm.close();
        if (broker != null) broker.close();
    }
}
