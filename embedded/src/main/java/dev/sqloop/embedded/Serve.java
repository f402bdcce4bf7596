package dev.sqloop.embedded;

import dev.sqloop.cli.Args;
import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.datasource.Datasources;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;

/**
 * {@code ./sqloop serve}: the whole pipeline in one JVM on the user's own configuration (the same {@code SQLOOP_*}
 * variables the services read: datasources, LLM, example store, limits), kept up until Ctrl-C or SIGTERM. The broker
 * is embedded (KRaft, in this JVM) unless {@code SQLOOP_BOOTSTRAP_SERVERS} names a Kafka; everything else lives under
 * one data directory ({@code --data-dir}, {@code SQLOOP_DATA_DIR}, default {@code $SQLOOP_HOME/.sqloop/serve}), so a
 * restart keeps questions, batches, results and examples. The single-machine default; {@code ./sqloop run SERVICE}
 * is the path to scale.
 */
final class Serve {
    static final String DATA_DIR = "SQLOOP_DATA_DIR";
    static final String DEFAULT_GATEWAY_PORT = "8080";

    private Serve() {}

    static int run(Args args) throws Exception {
        args.allowOnly(false, "data-dir", "help");
        Map<String, String> settings = new HashMap<>();
        System.getenv().forEach((k, v) -> {
            if (k.startsWith("SQLOOP_")) settings.put(k, v);
        });
        Path dataDir = dataDir(args, settings);
        try (EmbeddedPipeline pipeline = start(dataDir, settings)) {
            System.out.print(describe(pipeline, dataDir));
            CountDownLatch stop = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown));
            stop.await();
            System.out.println("sqloop serve: stopping (the data directory keeps everything for the next start)");
        }
        return 0;
    }

    static Path dataDir(Args args, Map<String, String> settings) {
        String home = System.getenv("SQLOOP_HOME");
        String fallback = home == null || home.isBlank() ? ".sqloop/serve" : home + "/.sqloop/serve";
        return Path.of(args.string("data-dir", settings.getOrDefault(DATA_DIR, fallback))).toAbsolutePath();
    }

    /** The pipeline on {@code settings}, the gateway on port 8080 unless {@code SQLOOP_GATEWAY_PORT} says otherwise. */
    static EmbeddedPipeline start(Path dataDir, Map<String, String> settings) throws Exception {
        Map<String, String> s = new HashMap<>(settings);
        s.putIfAbsent("SQLOOP_GATEWAY_PORT", DEFAULT_GATEWAY_PORT);
        return EmbeddedPipeline.serve(dataDir, s);
    }

    /** Where everything is, and which datasources have no examples yet. */
    static String describe(EmbeddedPipeline pipeline, Path dataDir) {
        StringBuilder b = new StringBuilder("sqloop serve\n");
        b.append("  data dir     ").append(dataDir).append('\n');
        b.append("  Kafka        ").append(pipeline.bootstrapServers())
                .append(pipeline.embeddedBroker() ? " (embedded KRaft broker, data under the data dir)" : " (external: SQLOOP_BOOTSTRAP_SERVERS)").append('\n');
        b.append("  gateway      ").append(pipeline.gatewayUrl()).append("  (POST /v1/batches, GET /v1/batches/{id}; ./sqloop submit FILE)\n");
        b.append("  LLM          ").append(pipeline.settings().get("SQLOOP_LLM_BASE_URL")).append('\n');
        pipeline.metricsEndpoints().forEach((service, url) -> b.append(String.format("  metrics      %-10s %s%n", service, url)));
        Map<String, String> dialects = new TreeMap<>();
        Datasources.dialectsFromEnv(new EnvConfig(pipeline.settings())).forEach((name, d) -> dialects.put(name, d.wireName()));
        for (Map.Entry<String, String> ds : dialects.entrySet()) {
            long n = pipeline.store().count(ds.getKey()); // an indexed count, not a scan of the store
            b.append(String.format("  datasource   %-12s %-9s %s%n", ds.getKey(), ds.getValue(), n > 0 ? n + " examples"
                    : "no examples yet: seed some with ./sqloop seed FILE --datasource " + ds.getKey()
                    + " (successes are captured as the batch runs)"));
        }
        b.append("Ctrl-C stops; a restart on the same data dir resumes unfinished questions.\n");
        return b.toString();
    }

    static String usage() {
        return """
                usage: ./sqloop serve [--data-dir DIR]

                Runs every sqloop stage and the gateway in one JVM on your configuration (SQLOOP_* variables; see
                the README's Configuration section), until Ctrl-C. At least one datasource
                (SQLOOP_DATASOURCE_<NAME>_DIALECT and _URL) and an LLM (SQLOOP_LLM_BASE_URL) are required.

                options:
                  --data-dir DIR   where the broker's log, the gateway's state and the example index live
                                   (default: SQLOOP_DATA_DIR, else $SQLOOP_HOME/.sqloop/serve); a restart on the
                                   same directory keeps questions, batches, results and examples
                  --help           this text

                environment:
                  SQLOOP_BOOTSTRAP_SERVERS   an external Kafka instead of the embedded broker
                  SQLOOP_GATEWAY_PORT        the gateway's port (default 8080)
                """;
    }
}
