package dev.sqloop.embedded.reliability;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.cli.GatewayClient;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.topic.Topics;
import dev.sqloop.embedded.ServiceFleet;
import dev.sqloop.embedded.ServiceFleet.Kind;
import dev.sqloop.testkit.ServiceJvm;
import dev.sqloop.testkit.TopicDump;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * The reliability suite's multi-process pipeline: every service in its own JVM started exactly as
 * {@code ./sqloop run SERVICE} starts it (cli's classpath, {@code SQLOOP_*} environment), generate and repair as two
 * processes ({@link ServiceFleet}), on a broker and an LLM the test owns. It starts them and waits for readiness, submits
 * batches through the gateway's API and reads their results back, kills and restarts one kind, scrapes a service's
 * metrics, and scans every incarnation's log, the topics, the results and the traces for secret canaries. Used by
 * {@link PipelineCrashIT} (SIGKILL per kind) and {@link PipelineOutageIT} (LLM storms, warehouse outage, poison).
 */
final class ForkedPipeline implements AutoCloseable {
    private final ServiceFleet fleet;
    private final Path work;
    private final GatewayClient client;

    private ForkedPipeline(ServiceFleet fleet, Path work, int gatewayPort) {
        this.fleet = fleet;
        this.work = work;
        this.client = new GatewayClient("http://127.0.0.1:" + gatewayPort, null);
    }

    /** {@link ServiceFleet#baseEnvironment}: the caller adds the LLM and the datasources. */
    static Map<String, String> baseEnvironment(String bootstrap, String prefix, int gatewayPort, Path work) {
        return ServiceFleet.baseEnvironment(bootstrap, prefix, gatewayPort, work);
    }

    /**
     * Starts the six kinds with {@code env} (plus each kind's own extra settings and {@code perKind}'s for it) and waits
     * until every one answers {@code /ready}.
     */
    static ForkedPipeline start(String prefix, Path work, Map<String, String> env, Map<String, Map<String, String>> perKind)
            throws Exception {
        // C1 only and a small serial heap: six JVMs start and run a test's few dozen questions on two cores
        ServiceFleet fleet = ServiceFleet.start(prefix, work, cliClasspath(),
                List.of("-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "--enable-native-access=ALL-UNNAMED"), env, perKind);
        return new ForkedPipeline(fleet, work, Integer.parseInt(env.get("SQLOOP_GATEWAY_PORT")));
    }

    List<Kind> kinds() {
        return fleet.kinds();
    }

    Kind kind(String name) {
        return fleet.kind(name);
    }

    GatewayClient client() {
        return client;
    }

    ServiceJvm jvm(String kind) {
        return fleet.jvm(kind);
    }

    /** SIGKILLs {@code kind}'s JVM; answers it (dead). */
    ServiceJvm kill(String kind) throws InterruptedException {
        return fleet.kill(kind);
    }

    /**
     * Starts a new incarnation of {@code kind} (killed or stopped) with the same settings; answers when it is up, in
     * seconds from its start until it logs its port.
     */
    CompletableFuture<Double> restart(String kind) throws Exception {
        return fleet.restart(kind);
    }

    /** Submits {@code texts} on {@code datasource} as one batch, client ids {@code run-<i>}; answers the batch id. */
    String submit(String run, List<String> texts, String datasource) throws Exception {
        StringBuilder jsonl = new StringBuilder();
        for (int i = 0; i < texts.size(); i++) {
            jsonl.append(JsonCodec.encodeToString(Map.of("question", texts.get(i), "datasource", datasource, "clientId", run + "-" + i))).append('\n');
        }
        return client.submitBatchFile(Files.writeString(work.resolve(run + ".jsonl"), jsonl)).get("batchId").asText();
    }

    /** The batch's status. */
    JsonNode status(String batchId) throws Exception {
        return client.getPatiently("/v1/batches/" + batchId, Duration.ofSeconds(60));
    }

    /** Final results so far, as the batch status counts them. */
    int finished(String batchId) throws Exception {
        return status(batchId).get("finished").asInt();
    }

    /** Waits until the batch is done; fails with the running services' log tails after {@code limit}. */
    JsonNode awaitDone(String run, String batchId, Duration limit) throws Exception {
        long deadline = System.nanoTime() + limit.toNanos();
        JsonNode status;
        while (!(status = status(batchId)).get("done").asBoolean()) {
            assertTrue(System.nanoTime() < deadline, "batch " + run + " never done: " + status + logsOfRunning());
            Thread.sleep(100);
        }
        return status;
    }

    /** The batch's final results from the API's results stream, by question id; fails when one appears twice. */
    Map<String, JsonNode> results(String run, String batchId) throws Exception {
        Map<String, JsonNode> byId = new LinkedHashMap<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(client.stream("/v1/batches/" + batchId + "/results"), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                if (line.isBlank()) continue;
                JsonNode n = JsonCodec.mapper().readTree(line);
                JsonNode previous = byId.put(n.get("questionId").asText(), n);
                assertTrue(previous == null, run + ": one final result per question in the API, twice: " + n);
            }
        }
        return byId;
    }

    /** {@link ServiceFleet#metric}: a counter on {@code kind}'s {@code /metrics}, summed over the matching series. */
    double metric(String kind, String name, String... labels) throws Exception {
        return fleet.metric(kind, name, labels);
    }

    // ------------------------------------------------------------------ secrets

    /**
     * Asserts no canary in any incarnation's log, and that each logged its settings with the canaries' variables
     * masked ({@code maskedVariables}: the variables that held them, in every process's environment); answers how
     * many logs were scanned.
     */
    int scanLogs(List<String> canaries, List<String> maskedVariables) {
        List<ServiceJvm> all = fleet.incarnations();
        for (ServiceJvm s : all) {
            String out = s.output();
            for (String v : maskedVariables) {
                assertTrue(out.contains(v + "=****"), s.logFile() + " logs its settings with " + v + " masked:\n" + out);
            }
            assertNoSecret(canaries, out, s.logFile().toString());
        }
        return all.size();
    }

    /**
     * Everything a secret could leak into besides the logs: every value on {@code results} and {@code events}, every
     * dead letter's key, value and headers, and each given question's result and trace from the API.
     */
    List<byte[]> scannable(String bootstrap, Iterable<String> questionIds) throws Exception {
        List<byte[]> scanned = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : readAll(bootstrap, Topics.RESULTS.name())) if (r.value() != null) scanned.add(r.value());
        for (ConsumerRecord<byte[], byte[]> r : readAll(bootstrap, Topics.EVENTS.name())) if (r.value() != null) scanned.add(r.value());
        for (ConsumerRecord<byte[], byte[]> r : readAll(bootstrap, Topics.DLQ.name())) {
            if (r.key() != null) scanned.add(r.key());
            if (r.value() != null) scanned.add(r.value());
            for (Header h : r.headers()) if (h.value() != null) scanned.add(h.value());
        }
        for (String id : questionIds) {
            scanned.add(client.getPatiently("/v1/questions/" + id, Duration.ofSeconds(30)).toString().getBytes(StandardCharsets.UTF_8));
            scanned.add(client.getPatiently("/v1/questions/" + id + "/trace", Duration.ofSeconds(30)).toString().getBytes(StandardCharsets.UTF_8));
        }
        return scanned;
    }

    static void assertNoSecret(List<String> canaries, String text, String where) {
        for (String c : canaries) assertTrue(!text.contains(c), "a secret canary (" + c.substring(0, 6) + "…) appears in " + where);
    }

    static List<ConsumerRecord<byte[], byte[]>> readAll(String bootstrap, String topic) {
        return TopicDump.readAll(bootstrap, topic, Duration.ofSeconds(30));
    }

    // ------------------------------------------------------------------ helpers

    /** The tail of every running service's log, for a failure message. */
    String logsOfRunning() {
        return fleet.logsOfRunning();
    }

    /** cli's classes and runtime classpath, as the launcher runs them (set by embedded's pom). */
    static List<String> cliClasspath() throws Exception {
        return ServiceFleet.cliClasspath();
    }

    @Override
    public void close() {
        fleet.close();
    }
}
