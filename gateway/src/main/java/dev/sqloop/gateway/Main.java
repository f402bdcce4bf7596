package dev.sqloop.gateway;

import dev.sqloop.common.config.ConfigException;
import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.metrics.Metrics;
import java.net.BindException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gateway service: config → {@link Gateway} (Kafka clients, results view, HTTP server with {@code /metrics},
 * {@code /healthy} and {@code /ready} on its own port), until SIGTERM. The wiring is {@link Gateway#start}, which
 * the embedded pipeline uses too.
 */
public final class Main {
    private static final Logger log = LoggerFactory.getLogger(Main.class);

    private Main() {}

    public static void main(String[] args) throws Exception {
        EnvConfig env = new EnvConfig(System.getenv());
        GatewayConfig config = GatewayConfig.fromEnv(env);
        log.info("gateway starting: {} settings={}", config, env.describe());
        if (config.apiKeys().isEmpty()) log.warn("gateway: SQLOOP_GATEWAY_API_KEYS is empty, authentication is OFF (every caller is tenant 'default')");
        Gateway gateway;
        try {
            gateway = Gateway.start(config, Metrics.newRegistry(), Duration.ofMinutes(5));
        } catch (RuntimeException e) {
            if (!causedByBind(e)) throw e;
            throw new ConfigException("gateway: port " + config.host() + ":" + config.port()
                    + " is not available; set SQLOOP_GATEWAY_PORT (and SQLOOP_GATEWAY_HOST) to a free address");
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("gateway-shutdown").unstarted(() -> {
            gateway.close();
            stopped.countDown();
        }));
        log.info("gateway listening on http://{}:{} (API, /metrics, /healthy, /ready)", config.host(), gateway.port());
        stopped.await();
    }

    private static boolean causedByBind(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof BindException || String.valueOf(t.getMessage()).contains("Port already in use")) return true;
        }
        return false;
    }
}
