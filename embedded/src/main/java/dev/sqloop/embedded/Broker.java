package dev.sqloop.embedded;

import dev.sqloop.cli.Args;
import dev.sqloop.common.Topics;
import dev.sqloop.common.config.KafkaSettings;
import dev.sqloop.common.runtime.KafkaClients;
import dev.sqloop.testkit.EmbeddedKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * {@code ./sqloop broker}: a single-node KRaft Kafka broker for a local multi-process stack (each service started with
 * {@code ./sqloop run SERVICE} against it), with sqloop's topics created; its data and ports are kept in the data
 * directory, so it comes back at the same address with every record. For development only: production runs a real
 * Kafka (see the Helm chart).
 */
final class Broker {
    static final String USAGE = """
            usage: ./sqloop broker [--data-dir DIR]

            Starts a single-node KRaft Kafka broker in this JVM for a local multi-process stack, creates sqloop's
            topics, prints the address to export as SQLOOP_BOOTSTRAP_SERVERS and runs until Ctrl-C. Data and ports
            live in DIR (default $SQLOOP_HOME/.sqloop/broker): a restart keeps the address and every record.
            Development only; production runs a real Kafka.
            """;

    private Broker() {}

    static int run(Args args) throws Exception {
        String home = System.getenv("SQLOOP_HOME");
        Path dir = Path.of(args.string("data-dir", (home == null || home.isBlank() ? "" : home + "/") + ".sqloop/broker")).toAbsolutePath();
        try (EmbeddedKafka broker = start(dir)) {
            System.out.println("sqloop broker: Kafka (KRaft, single node) at " + broker.bootstrapServers() + ", data " + dir);
            System.out.println("  export SQLOOP_BOOTSTRAP_SERVERS=" + broker.bootstrapServers());
            System.out.println("  then, each in its own terminal: ./sqloop run fewshot | generator | validator | executor | gateway");
            CountDownLatch stop = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown));
            stop.await();
        }
        return 0;
    }

    /** The persistent broker on {@code dir} with every sqloop topic created. */
    static EmbeddedKafka start(Path dir) throws Exception {
        EmbeddedKafka broker = EmbeddedKafka.persistent(dir);
        try {
            KafkaClients.ensureTopics(new KafkaSettings(broker.bootstrapServers(), Map.of()), Topics.ALL, Duration.ofSeconds(60));
            return broker;
        } catch (Exception e) {
            broker.close();
            throw e;
        }
    }
}
