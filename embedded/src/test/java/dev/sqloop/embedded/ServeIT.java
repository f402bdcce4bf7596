package dev.sqloop.embedded;

import dev.sqloop.embedded.pipeline.ManagementPorts;
import dev.sqloop.embedded.pipeline.DemoBatch;
import dev.sqloop.embedded.pipeline.EmbeddedPipeline;
import dev.sqloop.testkit.TestDirs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.cli.GatewayClient;
import dev.sqloop.cli.SubmitCommand;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.testkit.Ports;
import dev.sqloop.testkit.engines.DefogDatasets;
import dev.sqloop.testkit.engines.DefogQuestions;
import dev.sqloop.testkit.engines.PostgresServer;
import dev.sqloop.testkit.llm.Latency;
import dev.sqloop.testkit.llm.OracleResponder;
import dev.sqloop.testkit.llm.SimulatedLlm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * {@code ./sqloop serve} on a PostgreSQL datasource (a defog database behind a SELECT-only role) and the simulated
 * LLM: seeded while it runs with {@code ./sqloop seed} (through its gateway; the store it holds is refused with what to
 * run instead, no stack trace), stopped in the middle of a batch and started again on the same data directory: the
 * batch completes with every question answered once, the seeds are still there, and every service's metrics are on the
 * same port as before the restart.
 */
class ServeIT {
    private static final String DATABASE = "restaurants";
    /** An LLM key that must never leave the process's configuration: not in a log line, result, trace or dead letter. */
    private static final String CANARY = "sk-sqloop-canary-5f1d9e77";

    @Test
    void shouldFinishABatchStartedBeforeARestartWithNothingLost() throws Exception {
        PostgresServer pg = PostgresServer.shared();
        DefogDatasets.loadIntoPostgres(pg, DATABASE);
        List<DefogQuestions.Question> questions = DefogQuestions.load().stream().filter(q -> q.database().equals(DATABASE)).toList();
        Map<String, String> gold = new LinkedHashMap<>();
        questions.forEach(q -> gold.put(q.question(), q.firstGold()));
        Path dataDir = TestDirs.create("sqloop-serve-it-");
        Path files = TestDirs.create("sqloop-serve-it-files-"); // the batch and its results, outside serve's own folder
        ch.qos.logback.classic.Logger root = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> logs = new ch.qos.logback.core.read.ListAppender<>();
        logs.start();
        root.addAppender(logs);
        // every line sqloop can write, debug included, is scanned
        ch.qos.logback.classic.Logger sqloop = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger("dev.sqloop");
        ch.qos.logback.classic.Level level = sqloop.getLevel();
        sqloop.setLevel(ch.qos.logback.classic.Level.DEBUG);
        try (SimulatedLlm llm = SimulatedLlm.start(new OracleResponder(gold, DemoBatch.faultMix(), "postgres", 11), 11)) {
            llm.faults().latency(Latency.lognormal(Duration.ofMillis(250), 0.3)); // slow enough to stop mid-batch
            Map<String, String> settings = new HashMap<>(Map.of(
                    "SQLOOP_DATASOURCE_RESTAURANTS_DIALECT", "postgres",
                    "SQLOOP_DATASOURCE_RESTAURANTS_URL", pg.jdbcUrl(DATABASE),
                    "SQLOOP_DATASOURCE_RESTAURANTS_USER", PostgresServer.READER,
                    "SQLOOP_DATASOURCE_RESTAURANTS_PASSWORD", PostgresServer.READER_PASSWORD,
                    "SQLOOP_LLM_BASE_URL", llm.openAiBaseUrl(),
                    "SQLOOP_LLM_MODEL", "simulated",
                    "SQLOOP_LLM_API_KEY", CANARY,
                    "SQLOOP_GATEWAY_PORT", Integer.toString(Ports.free()),
                    "SQLOOP_MANAGEMENT_PORT", Integer.toString(freeBlock(ManagementPorts.SERVICES.size()))));
            StringBuilder jsonl = new StringBuilder();
            for (DefogQuestions.Question q : questions) {
                jsonl.append(JsonCodec.encodeToString(Map.of("question", q.question(), "datasource", DATABASE,
                        "clientId", "q" + q.index()))).append('\n');
            }
            Path batchFile = Files.writeString(files.resolve("batch.jsonl"), jsonl);

            // three of the database's questions with their gold SQL, as a user's examples.yaml
            List<DefogQuestions.Question> seeds = questions.subList(questions.size() - 3, questions.size());
            StringBuilder yaml = new StringBuilder("cases:\n");
            for (DefogQuestions.Question q : seeds) {
                yaml.append("  - id: q").append(q.index()).append("\n    question: ").append(JsonCodec.encodeToString(q.question()))
                        .append("\n    expected_sql: ").append(JsonCodec.encodeToString(q.firstGold())).append('\n');
            }
            Path seedFile = Files.writeString(files.resolve("examples.yaml"), yaml);

            String batchId;
            int finishedBeforeStop;
            Map<String, java.net.URI> metricsBefore;
            try (EmbeddedPipeline first = Serve.start(dataDir, settings)) {
                String banner = Serve.describe(first, dataDir);
                assertTrue(banner.contains("restaurants") && banner.contains("no examples yet"), banner);
                assertTrue(banner.contains(first.gatewayUrl() + "/console/"), "the console's address: " + banner);
                assertTrue(first.embeddedBroker(), "no SQLOOP_BOOTSTRAP_SERVERS: the broker is embedded");
                metricsBefore = first.metricsEndpoints();
                int port = Integer.parseInt(settings.get("SQLOOP_MANAGEMENT_PORT"));
                assertEquals(java.net.URI.create("http://127.0.0.1:" + port + "/metrics"), metricsBefore.get(EmbeddedPipeline.FEWSHOT));
                assertEquals(java.net.URI.create("http://127.0.0.1:" + (port + 4) + "/metrics"), metricsBefore.get(EmbeddedPipeline.REPAIR));
                for (java.net.URI metrics : metricsBefore.values()) assertTrue(banner.contains(metrics.toString()), metrics + " printed: " + banner);

                // a second serve on the same ports is refused naming what to set, before its broker starts
                var taken = org.junit.jupiter.api.Assertions.assertThrows(dev.sqloop.common.config.ConfigException.class,
                        () -> Serve.start(files.resolve("second"), settings));
                assertTrue(taken.getMessage().contains("SQLOOP_GATEWAY_PORT"), taken.getMessage());
                Map<String, String> otherGateway = new HashMap<>(settings);
                otherGateway.put("SQLOOP_GATEWAY_PORT", Integer.toString(Ports.free()));
                taken = org.junit.jupiter.api.Assertions.assertThrows(dev.sqloop.common.config.ConfigException.class,
                        () -> Serve.start(files.resolve("second"), otherGateway));
                assertTrue(taken.getMessage().contains("SQLOOP_MANAGEMENT_PORT") && taken.getMessage().contains(":" + port), taken.getMessage());
                assertTrue(!Files.exists(files.resolve("second").resolve("kafka")), "no broker was started for the refused serve");

                // ./sqloop seed while serve runs: through its gateway, and the seeds are in the store serve reads
                assertEquals(0, dev.sqloop.cli.Main.run(List.of("seed", seedFile.toString(), "--datasource", DATABASE,
                        "--gateway", first.gatewayUrl())));
                assertEquals(seeds.size(), first.store().count(DATABASE), "the seeds reached serve's own store");
                JsonNode listed = new GatewayClient(first.gatewayUrl(), null).get("/v1/examples?datasource=" + DATABASE);
                assertEquals(seeds.size(), listed.get("count").asInt(), listed.toString());
                assertEquals(0, dev.sqloop.cli.Main.run(List.of("seed", seedFile.toString(), "--datasource", DATABASE,
                        "--gateway", first.gatewayUrl())), "seeding again changes nothing and succeeds");
                assertEquals(seeds.size(), first.store().count(DATABASE));
                // the store serve holds, written directly: refused in one line saying what to run, no stack trace
                SeedRun direct = seedStore(seedFile, dataDir.resolve("examples"));
                assertEquals(1, direct.exitCode(), direct.output());
                assertTrue(direct.output().contains("is in use by a running service") && direct.output().contains("./sqloop seed "
                        + seedFile + " --datasource " + DATABASE), direct.output());
                assertTrue(!direct.output().contains("\tat ") && !direct.output().contains("Exception"), "no stack trace: " + direct.output());

                GatewayClient client = new GatewayClient(first.gatewayUrl(), null);
                batchId = client.submitBatchFile(batchFile).get("batchId").asText();
                finishedBeforeStop = awaitFinished(client, batchId, 3);
            }
            assertTrue(finishedBeforeStop < questions.size(), "stopped mid-batch: " + finishedBeforeStop + " of " + questions.size());

            try (EmbeddedPipeline second = Serve.start(dataDir, settings)) {
                assertEquals(metricsBefore, second.metricsEndpoints(), "every service's metrics on the same port after the restart");
                GatewayClient client = new GatewayClient(second.gatewayUrl(), null);
                // through the gateway a seed is a curator's shared example (source manual); captured successes are auto
                JsonNode kept = client.getPatiently("/v1/examples?datasource=" + DATABASE + "&source=manual", Duration.ofSeconds(30));
                assertEquals(seeds.size(), kept.get("count").asInt(), "the seeds are kept: " + kept);
                JsonNode done = SubmitCommand.awaitBatch(client, batchId);
                Path out = files.resolve("results.jsonl");
                SubmitCommand.download(client, batchId, out);
                List<JsonNode> results = Files.readAllLines(out).stream().filter(l -> !l.isBlank()).map(ServeIT::json).toList();
                Set<String> ids = results.stream().map(r -> r.get("questionId").asText()).collect(Collectors.toSet());
                Map<String, Long> byReason = new TreeMap<>(results.stream().collect(Collectors.groupingBy(r -> r.get("reason").asText(), Collectors.counting())));
                System.out.printf("serve restarted after %d of %d finished; after the restart: %s%n", finishedBeforeStop, questions.size(), byReason);
                assertEquals(questions.size(), done.get("finished").asInt(), "the batch completes after the restart");
                assertEquals(questions.size(), results.size(), "one result per question");
                assertEquals(questions.size(), ids.size(), "no question answered twice, none lost");
                assertTrue(byReason.getOrDefault("first_attempt_success", 0L) + byReason.getOrDefault("corrected_success", 0L)
                        >= questions.size() * 0.8, "the loop still corrects across a restart: " + byReason);

                // the LLM key is in no result, trace, dead letter or log line
                StringBuilder seen = new StringBuilder(Files.readString(out));
                for (JsonNode r : results) {
                    seen.append(client.getPatiently("/v1/questions/" + r.get("questionId").asText() + "/trace", Duration.ofSeconds(30)));
                }
                seen.append(deadLetters(second.bootstrapServers()));
                root.detachAppender(logs);
                sqloop.setLevel(level);
                for (var e : logs.list) {
                    seen.append(e.getFormattedMessage()).append('\n');
                    if (e.getThrowableProxy() != null) seen.append(e.getThrowableProxy().getMessage()).append('\n');
                }
                assertTrue(logs.list.size() > 0, "the log capture saw the run");
                assertTrue(!seen.toString().contains(CANARY), "the LLM key leaked");
                assertTrue(!seen.toString().contains(CANARY.substring(8)), "part of the LLM key leaked");
            }
        }
    }

    /** {@code n} consecutive loopback ports free now. */
    private static int freeBlock(int n) throws java.io.IOException {
        for (int attempt = 0; attempt < 100; attempt++) {
            int first = 20_000 + java.util.concurrent.ThreadLocalRandom.current().nextInt(20_000);
            boolean free = true;
            for (int p = first; p < first + n && free; p++) {
                try (java.net.ServerSocket s = new java.net.ServerSocket(p, 1, java.net.InetAddress.getLoopbackAddress())) {
                    s.setReuseAddress(true);
                } catch (java.io.IOException taken) {
                    free = false;
                }
            }
            if (free) return first;
        }
        throw new java.io.IOException("no " + n + " consecutive free ports");
    }

    record SeedRun(int exitCode, String output) {}

    /** {@code ./sqloop seed FILE --store} in a JVM of its own on cli's classpath, as the launcher runs it, on the index {@code index}. */
    private static SeedRun seedStore(Path file, Path index) throws Exception {
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(javaBin, "-Xmx512m", "--enable-native-access=ALL-UNNAMED",
                "-cp", String.join(java.io.File.pathSeparator, ServiceFleet.cliClasspath()), "dev.sqloop.cli.Main", "seed", file.toString(),
                "--datasource", DATABASE, "--store");
        pb.environment().keySet().removeIf(k -> k.startsWith("SQLOOP_"));
        pb.environment().put("SQLOOP_FEWSHOT_LUCENE_PATH", index.toString());
        pb.redirectErrorStream(true);
        Process p = pb.start();
        String output = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        if (!p.waitFor(2, java.util.concurrent.TimeUnit.MINUTES)) p.destroyForcibly();
        return new SeedRun(p.exitValue(), output);
    }

    /** Every record on the dlq topic, keys, values and headers as text. */
    private static String deadLetters(String bootstrap) {
        Map<String, Object> props = Map.of("bootstrap.servers", bootstrap);
        StringBuilder out = new StringBuilder();
        try (var c = new org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]>(props,
                new org.apache.kafka.common.serialization.ByteArrayDeserializer(), new org.apache.kafka.common.serialization.ByteArrayDeserializer())) {
            var partitions = c.partitionsFor(dev.sqloop.common.topic.Topics.DLQ.name()).stream()
                    .map(p -> new org.apache.kafka.common.TopicPartition(p.topic(), p.partition())).toList();
            c.assign(partitions);
            c.seekToBeginning(partitions);
            var end = c.endOffsets(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (partitions.stream().anyMatch(p -> c.position(p) < end.get(p)) && System.nanoTime() < deadline) {
                for (var r : c.poll(Duration.ofMillis(200))) {
                    if (r.value() != null) out.append(new String(r.value(), java.nio.charset.StandardCharsets.UTF_8));
                    r.headers().forEach(h -> out.append(new String(h.value(), java.nio.charset.StandardCharsets.UTF_8)));
                }
            }
        }
        return out.toString();
    }

    private static int awaitFinished(GatewayClient client, String batchId, int atLeast) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (System.nanoTime() < deadline) {
            JsonNode status = client.getPatiently("/v1/batches/" + batchId, Duration.ofSeconds(30));
            int finished = status.get("finished").asInt();
            if (finished >= atLeast) return finished;
            Thread.sleep(100);
        }
        throw new AssertionError("fewer than " + atLeast + " questions finished in 120 s");
    }

    private static JsonNode json(String line) {
        try {
            return JsonCodec.mapper().readTree(line);
        } catch (Exception e) {
            throw new AssertionError(line, e);
        }
    }
}
