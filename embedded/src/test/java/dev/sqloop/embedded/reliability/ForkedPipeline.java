package dev.sqloop.embedded.reliability;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.cli.GatewayClient;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.Topics;
import dev.sqloop.embedded.Chaos;
import dev.sqloop.embedded.Chaos.Kind;
import dev.sqloop.testkit.ServiceJvm;
import dev.sqloop.testkit.TopicDump;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * The reliability suite's multi-process pipeline: every service in its own JVM started exactly as
 * {@code ./sqloop run SERVICE} starts it (cli's classpath, {@code SQLOOP_*} environment), generate and repair as two
 * processes ({@link Chaos#kinds}), on a broker and an LLM the test owns. It starts them and waits for readiness, submits
 * batches through the gateway's API and reads their results back, kills and restarts one kind, scrapes a service's
 * metrics, and scans every incarnation's log, the topics, the results and the traces for secret canaries. Used by
 * {@link PipelineCrashIT} (SIGKILL per kind) and {@link PipelineOutageIT} (LLM storms, warehouse outage, poison).
 */
final class ForkedPipeline implements AutoCloseable {
    static final Pattern MANAGEMENT = Pattern.compile("management .* on http://127\\.0\\.0\\.1:(\\d+)");
    static final Pattern GATEWAY = Pattern.compile("gateway listening on http://127\\.0\\.0\\.1:(\\d+)");
    private static final HttpClient http = HttpClient.newHttpClient();

    private final List<Kind> kinds;
    private final Path work;
    private final Map<String, Map<String, String>> envByKind = new HashMap<>();
    private final Map<String, ServiceJvm> running = new ConcurrentHashMap<>();
    private final Map<String, Integer> ports = new ConcurrentHashMap<>();
    private final Map<String, Integer> incarnationCount = new ConcurrentHashMap<>();
    private final List<ServiceJvm> incarnations = new ArrayList<>();
    private final GatewayClient client;

    private ForkedPipeline(String prefix, Path work, int gatewayPort) {
        this.kinds = Chaos.kinds(prefix);
        this.work = work;
        this.client = new GatewayClient("http://127.0.0.1:" + gatewayPort, null);
    }

    /**
     * The settings every service shares: the broker, loopback management on a free port, the group prefix, the gateway
     * on {@code gatewayPort} with its state under {@code work}, the example store under {@code work}. The caller adds
     * the LLM and the datasources.
     */
    static Map<String, String> baseEnvironment(String bootstrap, String prefix, int gatewayPort, Path work) {
        Map<String, String> env = new HashMap<>();
        env.put("SQLOOP_BOOTSTRAP_SERVERS", bootstrap);
        env.put("SQLOOP_MANAGEMENT_HOST", "127.0.0.1");
        env.put("SQLOOP_MANAGEMENT_PORT", "0");
        env.put("SQLOOP_GROUP_PREFIX", prefix);
        env.put("SQLOOP_FEWSHOT_LUCENE_PATH", work.resolve("examples").toString());
        env.put("SQLOOP_GATEWAY_HOST", "127.0.0.1");
        env.put("SQLOOP_GATEWAY_PORT", Integer.toString(gatewayPort));
        env.put("SQLOOP_GATEWAY_STATE_DIR", work.resolve("gateway-state").toString());
        env.put("SQLOOP_GATEWAY_APPLICATION_ID", prefix + "-gateway");
        return env;
    }

    /**
     * Starts the six kinds with {@code env} (plus each kind's own extra settings and {@code perKind}'s for it) and waits
     * until every one answers {@code /ready}.
     */
    static ForkedPipeline start(String prefix, Path work, Map<String, String> env, Map<String, Map<String, String>> perKind)
            throws Exception {
        ForkedPipeline p = new ForkedPipeline(prefix, work, Integer.parseInt(env.get("SQLOOP_GATEWAY_PORT")));
        try {
            for (Kind k : p.kinds) {
                Map<String, String> e = new HashMap<>(env);
                e.putAll(k.extraEnv());
                e.putAll(perKind.getOrDefault(k.name(), Map.of()));
                p.envByKind.put(k.name(), e);
                p.launch(k, e);
            }
            for (Kind k : p.kinds) p.awaitReady(k.name());
        } catch (Exception | Error e) {
            p.close();
            throw e;
        }
        return p;
    }

    List<Kind> kinds() {
        return kinds;
    }

    Kind kind(String name) {
        return kinds.stream().filter(k -> k.name().equals(name)).findFirst().orElseThrow();
    }

    GatewayClient client() {
        return client;
    }

    ServiceJvm jvm(String kind) {
        return running.get(kind);
    }

    private void launch(Kind k, Map<String, String> env) throws Exception {
        int n = incarnationCount.merge(k.name(), 1, Integer::sum);
        ServiceJvm s = ServiceJvm.start(k.name(), cliClasspath(),
                List.of("-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "--enable-native-access=ALL-UNNAMED"),
                "dev.sqloop.cli.Main", List.of("run", k.service()), env, work.resolve(k.name() + "-" + n + ".log"));
        running.put(k.name(), s);
        synchronized (incarnations) {
            incarnations.add(s);
        }
    }

    /** The line a kind logs once it listens: its management port, or the gateway's API port. */
    static Pattern upLine(String kind) {
        return kind.equals("gateway") ? GATEWAY : MANAGEMENT;
    }

    /** Waits until {@code kind}'s current JVM answers 200 on {@code /ready}. */
    void awaitReady(String kind) throws Exception {
        ServiceJvm s = running.get(kind);
        int port = Integer.parseInt(s.await(upLine(kind), Duration.ofSeconds(120)));
        ports.put(kind, port);
        int last = dev.sqloop.testkit.Ports.awaitReady(port, Duration.ofSeconds(90), Duration.ofMillis(100));
        if (last != 200) throw new AssertionError(s.name() + ": /ready answered " + last + "\n" + s.output());
    }

    /** SIGKILLs {@code kind}'s JVM; answers it (dead). */
    ServiceJvm kill(String kind) throws InterruptedException {
        ServiceJvm victim = running.get(kind);
        victim.kill9();
        ports.remove(kind);
        return victim;
    }

    /**
     * Starts a new incarnation of {@code kind} (killed or stopped) with the same settings; answers when it is up, in
     * seconds from its start until it logs its port.
     */
    CompletableFuture<Double> restart(String kind) throws Exception {
        int n = incarnationCount.merge(kind, 1, Integer::sum);
        ServiceJvm next = running.get(kind).restart(work.resolve(kind + "-" + n + ".log"));
        running.put(kind, next);
        synchronized (incarnations) {
            incarnations.add(next);
        }
        return upAfter(next, upLine(kind));
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

    /**
     * The value of a counter on {@code kind}'s {@code /metrics} (Prometheus text), summed over the series whose labels
     * contain every {@code labels} entry ({@code stage="generate"}).
     */
    double metric(String kind, String name, String... labels) throws Exception {
        Integer port = ports.get(kind);
        if (port == null) {
            awaitReady(kind);
            port = ports.get(kind);
        }
        String body = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        Pattern line = Pattern.compile("^" + Pattern.quote(name) + "(\\{[^}]*})?\\s+(\\S+)$", Pattern.MULTILINE);
        double sum = 0;
        Matcher m = line.matcher(body);
        while (m.find()) {
            String tags = m.group(1) == null ? "" : m.group(1);
            if (Arrays.stream(labels).allMatch(tags::contains)) sum += Double.parseDouble(m.group(2));
        }
        return sum;
    }

    // ------------------------------------------------------------------ secrets

    /**
     * Asserts no canary in any incarnation's log, and that each logged its settings with the canaries' variables
     * masked ({@code maskedVariables}: the variables that held them, in every process's environment); answers how
     * many logs were scanned.
     */
    int scanLogs(List<String> canaries, List<String> maskedVariables) {
        List<ServiceJvm> all;
        synchronized (incarnations) {
            all = List.copyOf(incarnations);
        }
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
        StringBuilder b = new StringBuilder();
        running.forEach((k, s) -> {
            String out = s.output();
            b.append("\n--- ").append(k).append(" (tail) ---\n").append(out, Math.max(0, out.length() - 3000), out.length());
        });
        return b.toString();
    }

    /** Seconds from the start of {@code s} until it logs {@code line} (its management or API port: the JVM is up). */
    static CompletableFuture<Double> upAfter(ServiceJvm s, Pattern line) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                s.await(line, Duration.ofSeconds(120));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            return (System.nanoTime() - s.startedNanos()) / 1e9;
        });
    }

    /** cli's classes and runtime classpath, as the launcher runs them (set by embedded's pom). */
    static List<String> cliClasspath() throws Exception {
        String classes = System.getProperty("sqloop.cli.classes");
        Path cp = Path.of(System.getProperty("sqloop.cli.classpath"));
        assertTrue(Files.isRegularFile(cp), cp + " is written when cli is packaged");
        List<String> entries = new ArrayList<>();
        entries.add(classes);
        entries.addAll(Arrays.asList(Files.readString(cp).strip().split(File.pathSeparator)));
        return entries;
    }

    @Override
    public void close() {
        for (ServiceJvm s : running.values()) s.close();
    }
}
