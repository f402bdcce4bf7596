package dev.sqloop.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Free loopback ports for servers the testkit starts, and waiting for a started service to be ready on one. */
public final class Ports {
    private Ports() {}

    public static int free() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
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
