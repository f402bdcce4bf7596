package dev.sqloop.testkit;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/** The server.properties of a KRaft broker (broker + controller) on loopback: a single node, or one node of a cluster. */
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

    /**
     * Node {@code nodeId} of a cluster of combined broker+controller nodes with a static voter set
     * ({@code controller.quorum.voters}, e.g. {@code 1@127.0.0.1:9093,2@…}): every topic, the group offsets, the
     * transaction and share-state logs replicated to {@code replicas} nodes with {@code minIsr} in sync for a write
     * with {@code acks=all}. A node that stops heartbeating is fenced after 4 s (Kafka's default 9 s; 4–5 s of producer
     * stall measured here with it, 11 s with the defaults), so its partitions get new leaders quickly.
     */
    static Properties clusterNode(Path dataDir, int nodeId, int brokerPort, int controllerPort, String voters, int replicas, int minIsr) {
        Properties p = singleNode(dataDir, brokerPort, controllerPort);
        p.remove("controller.quorum.bootstrap.servers");
        p.put("node.id", Integer.toString(nodeId));
        p.put("controller.quorum.voters", voters);
        String rf = Integer.toString(replicas);
        String isr = Integer.toString(minIsr);
        p.put("default.replication.factor", rf);
        p.put("min.insync.replicas", isr);
        p.put("offsets.topic.replication.factor", rf);
        p.put("transaction.state.log.replication.factor", rf);
        p.put("transaction.state.log.min.isr", isr);
        p.put("share.coordinator.state.topic.replication.factor", rf);
        p.put("share.coordinator.state.topic.min.isr", isr);
        p.put("unclean.leader.election.enable", "false");
        p.put("broker.session.timeout.ms", "4000");
        p.put("broker.heartbeat.interval.ms", "500");
        return p;
    }

    static Path write(Properties p, Path file) throws IOException {
        try (OutputStream out = Files.newOutputStream(file)) {
            p.store(out, "sqloop testkit broker");
        }
        return file;
    }
}
