package dev.sqloop.embedded.pipeline;

import dev.sqloop.common.config.ConfigException;
import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.runtime.ServiceHost;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where the services of one embedded pipeline serve {@code /metrics}, {@code /healthy} and {@code /ready}: a port each,
 * so Prometheus scrapes them as the separate jobs a deployment has. {@code ./sqloop serve} uses
 * {@link #fromEnv fixed ones}, the same on every start, so a static scrape configuration keeps working across restarts;
 * the demo, eval and the tests use {@link #FREE} (several pipelines share a host there, and nobody scrapes them twice).
 *
 * @param host  where they listen
 * @param ports the port of each worker service (0: a free one)
 */
public record ManagementPorts(String host, Map<String, Integer> ports) {
    /** The worker services, in the order their ports follow the first one. */
    public static final List<String> SERVICES = List.of(EmbeddedPipeline.FEWSHOT, EmbeddedPipeline.GENERATOR, EmbeddedPipeline.VALIDATOR,
            EmbeddedPipeline.EXECUTOR, EmbeddedPipeline.REPAIR);
    /** serve's first management port: the fewshot service's own default, so the next three are also those services' own. */
    public static final int DEFAULT_FIRST = ServiceHost.FEWSHOT_PORT;

    /** A free port for each service, on 127.0.0.1. */
    public static final ManagementPorts FREE = consecutive("127.0.0.1", 0);

    public ManagementPorts {
        ports = Map.copyOf(ports);
    }

    /**
     * {@code SQLOOP_MANAGEMENT_PORT} (default 9401) is the first of five consecutive ports: fewshot, generator,
     * validator, executor (9401-9404: the ports each has when run alone) and repair (9405); 0 picks free ones.
     * {@code SQLOOP_MANAGEMENT_HOST} (default 127.0.0.1) is where they listen.
     */
    public static ManagementPorts fromEnv(EnvConfig env) {
        int first = env.integer(ServiceHost.MANAGEMENT_PORT, DEFAULT_FIRST, 0, 65535);
        if (first != 0 && first + SERVICES.size() - 1 > 65535) {
            throw new ConfigException(ServiceHost.MANAGEMENT_PORT + " is the first of " + SERVICES.size() + " consecutive ports: at most "
                    + (65536 - SERVICES.size()) + ", was " + first);
        }
        return consecutive(env.string(ServiceHost.MANAGEMENT_HOST, "127.0.0.1"), first);
    }

    private static ManagementPorts consecutive(String host, int first) {
        Map<String, Integer> ports = new LinkedHashMap<>();
        for (int i = 0; i < SERVICES.size(); i++) ports.put(SERVICES.get(i), first == 0 ? 0 : first + i);
        return new ManagementPorts(host, ports);
    }

    public int port(String service) {
        Integer port = ports.get(service);
        if (port == null) throw new IllegalArgumentException("no management port for " + service);
        return port;
    }

    /** What to set when {@code port} of {@code service} is taken. */
    String whenTaken(String service, int port) {
        return service + "'s management port " + host + ":" + port + " is in use (another ./sqloop serve, or a service on its"
                + " default port?); set " + ServiceHost.MANAGEMENT_PORT + " to the first of " + SERVICES.size()
                + " free consecutive ports (" + String.join(", ", SERVICES) + "), or 0 to pick free ones";
    }
}
