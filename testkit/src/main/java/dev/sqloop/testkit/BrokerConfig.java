package dev.sqloop.testkit;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/** The server.properties of a single-node KRaft broker (broker + controller) on loopback. */
final class BrokerConfig {
    private BrokerConfig() {}

    static Properties singleNode(Path dataDir, int brokerPort, int controllerPort) {
        Properties p = new Properties();
        p.put("process.roles", "broker,controller");
        p.put("node.id", "1");
        p.put("controller.quorum.bootstrap.servers", "127.0.0.1:" + controllerPort);
        p.put("listeners", "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
        p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
        p.put("controller.listener.names", "CONTROLLER");
        p.put("inter.broker.listener.name", "PLAINTEXT");
        p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.put("log.dirs", dataDir.toAbsolutePath().toString());
        p.put("num.partitions", "1");
        p.put("default.replication.factor", "1");
        p.put("offsets.topic.replication.factor", "1");
        p.put("offsets.topic.num.partitions", "4");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("share.coordinator.state.topic.replication.factor", "1");
        p.put("share.coordinator.state.topic.min.isr", "1");
        // Tests start consumers right after the broker: do not wait 3 s for more group members.
        p.put("group.initial.rebalance.delay.ms", "0");
        p.put("auto.create.topics.enable", "false");
        p.put("log.flush.interval.messages", Long.toString(Long.MAX_VALUE));
        p.put("log.retention.check.interval.ms", "600000");
        return p;
    }

    static Path write(Properties p, Path file) throws IOException {
        try (OutputStream out = Files.newOutputStream(file)) {
            p.store(out, "sqloop testkit broker");
        }
        return file;
    }
}
