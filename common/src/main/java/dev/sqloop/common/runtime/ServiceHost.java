package dev.sqloop.common.runtime;

import dev.sqloop.common.config.ConfigException;
import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.metrics.ManagementServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.net.BindException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a service's stage runners until the process is asked to stop: serves {@code /metrics}, {@code /healthy}
 * and {@code /ready} ({@code SQLOOP_MANAGEMENT_HOST}/{@code _PORT}; each service has its own default port, 0 picks
 * a free one), starts the runners, and on SIGTERM closes the runners gracefully, then the given resources.
 */
public final class ServiceHost {
    public static final String MANAGEMENT_HOST = "SQLOOP_MANAGEMENT_HOST";
    public static final String MANAGEMENT_PORT = "SQLOOP_MANAGEMENT_PORT";

    /** Default management ports, one per service, so services sharing a host do not collide by default. */
    public static final int FEWSHOT_PORT = 9401;
    public static final int GENERATOR_PORT = 9402;
    public static final int VALIDATOR_PORT = 9403;
    public static final int EXECUTOR_PORT = 9404;

    private static final Logger log = LoggerFactory.getLogger(ServiceHost.class);

    private ServiceHost() {}

    /**
     * @param defaultPort the service's management port when {@code SQLOOP_MANAGEMENT_PORT} is not set
     */
    public static void serve(String service, int defaultPort, List<StageRunner<?>> runners, PrometheusMeterRegistry registry,
                             EnvConfig env, AutoCloseable... resources) throws IOException, InterruptedException {
        if (runners.isEmpty()) throw new IllegalArgumentException(service + ": no worker to run");
        // bound before any runner starts: a port conflict fails the start without consuming anything
        ManagementServer management = management(service, defaultPort, env, registry,
                () -> runners.stream().allMatch(StageRunner::healthy), () -> runners.stream().allMatch(StageRunner::ready));
        runners.forEach(StageRunner::start);
        List<AutoCloseable> closeLast = new ArrayList<>(List.of(resources));
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name(service + "-shutdown").unstarted(() -> {
            StageRunner.closeAll(runners);
            management.close();
            for (AutoCloseable c : closeLast) {
                try {
                    c.close();
                } catch (Exception e) {
                    log.warn("{}: closing {} failed: {}", service, c, e.toString());
                }
            }
        }));
        log.info("{} running {} worker(s)", service, runners.size());
        for (StageRunner<?> r : runners) r.awaitStopped(Duration.ofDays(3650));
    }

    /**
     * Starts the management server on {@code SQLOOP_MANAGEMENT_HOST}:{@code SQLOOP_MANAGEMENT_PORT} (default
     * {@code defaultPort}; 0 = a free port) and logs where it listens. A port in use is a {@link ConfigException}
     * naming the variable and the port, not a bare {@link BindException}.
     */
    public static ManagementServer management(String service, int defaultPort, EnvConfig env, PrometheusMeterRegistry registry,
                                              BooleanSupplier healthy, BooleanSupplier ready) throws IOException {
        String host = env.string(MANAGEMENT_HOST, "0.0.0.0");
        int port = env.integer(MANAGEMENT_PORT, defaultPort, 0, 65535);
        ManagementServer server;
        try {
            server = ManagementServer.start(host, port, registry, healthy, ready);
        } catch (BindException e) {
            throw new ConfigException(service + ": management port " + host + ":" + port + " is not available (" + e.getMessage()
                    + "); set " + MANAGEMENT_PORT + " to a free port, or 0 to pick one"
                    + (env.raw().containsKey(MANAGEMENT_PORT) ? "" : " (" + port + " is " + service + "'s default)"));
        }
        log.info("{}: management (/metrics, /healthy, /ready) on http://{}:{}{}", service, host, server.port(),
                port == 0 ? " (" + MANAGEMENT_PORT + "=0: a free port)" : "");
        return server;
    }
}
