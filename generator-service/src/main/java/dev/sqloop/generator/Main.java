package dev.sqloop.generator;

import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.metrics.Metrics;
import dev.sqloop.common.runtime.ServiceHost;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The generator service: config → {@link GeneratorWorker} → {@link ServiceHost} (management port 9402 by default).
 * {@code SQLOOP_GENERATOR_WORKERS=generate,repair} picks which workers this process runs; an argument
 * ({@code ./sqloop run repair} passes {@code repair}) overrides it.
 */
public final class Main {
    private static final Logger log = LoggerFactory.getLogger(Main.class);

    private Main() {}

    public static void main(String[] args) throws Exception {
        EnvConfig env = new EnvConfig(System.getenv());
        GeneratorWorker.Options options = GeneratorWorker.Options.fromEnv(env);
        if (args.length > 0) options = options.withWorkers(args[0]);
        PrometheusMeterRegistry registry = Metrics.newRegistry();
        GeneratorWorker worker = GeneratorWorker.create(env, options, registry, Clock.systemUTC());
        log.info("generator-service starting: {} settings={}", worker, env.describe());
        ServiceHost.serve("generator-service", ServiceHost.GENERATOR_PORT, worker.runners(), registry, env, worker);
    }
}
