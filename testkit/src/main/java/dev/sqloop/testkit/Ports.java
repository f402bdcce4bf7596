package dev.sqloop.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/** Free loopback ports for servers the testkit starts, and waiting for a started service to be ready on one. */
public final class Ports {
    private Ports() {}

    /** Ports below the kernel's ephemeral range, which outgoing connections never take (Linux's default starts at 32768). */
    private static final int LOWEST = 10_000;
    private static final int EPHEMERAL_LOW = ephemeralLow();
    /** Where this process looks next: a random start (another JVM starts elsewhere), then on, never the same port twice. */
    private static final AtomicInteger NEXT = new AtomicInteger(ThreadLocalRandom.current().nextInt(1 << 20));

    /**
     * A loopback port free now, for a server about to be started on it. Taken below the ephemeral range: a port the
     * kernel handed out (bind to 0) is in that range, where any outgoing connection of any process may take it before
     * the server binds — a bench whose six services were opening their Kafka connections lost its gateway's port so.
     * Falls back to the kernel's choice when the range below is too small.
     */
    public static int free() {
        int size = EPHEMERAL_LOW - LOWEST;
        if (size < 1_000) return kernelChosen();
        for (int tried = 0; tried < size; tried++) {
            int port = LOWEST + Math.floorMod(NEXT.getAndIncrement(), size);
            if (bindable(port)) return port;
        }
        return kernelChosen();
    }

    private static boolean bindable(int port) {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
            return true;
        } catch (IOException inUse) {
            return false;
        }
    }

    private static int kernelChosen() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The first port of the kernel's ephemeral range (Linux), or {@link #LOWEST} (no range below it) where unknown. */
    static int ephemeralLow() {
        try {
            // not Files.readString: on this /proc file (size 0) it returned the first character only (JDK 25)
            return Integer.parseInt(Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).getFirst().strip().split("\\s+")[0]);
        } catch (IOException | RuntimeException unknown) {
            return LOWEST;
        }
    }

    /**
     * Polls {@code http://127.0.0.1:port/ready} every {@code poll} until it answers 200 or {@code timeout} passes
     * (connection refusals count as not yet); answers the last status, 200 when ready, -1 if nothing ever answered.
     */
    public static int awaitReady(int port, Duration timeout, Duration poll) throws InterruptedException {
        HttpClient http = HttpClient.newHttpClient();
        HttpRequest ready = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/ready")).build();
        long deadline = System.nanoTime() + timeout.toNanos();
        int last = -1;
        while (System.nanoTime() < deadline) {
            try {
                last = http.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode();
                if (last == 200) return last;
            } catch (IOException notYet) {
                // listening soon
            }
            Thread.sleep(poll.toMillis());
        }
        return last;
    }
}
