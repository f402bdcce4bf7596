package dev.sqloop.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PortsTest {

    /** Below the ephemeral range, where no outgoing connection takes a port between its choice and the server's bind. */
    @Test
    void shouldHandOutDistinctBindablePortsBelowTheEphemeralRange() throws Exception {
        int ephemeralLow = Ports.ephemeralLow();
        if (java.nio.file.Files.exists(java.nio.file.Path.of("/proc/sys/net/ipv4/ip_local_port_range"))) {
            assertTrue(ephemeralLow > 11_000, "Linux's ephemeral range read as starting at " + ephemeralLow);
        }
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            int port = Ports.free();
            assertTrue(seen.add(port), "port " + port + " handed out twice");
            if (ephemeralLow > 11_000) assertTrue(port >= 10_000 && port < ephemeralLow, port + " not below " + ephemeralLow);
            try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                assertEquals(port, s.getLocalPort());
            }
        }
    }

    /** A port a server holds is passed over. */
    @Test
    void shouldSkipAPortInUse() throws Exception {
        int first = Ports.free();
        try (ServerSocket held = new ServerSocket(first + 1, 1, InetAddress.getLoopbackAddress())) {
            int next = Ports.free();
            assertTrue(next != held.getLocalPort(), "handed out " + next + ", which a server holds");
        }
    }
}
