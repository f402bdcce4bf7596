package dev.sqloop.embedded;

import dev.sqloop.testkit.Ports;
import dev.sqloop.testkit.ServiceJvm;
import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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

/**
 * The pipeline as a deployment runs it: every service in its own JVM, started exactly as {@code ./sqloop run SERVICE}
 * starts it (cli's classpath, configured only by its {@code SQLOOP_*} environment), generate and repair as two
 * processes, each logging to a file of its own. It starts the six kinds and waits until each answers {@code /ready},
 * kills one with SIGKILL and starts it again, and reads a service's {@code /metrics}. Used by {@code ./sqloop chaos},
 * {@code ./sqloop bench pipeline --processes} and the reliability suite ({@code PipelineCrashIT}, {@code PipelineOutageIT}).
 */
public final class ServiceFleet implements AutoCloseable {
    static final Pattern MANAGEMENT = Pattern.compile("management .* on http://127\\.0\\.0\\.1:(\\d+)");
    static final Pattern GATEWAY = Pattern.compile("gateway listening on http://127\\.0\\.0\\.1:(\\d+)");
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    /**
     * A worker kind: the service {@code ./sqloop run} starts, the consumer group that carries its work (none: the
     * gateway), and any other group the same process consumes in (the generator also reads the {@code regenerate}
     * lane): a kill redoes what is uncommitted in all of them.
     */
    public record Kind(String name, String service, String group, List<String> otherGroups, Map<String, String> extraEnv) {
        /** Every group whose uncommitted records a kill of this kind redoes. */
        public List<String> groups() {
            List<String> all = new ArrayList<>();
            if (group != null) all.add(group);
            all.addAll(otherGroups);
            return all;
        }
    }

    /** The six kinds, generate and repair as two processes, with their groups under {@code SQLOOP_GROUP_PREFIX=groupPrefix}. */
    public static List<Kind> kinds(String groupPrefix) {
        return List.of(
                new Kind("fewshot", "fewshot", groupPrefix + "-retrieve-examples", List.of(), Map.of()),
                new Kind("generate", "generator", groupPrefix + "-generate", List.of(groupPrefix + "-regenerate"),
                        Map.of("SQLOOP_GENERATOR_WORKERS", "generate")),
                new Kind("repair", "repair", groupPrefix + "-repair", List.of(), Map.of()),
                new Kind("validator", "validator", groupPrefix + "-static-validate", List.of(), Map.of()),
                new Kind("executor", "executor", groupPrefix + "-execute", List.of(), Map.of()),
                new Kind("gateway", "gateway", null, List.of(), Map.of()));
    }

    /**
     * The settings every service shares: the broker, loopback management on a free port, the group prefix, the gateway
     * on {@code gatewayPort} with its state under {@code work}, the example store under {@code work}. The caller adds
     * the LLM and the datasources.
     */
    public static Map<String, String> baseEnvironment(String bootstrap, String prefix, int gatewayPort, Path work) {
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

    /** cli's classes and the runtime classpath the build wrote beside them, as the launcher runs services. */
    public static List<String> cliClasspath(Path classes, Path classpathFile) throws java.io.IOException {
        if (!Files.isRegularFile(classpathFile)) {
            throw new IllegalStateException(classpathFile + " missing: it is written when cli is packaged (./sqloop builds it)");
        }
        List<String> entries = new ArrayList<>();
        entries.add(classes.toString());
        entries.addAll(Arrays.asList(Files.readString(classpathFile).strip().split(File.pathSeparator)));
        return entries;
    }

    /**
     * cli's classpath as {@code ./sqloop run} uses it: where the system properties {@code sqloop.cli.classes} and
     * {@code sqloop.cli.classpath} say (the tests), else under the checkout ({@code $SQLOOP_HOME}, else the working
     * directory).
     */
    public static List<String> cliClasspath() throws java.io.IOException {
        String classes = System.getProperty("sqloop.cli.classes"), classpath = System.getProperty("sqloop.cli.classpath");
        if (classes != null && classpath != null) return cliClasspath(Path.of(classes), Path.of(classpath));
        String home = System.getenv("SQLOOP_HOME");
        Path checkout = Path.of(home == null || home.isBlank() ? "." : home);
        return cliClasspath(checkout.resolve("cli/target/classes"), checkout.resolve("cli/target/classpath.txt"));
    }

    private final List<Kind> kinds;
    private final Path work;
    private final List<String> classpath;
    private final List<String> jvmArgs;
    private final Map<String, ServiceJvm> running = new ConcurrentHashMap<>();
    private final Map<String, Integer> ports = new ConcurrentHashMap<>();
    private final Map<String, Integer> incarnationCount = new ConcurrentHashMap<>();
    private final List<ServiceJvm> incarnations = new ArrayList<>();

    private ServiceFleet(List<Kind> kinds, Path work, List<String> classpath, List<String> jvmArgs) {
        this.kinds = kinds;
        this.work = work;
        this.classpath = List.copyOf(classpath);
        this.jvmArgs = List.copyOf(jvmArgs);
    }

    /**
     * Starts the six kinds with {@code env} (plus each kind's own settings and {@code perKind}'s for it), all at once,
     * and waits until every one answers {@code /ready}; logs go to {@code work/<kind>-<incarnation>.log}.
     */
    public static ServiceFleet start(String prefix, Path work, List<String> classpath, List<String> jvmArgs, Map<String, String> env,
                                     Map<String, Map<String, String>> perKind) throws Exception {
        ServiceFleet fleet = new ServiceFleet(kinds(prefix), work, classpath, jvmArgs);
        try {
            for (Kind k : fleet.kinds) {
                Map<String, String> e = new HashMap<>(env);
                e.putAll(k.extraEnv());
                e.putAll(perKind.getOrDefault(k.name(), Map.of()));
                fleet.launch(k.name(), e, k.service());
            }
            for (Kind k : fleet.kinds) fleet.awaitReady(k.name());
        } catch (Exception | Error e) {
            fleet.close();
            throw e;
        }
        return fleet;
    }

    private void launch(String kind, Map<String, String> env, String service) throws Exception {
        int n = incarnationCount.merge(kind, 1, Integer::sum);
        ServiceJvm s = ServiceJvm.start(kind, classpath, jvmArgs, "dev.sqloop.cli.Main", List.of("run", service), env,
                work.resolve(kind + "-" + n + ".log"));
        running.put(kind, s);
        synchronized (incarnations) {
            incarnations.add(s);
        }
    }

    public List<Kind> kinds() {
        return kinds;
    }

    public Kind kind(String name) {
        return kinds.stream().filter(k -> k.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no kind " + name));
    }

    /** {@code kind}'s current JVM. */
    public ServiceJvm jvm(String kind) {
        return running.get(kind);
    }

    /** The current JVM of every kind, in start order. */
    public Map<String, ServiceJvm> running() {
        Map<String, ServiceJvm> out = new LinkedHashMap<>();
        for (Kind k : kinds) out.put(k.name(), running.get(k.name()));
        return out;
    }

    /** Every JVM started so far, killed ones included (their logs stay). */
    public List<ServiceJvm> incarnations() {
        synchronized (incarnations) {
            return List.copyOf(incarnations);
        }
    }

    /** The line a kind logs once it listens: its management port, or the gateway's API port. */
    static Pattern upLine(String kind) {
        return kind.equals("gateway") ? GATEWAY : MANAGEMENT;
    }

    /** Waits until {@code kind}'s current JVM answers 200 on {@code /ready}. */
    public void awaitReady(String kind) throws Exception {
        ServiceJvm s = running.get(kind);
        int port = Integer.parseInt(s.await(upLine(kind), Duration.ofSeconds(180)));
        ports.put(kind, port);
        int last = Ports.awaitReady(port, Duration.ofSeconds(120), Duration.ofMillis(100));
        if (last != 200) throw new IllegalStateException(s.name() + ": /ready answered " + last + "\n" + s.output());
    }

    /** SIGKILLs {@code kind}'s JVM; answers it (dead). */
    public ServiceJvm kill(String kind) throws InterruptedException {
        ServiceJvm victim = running.get(kind);
        victim.kill9();
        ports.remove(kind);
        return victim;
    }

    /**
     * Starts a new incarnation of {@code kind} (killed or stopped) with the same settings; answers when it is up, in
     * seconds from its start until it logs its port.
     */
    public CompletableFuture<Double> restart(String kind) throws Exception {
        int n = incarnationCount.merge(kind, 1, Integer::sum);
        ServiceJvm next = running.get(kind).restart(work.resolve(kind + "-" + n + ".log"));
        running.put(kind, next);
        synchronized (incarnations) {
            incarnations.add(next);
        }
        return CompletableFuture.supplyAsync(() -> {
            try {
                next.await(upLine(kind), Duration.ofSeconds(180));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            return (System.nanoTime() - next.startedNanos()) / 1e9;
        });
    }

    /** {@code kind}'s {@code /metrics} (Prometheus text). */
    public String metrics(String kind) throws Exception {
        Integer port = ports.get(kind);
        if (port == null) {
            awaitReady(kind);
            port = ports.get(kind);
        }
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    /**
     * The value of a metric on {@code kind}'s {@code /metrics}, summed over the series whose labels contain every
     * {@code labels} entry ({@code stage="generate"}).
     */
    public double metric(String kind, String name, String... labels) throws Exception {
        return sum(metrics(kind), name, labels);
    }

    /** The sum of {@code name}'s series in Prometheus text whose labels contain every {@code labels} entry. */
    public static double sum(String prometheusText, String name, String... labels) {
        Pattern line = Pattern.compile("^" + Pattern.quote(name) + "(\\{[^}]*})?\\s+(\\S+)$", Pattern.MULTILINE);
        double sum = 0;
        Matcher m = line.matcher(prometheusText);
        while (m.find()) {
            String tags = m.group(1) == null ? "" : m.group(1);
            if (Arrays.stream(labels).allMatch(tags::contains)) sum += Double.parseDouble(m.group(2));
        }
        return sum;
    }

    /** The tail of every running service's log, for a failure message. */
    public String logsOfRunning() {
        StringBuilder b = new StringBuilder();
        running().forEach((k, s) -> {
            String out = s.output();
            b.append("\n--- ").append(k).append(" (tail) ---\n").append(out, Math.max(0, out.length() - 3000), out.length());
        });
        return b.toString();
    }

    @Override
    public void close() {
        // all asked to stop at once: each drains and leaves its groups while the others do, not after them
        running.values().forEach(ServiceJvm::requestStop);
        for (ServiceJvm s : running.values()) s.close();
    }
}
