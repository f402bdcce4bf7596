package dev.sqloop.common.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.config.ConfigException;
import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.metrics.ManagementServer;
import dev.sqloop.common.metrics.Metrics;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ServiceHostTest {

    @Test
    void shouldGiveEachServiceItsOwnDefaultManagementPort() {
        Set<Integer> ports = Set.of(ServiceHost.FEWSHOT_PORT, ServiceHost.GENERATOR_PORT, ServiceHost.VALIDATOR_PORT,
                ServiceHost.EXECUTOR_PORT);
        assertEquals(4, ports.size(), "two services on one host must not collide by default");
    }

    @Test
    void shouldPickAFreePortForZero() throws Exception {
        try (ManagementServer server = ServiceHost.management("test-service", 0,
                new EnvConfig(Map.of("SQLOOP_MANAGEMENT_HOST", "127.0.0.1", "SQLOOP_MANAGEMENT_PORT", "0")),
                Metrics.newRegistry(), () -> true, () -> true)) {
            assertNotEquals(0, server.port());
        }
    }

    @Test
    void shouldNameTheVariableAndThePortWhenThePortIsTaken() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
            int port = taken.getLocalPort();
            ConfigException e = assertThrows(ConfigException.class, () -> ServiceHost.management("executor-service", port,
                    new EnvConfig(Map.of("SQLOOP_MANAGEMENT_HOST", "127.0.0.1")), Metrics.newRegistry(), () -> true, () -> true));
            assertTrue(e.getMessage().contains("SQLOOP_MANAGEMENT_PORT"), e.getMessage());
            assertTrue(e.getMessage().contains("127.0.0.1:" + port), e.getMessage());
            assertTrue(e.getMessage().contains("default"), "says the port was the service's default: " + e.getMessage());

            ConfigException explicit = assertThrows(ConfigException.class, () -> ServiceHost.management("executor-service", 9404,
                    new EnvConfig(Map.of("SQLOOP_MANAGEMENT_HOST", "127.0.0.1", "SQLOOP_MANAGEMENT_PORT", Integer.toString(port))),
                    Metrics.newRegistry(), () -> true, () -> true));
            assertTrue(explicit.getMessage().contains("127.0.0.1:" + port), explicit.getMessage());
        }
    }
}
