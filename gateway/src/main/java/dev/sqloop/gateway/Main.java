package dev.sqloop.gateway;

import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.metrics.Metrics;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The gateway service: config → Kafka clients and results view → HTTP server, until SIGTERM. */
public final class Main {
    private static final Logger log = LoggerFactory.getLogger(Main.class);

    private Main() {}

    public static void main(String[] args) throws Exception {
        EnvConfig env = new EnvConfig(System.getenv());
        GatewayConfig config = GatewayConfig.fromEnv(env);
        log.info("gateway starting: {} settings={}", config, env.describe());
        if (config.apiKeys().isEmpty()) log.warn("gateway: SQLOOP_GATEWAY_API_KEYS is empty, authentication is OFF (every caller is tenant 'default')");
        Gateway gateway = Gateway.start(config, Metrics.newRegistry(), Duration.ofMinutes(5));
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("gateway-shutdown").unstarted(() -> {
            gateway.close();
            stopped.countDown();
        }));
        log.info("gateway listening on port {}", gateway.port());
        stopped.await();
    }
}
