package dev.sqloop.common.runtime;

import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.metrics.ManagementServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a service's stage runners until the process is asked to stop: starts them, serves
 * {@code /metrics}, {@code /healthy} and {@code /ready} ({@code SQLOOP_MANAGEMENT_HOST}/{@code _PORT}),
 * and on SIGTERM closes the runners gracefully, then the given resources.
 */
public final class ServiceHost {
    private static final Logger log = LoggerFactory.getLogger(ServiceHost.class);

    private ServiceHost() {}

    public static void serve(String service, List<StageRunner<?>> runners, PrometheusMeterRegistry registry, EnvConfig env,
                             AutoCloseable... resources) throws IOException, InterruptedException {
        if (runners.isEmpty()) throw new IllegalArgumentException(service + ": no worker to run");
        runners.forEach(StageRunner::start);
        ManagementServer management = ManagementServer.start(env.string("SQLOOP_MANAGEMENT_HOST", "0.0.0.0"),
                env.integer("SQLOOP_MANAGEMENT_PORT", 9404, 0, 65535), registry,
                () -> runners.stream().allMatch(StageRunner::healthy), () -> runners.stream().allMatch(StageRunner::ready));
        List<AutoCloseable> closeLast = new ArrayList<>(List.of(resources));
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name(service + "-shutdown").unstarted(() -> {
            runners.forEach(StageRunner::close);
            management.close();
            for (AutoCloseable c : closeLast) {
                try {
                    c.close();
                } catch (Exception e) {
                    log.warn("{}: closing {} failed: {}", service, c, e.toString());
                }
            }
        }));
        log.info("{} running {} worker(s); management on port {}", service, runners.size(), management.port());
        for (StageRunner<?> r : runners) r.awaitStopped(Duration.ofDays(3650));
    }
}
