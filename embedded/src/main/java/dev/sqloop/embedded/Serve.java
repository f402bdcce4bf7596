package dev.sqloop.embedded;

import dev.sqloop.embedded.pipeline.ManagementPorts;
import dev.sqloop.embedded.pipeline.EmbeddedPipeline;
import dev.sqloop.common.config.ConfigException;
import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.datasource.Datasources;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./sqloop serve}: the whole pipeline in one JVM on the user's own configuration (the same {@code SQLOOP_*}
 * variables the services read: datasources, LLM, example store, limits), kept up until Ctrl-C or SIGTERM. The broker
 * is embedded (KRaft, in this JVM) unless {@code SQLOOP_BOOTSTRAP_SERVERS} names a Kafka; everything else lives under
 * one data directory ({@code --data-dir}, {@code SQLOOP_DATA_DIR}, default {@code $SQLOOP_HOME/.sqloop/serve}), so a
 * restart keeps questions, batches, results and examples. Every port is fixed unless set otherwise (the gateway's, and
 * one management port per service: {@link ManagementPorts}), so a Prometheus configured once keeps scraping across
 * restarts. The single-machine default; {@code ./sqloop run SERVICE} is the path to scale.
 */
final class Serve {
    static final String DATA_DIR = "SQLOOP_DATA_DIR";
    static final String DEFAULT_GATEWAY_PORT = "8080";

    private Serve() {}

    /** {@code ./sqloop serve [--data-dir DIR]}. */
    @Command(name = "serve",
            description = {dev.sqloop.cli.Main.SERVE,
                "",
                "Every sqloop stage and the gateway in one JVM on your configuration (SQLOOP_* variables, listed in",
                "docs/configuration.md). At least one datasource (SQLOOP_DATASOURCE_<NAME>_DIALECT and _URL) and an LLM",
                "(SQLOOP_LLM_BASE_URL) are required. Add examples with ./sqloop seed FILE --datasource NAME while it runs."},
            footerHeading = "%nenvironment:%n",
            footer = {"  SQLOOP_DATA_DIR            the data directory when --data-dir is not given",
                "  SQLOOP_BOOTSTRAP_SERVERS   an external Kafka instead of the embedded broker",
                "  SQLOOP_GATEWAY_PORT        the gateway's port, its /metrics included (default 8080)",
                "  SQLOOP_MANAGEMENT_PORT     the first of the five services' management ports (/metrics, /healthy, /ready),",
                "                             default 9401: fewshot 9401, generator 9402, validator 9403, executor 9404,",
                "                             repair 9405 (the first four are those services' own defaults); 0 picks free ones",
                "  SQLOOP_MANAGEMENT_HOST     where they listen (default 127.0.0.1; 0.0.0.0 for a Prometheus elsewhere)",
                "",
                "A port already in use stops the start before anything is consumed, naming the variable (exit 2)."})
    static final class Cmd implements Callable<Integer> {
        @Option(names = "--data-dir", paramLabel = "DIR",
                description = {"where the broker's log, the gateway's state and the example index live (default: SQLOOP_DATA_DIR,",
                    "else $SQLOOP_HOME/.sqloop/serve); a restart on the same directory keeps questions, batches, results, examples"})
        Path dataDir;

        @Override
        public Integer call() throws Exception {
            return run(dataDir);
        }
    }

    static int run(Path dataDirOption) throws Exception {
        Map<String, String> settings = new HashMap<>();
        System.getenv().forEach((k, v) -> {
            if (k.startsWith("SQLOOP_")) settings.put(k, v);
        });
        Path dataDir = dataDir(dataDirOption, settings);
        // closed after the pipeline: the JVM's exit waits for the whole close (checkpoints, commits, the broker's log), and
        // for the last line: once the signal is closed a SIGTERM'd JVM exits, racing anything printed after
        try (StopSignal signal = new StopSignal()) {
            try (EmbeddedPipeline pipeline = start(dataDir, settings)) {
                System.out.print(describe(pipeline, dataDir));
                signal.await();
                System.out.println("sqloop serve: stopping (the data directory keeps everything for the next start)");
            }
            System.out.println("sqloop serve: stopped");
            System.out.flush();
        }
        return 0;
    }

    static Path dataDir(Path option, Map<String, String> settings) {
        if (option != null) return option.toAbsolutePath();
        String home = System.getenv("SQLOOP_HOME");
        String fallback = home == null || home.isBlank() ? ".sqloop/serve" : home + "/.sqloop/serve";
        return Path.of(settings.getOrDefault(DATA_DIR, fallback)).toAbsolutePath();
    }

    /**
     * The pipeline on {@code settings}: the gateway on port 8080 unless {@code SQLOOP_GATEWAY_PORT} says otherwise, the
     * services' management ports from {@code SQLOOP_MANAGEMENT_PORT} ({@link ManagementPorts}). Ports are checked first:
     * one in use is a {@link ConfigException} naming its variable, before the broker starts or a record is read.
     */
    static EmbeddedPipeline start(Path dataDir, Map<String, String> settings) throws Exception {
        Map<String, String> s = new HashMap<>(settings);
        s.putIfAbsent("SQLOOP_GATEWAY_PORT", DEFAULT_GATEWAY_PORT);
        EnvConfig env = new EnvConfig(s);
        int gatewayPort = env.integer("SQLOOP_GATEWAY_PORT", 8080, 0, 65535);
        String gatewayHost = env.string("SQLOOP_GATEWAY_HOST", "127.0.0.1");
        if (gatewayPort != 0 && !free(gatewayHost, gatewayPort)) {
            // the gateway starts last, after the stages: its port is checked before anything else
            throw new ConfigException("serve: the gateway's port " + gatewayHost + ":" + gatewayPort + " is in use (another ./sqloop serve or"
                    + " demo --serve?); set SQLOOP_GATEWAY_PORT to a free port");
        }
        return EmbeddedPipeline.serve(dataDir, s, ManagementPorts.fromEnv(env));
    }

    private static boolean free(String host, int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getByName(host))) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Where everything is, and which datasources have no examples yet. */
    static String describe(EmbeddedPipeline pipeline, Path dataDir) {
        StringBuilder b = new StringBuilder("sqloop serve\n");
        b.append("  data dir     ").append(dataDir).append('\n');
        b.append("  Kafka        ").append(pipeline.bootstrapServers())
                .append(pipeline.embeddedBroker() ? " (embedded KRaft broker, data under the data dir)" : " (external: SQLOOP_BOOTSTRAP_SERVERS)").append('\n');
        b.append("  gateway      ").append(pipeline.gatewayUrl()).append("  (POST /v1/batches, GET /v1/batches/{id}; ./sqloop submit FILE)\n");
        b.append("  console      ").append(pipeline.gatewayUrl()).append("/console/  (review batches, questions and examples in a browser")
                .append(pipeline.settings().getOrDefault("SQLOOP_GATEWAY_API_KEYS", "").isBlank() ? ")\n" : "; sign in with an API key)\n");
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
        b.append("Ctrl-C stops; a restart on the same data dir resumes unfinished questions, on the same ports.\n");
        return b.toString();
    }
}
