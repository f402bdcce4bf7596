package dev.sqloop.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real single-node KRaft Kafka broker (4.3.1) inside this JVM, on free loopback ports with a fresh data
 * directory. Ready in a few seconds; close it in {@code finally}/{@code @AfterAll} or the JVM never exits.
 */
public final class EmbeddedKafka implements KafkaBroker {
    private static final Logger log = LoggerFactory.getLogger(EmbeddedKafka.class);

    private final KafkaRaftServer server;
    private final String bootstrap;
    private final Path dataDir;
    private final boolean keep;

    private EmbeddedKafka(KafkaRaftServer server, String bootstrap, Path dataDir, boolean keep) {
        this.server = server;
        this.bootstrap = bootstrap;
        this.dataDir = dataDir;
        this.keep = keep;
    }

    /** A broker on a fresh temporary directory, deleted on close. */
    public static EmbeddedKafka start() {
        try {
            return start(Files.createTempDirectory("sqloop-kafka-"), false);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A broker whose data lives in {@code dir} and survives close: started again on the same directory it has every
     * topic, record and committed offset (its ports are kept in {@code dir/server.properties}). What
     * {@code ./sqloop serve} runs on.
     */
    public static EmbeddedKafka persistent(Path dir) {
        return start(dir, true);
    }

    private static EmbeddedKafka start(Path dir, boolean keep) {
        try {
            Files.createDirectories(dir);
            Path file = dir.resolve("server.properties");
            Properties props = new Properties();
            if (keep && Files.exists(file)) {
                try (var in = Files.newInputStream(file)) {
                    props.load(in);
                }
            } else {
                props = BrokerConfig.singleNode(dir.resolve("data"), Ports.free(), Ports.free());
                // A broker deleted on close is never started again: the controlled shutdown (a round trip to its own
                // controller, with no other broker to take its leaders) only delays the stop — 0.44-0.65 s against
                // 0.22 s for 72 partitions, more under load. A kept one needs it: started again after a stop without
                // it, the controller refuses the new registration until the old one's session expires (~10 s).
                if (!keep) props.put("controlled.shutdown.enable", "false");
                BrokerConfig.write(props, file);
                format(file);
            }
            int brokerPort = Integer.parseInt(props.getProperty("advertised.listeners").replaceAll(".*:", ""));
            KafkaRaftServer server = new KafkaRaftServer(new KafkaConfig(props), Time.SYSTEM);
            server.startup();
            String bootstrap = "127.0.0.1:" + brokerPort;
            awaitPort(brokerPort, Duration.ofSeconds(60));
            log.info("embedded Kafka ready at {} (data {})", bootstrap, dir);
            return new EmbeddedKafka(server, bootstrap, dir, keep);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code kafka-storage format --standalone}: a fresh cluster id and this node as the only voter. */
    static void format(Path serverProperties) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int rc = StorageTool.execute(new String[] {"format", "-t", Uuid.randomUuid().toString(), "-c",
                serverProperties.toString(), "--standalone"}, new PrintStream(out, true, StandardCharsets.UTF_8));
        if (rc != 0) throw new IllegalStateException("kafka storage format failed: " + out.toString(StandardCharsets.UTF_8));
    }

    static void awaitPort(int port, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try (Socket ignored = new Socket("127.0.0.1", port)) {
                return;
            } catch (IOException e) {
                if (System.nanoTime() > deadline) throw new IllegalStateException("broker port " + port + " not open after " + timeout);
                try {
                    Thread.sleep(50);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(ie);
                }
            }
        }
    }

    @Override
    public String bootstrapServers() {
        return bootstrap;
    }

    @Override
    public void close() {
        server.shutdown();
        server.awaitShutdown();
        if (!keep) Dirs.deleteQuietly(dataDir);
    }
}
