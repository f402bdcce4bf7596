package dev.sqloop.fewshot;

import dev.sqloop.common.Topics;
import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.config.KafkaSettings;
import dev.sqloop.common.config.RunnerConfig;
import dev.sqloop.common.metrics.Metrics;
import dev.sqloop.common.runtime.KafkaClients;
import dev.sqloop.common.datasource.Datasources;
import dev.sqloop.common.datasource.ReadOnlyJdbc;
import dev.sqloop.common.runtime.ServiceHost;
import dev.sqloop.common.runtime.StageRunner;
import dev.sqloop.fewshot.schema.JdbcSchemaSource;
import dev.sqloop.fewshot.schema.SchemaLinker;
import dev.sqloop.fewshot.store.ExampleStore;
import dev.sqloop.fewshot.store.LuceneExampleStore;
import dev.sqloop.fewshot.store.QdrantExampleStore;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Clock;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wires the few-shot service: config → embedder, store, schema linker → the retrieve-examples, capture,
 * feedback and example-command stages → their runners → the management server, after publishing the store's
 * examples the {@code examples} topic lacks. {@code seed FILE [DATASOURCE]} seeds (and publishes when a broker is
 * configured) and exits.
 */
public final class Main {
    private static final Logger log = LoggerFactory.getLogger(Main.class);
    private static final java.time.Duration SYNC_TIMEOUT = java.time.Duration.ofMinutes(2);

    private Main() {}

    public static void main(String[] args) throws Exception {
        EnvConfig env = new EnvConfig(System.getenv());
        FewshotConfig config = FewshotConfig.fromEnv(env);
        Embedder embedder = new Embedder();
        ExampleStore store = openStore(config);
        if (args.length >= 2 && args[0].equals("seed")) {
            try (store) {
                ExampleSeeder.Report r = new ExampleSeeder(embedder, store, Clock.systemUTC())
                        .seed(Path.of(args[1]), args.length > 2 ? args[2] : "default", config.defaultDialect());
                System.out.printf("read %d, seeded %d, skipped %d; %d examples stored%n", r.read(), r.seeded(), r.skipped(), store.count());
                if (env.raw().containsKey(KafkaSettings.BOOTSTRAP)) {
                    ExampleTopic.SyncReport p = ExampleTopic.sync(store, KafkaSettings.fromEnv(env), SYNC_TIMEOUT);
                    System.out.printf("published %d changed examples on topic %s%n", p.published(), Topics.EXAMPLES);
                } else {
                    System.out.printf("%s not set: the fewshot service publishes them on topic %s when it starts%n",
                            KafkaSettings.BOOTSTRAP, Topics.EXAMPLES);
                }
            }
            return;
        }
        KafkaSettings kafka = KafkaSettings.fromEnv(env);
        log.info("fewshot-service starting: {} {} settings={}", config, kafka, env.describe());
        KafkaClients.ensureTopics(kafka, Topics.ALL, SYNC_TIMEOUT);
        // before the workers start: examples seeded while the service was down reach the gateway's listing
        ExampleTopic.SyncReport sync = ExampleTopic.sync(store, kafka, SYNC_TIMEOUT);
        log.info("examples topic synced with the store: {} stored, {} published, {} removed", sync.stored(), sync.published(), sync.removed());
        PrometheusMeterRegistry registry = Metrics.newRegistry();
        Datasources datasources = Datasources.fromEnv(env);
        // The shared datasource settings first (read-only, same DuckDB settings as the executor); a schema-only URL otherwise.
        SchemaLinker linker = new SchemaLinker(new JdbcSchemaSource(ds -> datasources.find(ds).isPresent()
                ? ReadOnlyJdbc.open(datasources.get(ds)) : connect(config, ds), config.schemaName()),
                embedder, SchemaLinker.Settings.fromEnv(env), Clock.systemUTC());
        List<StageRunner<?>> runners = List.of(
                KafkaClients.runner(new RetrieveExamplesStage(embedder, store, linker, new ConstraintExtractor(), config, registry),
                        Topics.RETRIEVE_EXAMPLES, kafka, RunnerConfig.fromEnv(env, RetrieveExamplesStage.NAME), registry),
                KafkaClients.runner(new CaptureStage(embedder, store, config, Clock.systemUTC()),
                        Topics.SUCCESS, kafka, RunnerConfig.fromEnv(env, CaptureStage.NAME), registry),
                KafkaClients.runner(new FeedbackStage(embedder, store, config, Clock.systemUTC()),
                        Topics.FEEDBACK, kafka, RunnerConfig.fromEnv(env, FeedbackStage.NAME), registry),
                KafkaClients.runner(new ExampleCommandStage(embedder, store, config, Clock.systemUTC()),
                        Topics.EXAMPLE_COMMANDS, kafka, RunnerConfig.fromEnv(env, ExampleCommandStage.NAME), registry));
        ServiceHost.serve("fewshot-service", runners, registry, env, store);
    }

    /** The configured store: Lucene on disk (one process only) or Qdrant (shared by every service). */
    public static ExampleStore openStore(FewshotConfig config) {
        return config.store().equals("qdrant")
                ? QdrantExampleStore.connect(config.qdrantHost(), config.qdrantPort(), config.qdrantApiKey(), config.qdrantTls(),
                        config.qdrantPrefix(), Embedder.DIMENSION)
                : LuceneExampleStore.open(config.lucenePath());
    }

    private static java.sql.Connection connect(FewshotConfig config, String datasource) throws SQLException {
        String url = config.schemaJdbcUrls().get(datasource);
        // no schema configured for this datasource: linking yields an empty schema rather than failing the question
        if (url == null) throw new SQLException("no SQLOOP_FEWSHOT_SCHEMA_JDBC_" + datasource.toUpperCase() + " configured");
        return DriverManager.getConnection(url);
    }
}
