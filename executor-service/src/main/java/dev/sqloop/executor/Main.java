package dev.sqloop.executor;

import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.metrics.Metrics;
import dev.sqloop.common.runtime.ServiceHost;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The executor service: config → {@link ExecutorWorker} → {@link ServiceHost} (management port 9404 by default). */
public final class Main {
    private static final Logger LOG = LoggerFactory.getLogger(Main.class);

    private Main() {}

    public static void main(String[] args) throws Exception {
        EnvConfig env = new EnvConfig(System.getenv());
        PrometheusMeterRegistry registry = Metrics.newRegistry();
        ExecutorWorker worker = ExecutorWorker.create(env, registry, Clock.systemUTC());
        LOG.info("executor-service starting: {} datasources {} settings {}", worker.config().kafka(), worker.config().datasources(), env.describe());
        ServiceHost.serve("executor-service", ServiceHost.EXECUTOR_PORT, worker.runners(), registry, env);
    }
}
