package dev.sqloop.embedded;

import dev.sqloop.testkit.TestDirs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.config.KafkaSettings;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.message.TokenUsage;
import dev.sqloop.common.runtime.KafkaClients;
import dev.sqloop.testkit.EmbeddedKafka;
import dev.sqloop.testkit.Ports;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Each service started exactly as {@code ./sqloop run SERVICE} starts it: {@code dev.sqloop.cli.Main run SERVICE} in
 * its own JVM on cli's runtime classpath (the file the build writes for the launcher), against a real broker. The
 * classpath carries no test infrastructure, the service logs its settings at INFO by default and prints its
 * management port (0 = a free one), becomes ready, and the executor answers a question.
 */
class ServiceClasspathIT {
    private static final Pattern MANAGEMENT = Pattern.compile("management .* on http://127\\.0\\.0\\.1:(\\d+)");
    private static final Pattern GATEWAY = Pattern.compile("gateway listening on http://127\\.0\\.0\\.1:(\\d+)");

    private static EmbeddedKafka broker;
    private static Path work;
    private static Path warehouse;

    @BeforeAll
    static void start() throws Exception {
        broker = EmbeddedKafka.start();
        KafkaClients.ensureTopics(KafkaSettings.of(broker.bootstrapServers()), Topics.ALL, Duration.ofSeconds(60));
        work = TestDirs.create("service-cp-");
        warehouse = work.resolve("warehouse.duckdb");
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:" + warehouse); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE answers AS SELECT 42 AS answer");
        }
    }

    @AfterAll
    static void stop() {
        if (broker != null) broker.close();
    }

    /** cli's classes and runtime classpath, as the launcher runs them. */
    private static List<String> cliClasspath() throws Exception {
        String classes = System.getProperty("sqloop.cli.classes");
        String file = System.getProperty("sqloop.cli.classpath");
        assertNotNull(file, "sqloop.cli.classpath is set by embedded's pom");
        Path cp = Path.of(file);
        assertTrue(Files.isRegularFile(cp), cp + " is written when cli is packaged (the reactor builds cli before embedded)");
        List<String> entries = new java.util.ArrayList<>();
        entries.add(classes);
        entries.addAll(Arrays.asList(Files.readString(cp).strip().split(File.pathSeparator)));
        return entries;
    }

    @Test
    void shouldRunOnAClasspathWithoutTestInfrastructure() throws Exception {
        List<String> entries = cliClasspath();
        assertTrue(entries.size() > 20, entries.toString());
        for (String banned : List.of("testkit", "embedded", "kafka_2.13", "kafka-server-", "kafka-metadata", "kafka-raft", "tpch")) {
            assertTrue(entries.stream().noneMatch(e -> Path.of(e).getFileName().toString().contains(banned)),
                    banned + " on the classpath ./sqloop run ships: " + entries);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"executor", "validator", "generator", "repair", "fewshot", "gateway"})
    void shouldStartFromTheLauncherClasspathAgainstABroker(String service) throws Exception {
        Map<String, String> env = new HashMap<>();
        env.put("SQLOOP_BOOTSTRAP_SERVERS", broker.bootstrapServers());
        env.put("SQLOOP_MANAGEMENT_HOST", "127.0.0.1");
        env.put("SQLOOP_MANAGEMENT_PORT", "0");
        env.put("SQLOOP_GROUP_PREFIX", "cp-it-" + service);
        env.put("SQLOOP_DATASOURCE_DEMO_DIALECT", "duckdb");
        env.put("SQLOOP_DATASOURCE_DEMO_URL", "jdbc:duckdb:" + warehouse);
        env.put("SQLOOP_LLM_BASE_URL", "http://127.0.0.1:9/v1"); // never called: no question reaches the generator here
        env.put("SQLOOP_FEWSHOT_LUCENE_PATH", work.resolve("examples-" + service).toString());
        env.put("SQLOOP_GATEWAY_HOST", "127.0.0.1");
        env.put("SQLOOP_GATEWAY_PORT", Integer.toString(Ports.free()));
        env.put("SQLOOP_GATEWAY_STATE_DIR", work.resolve("gateway-state").toString());
        try (Service running = Service.start(service, env)) {
            int port = running.await(service.equals("gateway") ? GATEWAY : MANAGEMENT, Duration.ofSeconds(120));
            awaitReady(port, running, Duration.ofSeconds(90));
            assertTrue(running.output().stream().anyMatch(l -> l.contains(" INFO ") && l.contains("starting") && l.contains("SQLOOP_BOOTSTRAP_SERVERS")),
                    "the settings are logged at INFO by default:\n" + running.joined());
            assertFalse(running.output().stream().anyMatch(l -> l.contains("SLF4J") || l.contains("Exception")),
                    "a clean start:\n" + running.joined());
            if (service.equals("executor")) assertAnswers();
        }
    }

    /** The executor started from cli's classpath executes a question's SQL on the warehouse and writes its result. */
    private static void assertAnswers() throws Exception {
        String id = "cp-" + UUID.randomUUID();
        QuestionTask task = QuestionTask.create(id, "t", "demo", "what is the answer?", 3, Instant.now())
                .withSql("SELECT answer FROM answers", TokenUsage.ZERO);
        KafkaSettings kafka = KafkaSettings.of(broker.bootstrapServers());
        try (Producer<byte[], byte[]> p = KafkaClients.producer(kafka, "cp-it")) {
            p.send(new ProducerRecord<>(Topics.EXECUTE.name(), id.getBytes(StandardCharsets.UTF_8), JsonCodec.encode(task))).get();
        }
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "reader-" + UUID.randomUUID());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            c.subscribe(List.of(Topics.RESULTS.name()));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < deadline) {
                for (var r : c.poll(Duration.ofMillis(200))) {
                    if (!id.equals(new String(r.key(), StandardCharsets.UTF_8))) continue;
                    QuestionResult result = JsonCodec.decode(r.value(), QuestionResult.class);
                    assertEquals(QuestionResult.SUCCEEDED, result.status(), result.toString());
                    assertEquals(1, result.execution().rowCount());
                    return;
                }
            }
        }
        throw new AssertionError("no result for " + id + " within 60 s");
    }

    private static void awaitReady(int port, Service running, Duration timeout) throws Exception {
        int last = Ports.awaitReady(port, timeout, Duration.ofMillis(250));
        if (last != 200) throw new AssertionError("/ready on " + port + " answered " + last + "\n" + running.joined());
    }

    /** One service JVM, its output collected line by line. */
    private record Service(Process process, List<String> output) implements AutoCloseable {
        static Service start(String service, Map<String, String> env) throws Exception {
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            ProcessBuilder pb = new ProcessBuilder(java, "-Xmx512m", "--enable-native-access=ALL-UNNAMED",
                    "-cp", String.join(File.pathSeparator, cliClasspath()), "dev.sqloop.cli.Main", "run", service);
            pb.environment().keySet().removeIf(k -> k.startsWith("SQLOOP_"));
            pb.environment().putAll(env);
            pb.redirectErrorStream(true);
            Process p = pb.start();
            List<String> lines = new CopyOnWriteArrayList<>();
            Thread.ofPlatform().daemon().start(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String line; (line = r.readLine()) != null; ) lines.add(line);
                } catch (java.io.IOException ignored) {
                    // the process ended
                }
            });
            return new Service(p, lines);
        }

        int await(Pattern pattern, Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < deadline) {
                for (String line : output) {
                    Matcher m = pattern.matcher(line);
                    if (m.find()) return Integer.parseInt(m.group(1));
                }
                if (!process.isAlive()) throw new AssertionError("exited with " + process.exitValue() + ":\n" + joined());
                Thread.sleep(100);
            }
            throw new AssertionError("no line matching " + pattern + " within " + timeout + ":\n" + joined());
        }

        String joined() {
            return String.join("\n", output);
        }

        @Override
        public void close() throws InterruptedException {
            process.destroy(); // SIGTERM: the services' shutdown hooks close their runners
            if (!process.waitFor(40, java.util.concurrent.TimeUnit.SECONDS)) process.destroyForcibly().waitFor();
        }
    }
}
