package dev.sqloop.fewshot;

import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.config.KafkaSettings;
import dev.sqloop.common.metrics.Metrics;
import dev.sqloop.common.runtime.KafkaClients;
import dev.sqloop.common.runtime.ServiceHost;
import dev.sqloop.store.Embedder;
import dev.sqloop.store.ExampleStore;
import dev.sqloop.store.ExampleStoreConfig;
import dev.sqloop.store.ExampleStores;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The few-shot service: config → embedder and the configured store → {@link FewshotWorker} → topic sync →
 * {@link ServiceHost} (management port 9401 by default). {@code seed FILE [DATASOURCE]} seeds (and publishes
 * when a broker is configured) and exits.
 */
public final class Main {
    private static final Logger log = LoggerFactory.getLogger(Main.class);
    private static final Duration SYNC_TIMEOUT = Duration.ofMinutes(2);

    private Main() {}

    public static void main(String[] args) throws Exception {
        EnvConfig env = new EnvConfig(System.getenv());
        FewshotConfig config = FewshotConfig.fromEnv(env);
        ExampleStoreConfig storeConfig = ExampleStoreConfig.fromEnv(env);
        Embedder embedder = storeConfig.newEmbedder();
        ExampleStore store = ExampleStores.open(storeConfig);
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
        PrometheusMeterRegistry registry = Metrics.newRegistry();
        FewshotWorker worker = FewshotWorker.create(env, registry, Clock.systemUTC(), embedder, store);
        log.info("fewshot-service starting: {} {} {} settings={}", config, storeConfig, worker.kafka(), env.describe());
        KafkaClients.ensureTopics(worker.kafka(), Topics.ALL, SYNC_TIMEOUT);
        // before the workers start: examples seeded while the service was down reach the gateway's listing
        ExampleTopic.SyncReport sync = worker.syncExamples(SYNC_TIMEOUT);
        log.info("examples topic synced with the store: {} stored, {} published, {} removed", sync.stored(), sync.published(), sync.removed());
        ServiceHost.serve("fewshot-service", ServiceHost.FEWSHOT_PORT, worker.runners(), registry, env, store);
    }
}
