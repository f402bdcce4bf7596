package dev.sqloop.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import kafka.tools.StorageTool;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.Uuid;

/**
 * A real three-node KRaft cluster (4.3.1), each node in its own JVM ({@code kafka.Kafka server.properties}) so a test
 * can SIGKILL one and start it again on its data: {@link #kill9(int)}, {@link #restart(int)}. Nodes are numbered by
 * their Kafka {@code node.id} (1, 2, 3), the number {@code Admin.describeTopics} reports as a partition's leader.
 *
 * <p>Every node is a combined broker and controller, the three forming a static voter set: three JVMs and not four
 * (one controller + three brokers), and no node the test cannot kill — killing the node that leads the most partitions
 * may also kill the active controller, and the surviving two (a quorum) elect another and fence the dead broker, as in a
 * small production cluster. Topics get replication factor 3 and {@code min.insync.replicas=2} as broker defaults (also
 * the group offsets, transaction state and share-group state), so one dead node leaves every partition writable with
 * {@code acks=all}; a silent node is fenced after 4 s ({@link BrokerConfig#clusterNode}). ~1 GB for the three JVMs.
 */
public final class KafkaCluster implements KafkaBroker {
    public static final int NODES = 3;
    public static final int REPLICATION_FACTOR = 3;
    public static final int MIN_INSYNC_REPLICAS = 2;
    private static final Duration READY = Duration.ofSeconds(120);

    private final Path dir;
    private final int[] brokerPorts;
    private final ServiceJvm[] jvms;
    private final int[] incarnations;
    private final String bootstrap;

    private KafkaCluster(Path dir, int[] brokerPorts, ServiceJvm[] jvms) {
        this.dir = dir;
        this.brokerPorts = brokerPorts;
        this.jvms = jvms;
        this.incarnations = new int[NODES];
        List<String> hosts = new ArrayList<>();
        for (int port : brokerPorts) hosts.add("127.0.0.1:" + port);
        this.bootstrap = String.join(",", hosts);
    }

    /** Formats three data directories with one cluster id and starts the three nodes; returns once all three are brokers of it. */
    public static KafkaCluster start() {
        Path dir = null;
        ServiceJvm[] jvms = new ServiceJvm[NODES];
        try {
            dir = Files.createTempDirectory("sqloop-kafka-cluster-");
            int[] brokerPorts = new int[NODES];
            int[] controllerPorts = new int[NODES];
            List<String> voters = new ArrayList<>();
            for (int i = 0; i < NODES; i++) {
                brokerPorts[i] = Ports.free();
                controllerPorts[i] = Ports.free();
                voters.add((i + 1) + "@127.0.0.1:" + controllerPorts[i]);
            }
            String clusterId = Uuid.randomUuid().toString();
            for (int i = 0; i < NODES; i++) {
                Path nodeDir = Files.createDirectories(dir.resolve("node-" + (i + 1)));
                Properties props = BrokerConfig.clusterNode(nodeDir.resolve("data"), i + 1, brokerPorts[i], controllerPorts[i],
                        String.join(",", voters), REPLICATION_FACTOR, MIN_INSYNC_REPLICAS);
                format(BrokerConfig.write(props, nodeDir.resolve("server.properties")), clusterId);
            }
            for (int i = 0; i < NODES; i++) jvms[i] = launch(dir, i + 1, 0);
            KafkaCluster cluster = new KafkaCluster(dir, brokerPorts, jvms);
            cluster.awaitBrokers(Set.of(1, 2, 3), READY);
            return cluster;
        } catch (IOException e) {
            closeAll(jvms);
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            closeAll(jvms);
            throw e;
        }
    }

    /** {@code kafka-storage format} with the cluster's id; the voters come from {@code controller.quorum.voters}. */
    private static void format(Path serverProperties, String clusterId) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int rc = StorageTool.execute(new String[] {"format", "-t", clusterId, "-c", serverProperties.toString()},
                new PrintStream(out, true, StandardCharsets.UTF_8));
        if (rc != 0) throw new IllegalStateException("kafka storage format failed: " + out.toString(StandardCharsets.UTF_8));
    }

    /** C1 only: three broker JVMs starting at once on two cores spend less on compiling; a test's load needs no C2. */
    private static ServiceJvm launch(Path dir, int node, int incarnation) throws IOException {
        Path nodeDir = dir.resolve("node-" + node);
        return ServiceJvm.fork("kafka.Kafka", List.of("-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"),
                List.of(nodeDir.resolve("server.properties").toString()),
                nodeDir.resolve(incarnation == 0 ? "broker.log" : "broker-" + incarnation + ".log"));
    }

    /** SIGKILL node {@code node} (1–3): no controlled shutdown, no leadership handed over; the others must notice. */
    public void kill9(int node) throws InterruptedException {
        jvms[index(node)].kill9();
    }

    /** Starts node {@code node} again on its data directory and ports; returns once the cluster lists it as a broker again. */
    public void restart(int node) {
        int i = index(node);
        if (jvms[i].alive()) throw new IllegalStateException("node " + node + " is still running");
        try {
            jvms[i] = launch(dir, node, ++incarnations[i]);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        EmbeddedKafka.awaitPort(brokerPorts[i], READY);
        awaitBrokers(Set.of(node), READY);
    }

    public boolean alive(int node) {
        return jvms[index(node)].alive();
    }

    /** Node ids, 1 to {@value #NODES}. */
    public List<Integer> nodes() {
        return List.of(1, 2, 3);
    }

    /** The listener of one node alone (the bootstrap string names all three). */
    public String bootstrapOf(int node) {
        return "127.0.0.1:" + brokerPorts[index(node)];
    }

    @Override
    public String bootstrapServers() {
        return bootstrap;
    }

    public ServiceJvm process(int node) {
        return jvms[index(node)];
    }

    /** Waits until every node in {@code nodes} is a live (registered, unfenced) broker of the cluster. */
    private void awaitBrokers(Set<Integer> nodes, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Set<Integer> seen = Set.of();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000, AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10000))) {
            while (true) {
                try {
                    seen = admin.describeCluster().nodes().get(10, TimeUnit.SECONDS).stream().map(Node::id)
                            .collect(Collectors.toCollection(TreeSet::new));
                    if (seen.containsAll(nodes)) return;
                } catch (ExecutionException | java.util.concurrent.TimeoutException notYet) {
                    // no node answers yet, or the quorum has no leader yet
                }
                for (int node : nodes) {
                    ServiceJvm jvm = jvms[index(node)];
                    if (!jvm.alive()) throw new IllegalStateException("kafka node " + node + " exited:\n" + tail(jvm.output()));
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("kafka nodes " + nodes + " not all brokers after " + timeout + " (live: " + seen + ")");
                }
                Thread.sleep(200);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String tail(String s) {
        return s.substring(Math.max(0, s.length() - 4000));
    }

    private static int index(int node) {
        if (node < 1 || node > NODES) throw new IllegalArgumentException("no node " + node + " (nodes are 1.." + NODES + ")");
        return node - 1;
    }

    /**
     * SIGKILL, not SIGTERM: the data is deleted anyway, and a controlled shutdown of the last two nodes waits for a
     * quorum that the first one's exit took away (up to the 20 s grace each).
     */
    private static void closeAll(ServiceJvm[] jvms) {
        for (ServiceJvm jvm : jvms) {
            if (jvm == null) continue;
            try {
                jvm.kill9();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void close() {
        closeAll(jvms);
        Dirs.deleteQuietly(dir);
    }
}
