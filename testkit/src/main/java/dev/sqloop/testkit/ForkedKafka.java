package dev.sqloop.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;

/**
 * A real single-node KRaft broker in its own JVM ({@code kafka.Kafka server.properties}), for tests that
 * kill the broker with SIGKILL or need it to outlive the test's clients.
 */
public final class ForkedKafka implements KafkaBroker {
    private volatile ServiceJvm jvm;
    private final String bootstrap;
    private final Path dir;
    private final int brokerPort;
    private int restarts;

    private ForkedKafka(ServiceJvm jvm, String bootstrap, Path dir, int brokerPort) {
        this.jvm = jvm;
        this.bootstrap = bootstrap;
        this.dir = dir;
        this.brokerPort = brokerPort;
    }

    public static ForkedKafka start() {
        try {
            Path dir = Files.createTempDirectory("sqloop-forked-kafka-");
            int brokerPort = Ports.free();
            int controllerPort = Ports.free();
            Properties props = BrokerConfig.singleNode(dir.resolve("data"), brokerPort, controllerPort);
            Path file = BrokerConfig.write(props, dir.resolve("server.properties"));
            EmbeddedKafka.format(file);
            ServiceJvm jvm = launch(dir, "broker.log");
            awaitOpen(jvm, brokerPort);
            return new ForkedKafka(jvm, "127.0.0.1:" + brokerPort, dir, brokerPort);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static ServiceJvm launch(Path dir, String log) throws IOException {
        return ServiceJvm.fork("kafka.Kafka", List.of("-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"),
                List.of(dir.resolve("server.properties").toString()), dir.resolve(log));
    }

    // A start after SIGKILL recovers the log first; on a 2-core host at load 20 a start once took over 90 s. The
    // directory is deleted on close, so a broker that never opens its port is reported with its log's last lines.
    private static void awaitOpen(ServiceJvm jvm, int port) {
        Duration timeout = Duration.ofSeconds(180);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                EmbeddedKafka.awaitPort(port, Duration.ofSeconds(2));
                return;
            } catch (IllegalStateException notYet) {
                if (!jvm.alive() || System.nanoTime() > deadline) {
                    String log = jvm.output();
                    throw new IllegalStateException("broker port " + port + (jvm.alive() ? " not open after " + timeout
                            : " not open: the broker exited") + "; the end of " + jvm.logFile() + ":\n"
                            + log.substring(Math.max(0, log.length() - 4000)), notYet);
                }
            }
        }
    }

    /** SIGKILL the broker: no controlled shutdown, clients see connections drop. */
    public void kill9() throws InterruptedException {
        jvm.kill9();
    }

    /** Starts the broker again on the same data directory and ports (after {@link #kill9()}). */
    public void restart() {
        try {
            jvm = launch(dir, "broker-" + (++restarts) + ".log");
            awaitOpen(jvm, brokerPort);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public String bootstrapServers() {
        return bootstrap;
    }

    public ServiceJvm process() {
        return jvm;
    }

    @Override
    public void close() {
        jvm.close();
        Dirs.deleteQuietly(dir);
    }
}
