package dev.sqloop.embedded;

import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.config.KafkaSettings;
import dev.sqloop.common.runtime.KafkaClients;
import dev.sqloop.testkit.EmbeddedKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./sqloop broker}: a single-node KRaft Kafka broker for a local multi-process stack (each service started with
 * {@code ./sqloop run SERVICE} against it), with sqloop's topics created; its data and ports are kept in the data
 * directory, so it comes back at the same address with every record. For development only: production runs a real
 * Kafka (see the Helm chart).
 */
final class Broker {
    /** {@code ./sqloop broker [--data-dir DIR]}. */
    @Command(name = "broker",
            description = {dev.sqloop.cli.Main.BROKER,
                "",
                "Starts a single-node KRaft Kafka broker in this JVM, creates sqloop's topics, prints the address to export as",
                "SQLOOP_BOOTSTRAP_SERVERS and runs until Ctrl-C. Data and ports live in DIR: a restart keeps the address and",
                "every record. Development only; production runs a real Kafka."})
    static final class Cmd implements Callable<Integer> {
        @Option(names = "--data-dir", paramLabel = "DIR", description = "the broker's data and ports (default $SQLOOP_HOME/.sqloop/broker)")
        Path dataDir;

        @Override
        public Integer call() throws Exception {
            return run(dataDir);
        }
    }

    private Broker() {}

    static int run(Path dataDir) throws Exception {
        String home = System.getenv("SQLOOP_HOME");
        Path dir = (dataDir != null ? dataDir : Path.of((home == null || home.isBlank() ? "" : home + "/") + ".sqloop/broker")).toAbsolutePath();
        try (StopSignal signal = new StopSignal(); EmbeddedKafka broker = start(dir)) {
            System.out.println("sqloop broker: Kafka (KRaft, single node) at " + broker.bootstrapServers() + ", data " + dir);
            System.out.println("  export SQLOOP_BOOTSTRAP_SERVERS=" + broker.bootstrapServers());
            System.out.println("  then, each in its own terminal: ./sqloop run fewshot | generator | validator | executor | gateway");
            signal.await();
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
