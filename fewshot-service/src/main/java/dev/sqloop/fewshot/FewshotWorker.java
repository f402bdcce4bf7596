package dev.sqloop.fewshot;

import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.config.KafkaSettings;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.datasource.Datasources;
import dev.sqloop.common.datasource.ReadOnlyJdbc;
import dev.sqloop.chdb.ChdbUrl;
import dev.sqloop.fewshot.schema.ChdbSchemaSource;
import dev.sqloop.fewshot.schema.SchemaSource;
import dev.sqloop.common.metrics.Metrics;
import dev.sqloop.common.runtime.KafkaClients;
import dev.sqloop.common.runtime.MicrometerStageMetrics;
import dev.sqloop.common.runtime.RunnerConfig;
import dev.sqloop.common.runtime.StageRunner;
import dev.sqloop.fewshot.schema.JdbcSchemaSource;
import dev.sqloop.fewshot.schema.SchemaLinker;
import dev.sqloop.store.Embedder;
import dev.sqloop.store.ExampleStore;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The few-shot service's wiring, the only one: config → schema linker → the retrieve-examples, capture, feedback
 * and example-command stages → their runners, over an embedder and example store the caller opened (the service's
 * {@link Main} opens the configured ones; the embedded pipeline shares its own with the repair worker).
 * {@link #syncExamples} publishes what the {@code examples} topic lacks; {@link #seed} seeds and publishes.
 */
public final class FewshotWorker {
    private final FewshotConfig config;
    private final KafkaSettings kafka;
    private final Embedder embedder;
    private final ExampleStore store;
    private final Clock clock;
    private final List<StageRunner<?>> runners;

    private FewshotWorker(FewshotConfig config, KafkaSettings kafka, Embedder embedder, ExampleStore store, Clock clock,
                          List<StageRunner<?>> runners) {
        this.config = config;
        this.kafka = kafka;
        this.embedder = embedder;
        this.store = store;
        this.clock = clock;
        this.runners = runners;
    }

    /** The workers over {@code store} (not closed by them: the caller owns it). */
    public static FewshotWorker create(EnvConfig env, MeterRegistry registry, Clock clock, Embedder embedder, ExampleStore store) {
        FewshotConfig config = FewshotConfig.fromEnv(env);
        KafkaSettings kafka = KafkaSettings.fromEnv(env);
        Datasources datasources = Datasources.fromEnv(env);
        SchemaLinker linker = new SchemaLinker(schemaSource(config, datasources), embedder, SchemaLinker.Settings.fromEnv(env), clock);
        MicrometerStageMetrics metrics = new MicrometerStageMetrics(registry);
        registerExampleGauges(registry, store, datasources, config);
        // capture takes the vector retrieval computed for the same question in this process instead of embedding it again
        QuestionVectors vectors = new QuestionVectors(QuestionVectors.DEFAULT_CAPACITY);
        List<StageRunner<?>> runners = List.of(
                KafkaClients.runner(new RetrieveExamplesStage(embedder, store, linker, new ConstraintExtractor(), config, metrics, vectors),
                        Topics.RETRIEVE_EXAMPLES, kafka, RunnerConfig.fromEnv(env, RetrieveExamplesStage.NAME), registry)
                        .admitting(RunnerConfig.admission(env, kafka, registry)),
                KafkaClients.runner(new CaptureStage(embedder, store, config, metrics, clock, vectors),
                        Topics.SUCCESS, kafka, RunnerConfig.fromEnv(env, CaptureStage.NAME), registry),
                KafkaClients.runner(new FeedbackStage(embedder, store, config, clock),
                        Topics.FEEDBACK, kafka, RunnerConfig.fromEnv(env, FeedbackStage.NAME), registry),
                KafkaClients.runner(new ExampleCommandStage(embedder, store, config, clock),
                        Topics.EXAMPLE_COMMANDS, kafka, RunnerConfig.fromEnv(env, ExampleCommandStage.NAME), registry));
        return new FewshotWorker(config, kafka, embedder, store, clock, runners);
    }

    /**
     * Where the prompt's schema comes from: the shared datasource settings first (read-only, same DuckDB settings as the
     * executor; its own schema and the other schemas its {@code _ALLOWED_SCHEMAS} lets queries read, as the validator's
     * catalog and the executor's allow-list do), a schema-only URL ({@code SQLOOP_FEWSHOT_SCHEMA_JDBC_<NAME>}) otherwise.
     */
    static SchemaSource schemaSource(FewshotConfig config, Datasources datasources) {
        JdbcSchemaSource jdbc = new JdbcSchemaSource(ds -> datasources.find(ds).isPresent() ? ReadOnlyJdbc.open(datasources.get(ds)) : connect(config, ds),
                config.schemaName(), ds -> datasources.find(ds).map(DatasourceConfig::allowedSchemas).orElse(Set.of()));
        // chDB runs in-process and has no JDBC driver: its datasources are read on a chDB session
        ChdbSchemaSource chdb = new ChdbSchemaSource(datasources::get);
        return ds -> datasources.find(ds).filter(d -> ChdbUrl.matches(d.jdbcUrl())).isPresent() ? chdb.tables(ds) : jdbc.tables(ds);
    }

    /**
     * One {@code sqloop.fewshot.examples} gauge per configured datasource (shared settings or a schema-only URL), read
     * from the store at each scrape: a count on an indexed field, never a scan.
     */
    static void registerExampleGauges(MeterRegistry registry, ExampleStore store, Datasources datasources, FewshotConfig config) {
        Set<String> names = new TreeSet<>(datasources.names());
        names.addAll(config.schemaJdbcUrls().keySet());
        for (String ds : names) {
            Gauge.builder(Metrics.FEWSHOT_EXAMPLES, store, s -> s.count(ds)).description("Examples stored for the datasource")
                    .tag("datasource", ds).register(registry);
        }
    }

    /**
     * Publishes the store's examples the {@code examples} topic lacks and tombstones what the store no longer holds;
     * run before the workers start, so examples seeded while the service was down reach the gateway's listing.
     */
    public ExampleTopic.SyncReport syncExamples(Duration timeout) {
        return ExampleTopic.sync(store, kafka, timeout);
    }

    /** Seeds examples (YAML, CSV or JSONL) for {@code datasource}, then publishes the changes on {@code examples}. */
    public ExampleSeeder.Report seed(Path file, String datasource, String dialect, Duration timeout) throws IOException {
        ExampleSeeder.Report report = new ExampleSeeder(embedder, store, clock).seed(file, datasource, dialect);
        syncExamples(timeout);
        return report;
    }

    public FewshotConfig config() {
        return config;
    }

    public KafkaSettings kafka() {
        return kafka;
    }

    /** Not started: the host ({@code ServiceHost} or the embedded pipeline) starts and closes them. */
    public List<StageRunner<?>> runners() {
        return runners;
    }

    private static Connection connect(FewshotConfig config, String datasource) throws SQLException {
        String url = config.schemaJdbcUrls().get(datasource);
        // no schema configured for this datasource: linking yields an empty schema rather than failing the question
        if (url == null) throw new SQLException("no " + FewshotConfig.JDBC_PREFIX + datasource.toUpperCase(java.util.Locale.ROOT) + " configured");
        return DriverManager.getConnection(url);
    }
}
