package dev.sqloop.validator;

import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.metrics.Metrics;
import dev.sqloop.common.runtime.ServiceHost;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The validator service: config → {@link ValidatorWorker} → {@link ServiceHost} (management port 9403 by default). */
public final class Main {
    private static final Logger log = LoggerFactory.getLogger(Main.class);

    private Main() {}

    public static void main(String[] args) throws Exception {
        EnvConfig env = new EnvConfig(System.getenv());
        PrometheusMeterRegistry registry = Metrics.newRegistry();
        ValidatorWorker worker = ValidatorWorker.create(env, registry, Clock.systemUTC());
        log.info("validator-service starting: {} settings={}", worker, env.describe());
        ServiceHost.serve("validator-service", ServiceHost.VALIDATOR_PORT, worker.runners(), registry, env);
    }
}
