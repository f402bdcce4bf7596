package dev.sqloop.embedded;

import dev.sqloop.embedded.pipeline.DemoBatch;
import dev.sqloop.embedded.pipeline.EmbeddedPipeline;
import dev.sqloop.embedded.pipeline.LocalChdb;
import dev.sqloop.chdb.Chdb;
import dev.sqloop.chdb.ChdbSession;
import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.cli.GatewayClient;
import dev.sqloop.cli.SubmitCommand;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.testkit.engines.DemoWarehouse;
import dev.sqloop.testkit.llm.Latency;
import dev.sqloop.testkit.llm.OracleResponder;
import dev.sqloop.testkit.llm.SimulatedLlm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./sqloop demo}: the main job on embedded defaults, in one JVM. A real Kafka broker, every stage worker,
 * the embedded example store, a generated DuckDB warehouse (TPC-H, scale 0.01; with {@code --dialect clickhouse} the same
 * rows in chDB) and the simulated LLM (or the
 * real one when {@code SQLOOP_LLM_BASE_URL} is set); seeds examples, submits the bundled batch through the
 * gateway's HTTP API, follows it and prints what the correction loop did.
 */
final class Demo {
    static final String DATASOURCE = "demo";

    /** {@code ./sqloop demo [--serve] [--work-dir DIR]}. */
    @Command(name = "demo",
            description = {dev.sqloop.cli.Main.DEMO,
                "",
                "The main job on embedded defaults, in one JVM: a real Kafka broker, every stage, the gateway, a generated",
                "DuckDB warehouse (TPC-H; --dialect clickhouse: in chDB) and the simulated LLM (or yours: SQLOOP_LLM_BASE_URL);",
                "submits the bundled 40-question batch and prints what the correction loop did."})
    static final class Cmd implements Callable<Integer> {
        @Option(names = "--serve", description = "keep the gateway up afterwards (Ctrl-C stops)")
        boolean serve;
        @Option(names = "--work-dir", paramLabel = "DIR", description = "where runs go (default $SQLOOP_HOME/.sqloop/demo)")
        Path workDir;
        @Option(names = "--dialect", paramLabel = "ENGINE", defaultValue = "duckdb",
                description = "the warehouse's engine: duckdb (default) or clickhouse (chDB in-process; fetched once per machine)")
        String dialect;

        @Override
        public Integer call() throws Exception {
            return run(workDir, serve, Engine.of(dialect));
        }
    }

    private Demo() {}

    /** The engines the demo's warehouse can be in. */
    enum Engine {
        DUCKDB("duckdb"), CLICKHOUSE("clickhouse");

        final String dialect;

        Engine(String dialect) {
            this.dialect = dialect;
        }

        static Engine of(String name) {
            return switch (name.toLowerCase(Locale.ROOT)) {
                case "duckdb" -> DUCKDB;
                case "clickhouse", "chdb" -> CLICKHOUSE;
                default -> throw new dev.sqloop.cli.Args.UsageException("--dialect takes duckdb or clickhouse, was '" + name + "'");
            };
        }
    }

    static int run(Path workDir, boolean serve) throws Exception {
        return run(workDir, serve, Engine.DUCKDB);
    }

    static int run(Path workDir, boolean serve, Engine engine) throws Exception {
        // under the checkout (the launcher sets SQLOOP_HOME), wherever it is called from
        String home = System.getenv("SQLOOP_HOME");
        Path root = workDir != null ? workDir : Path.of(home == null || home.isBlank() ? ".sqloop/demo" : home + "/.sqloop/demo");
        Path work = root.resolve("run-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        Files.createDirectories(work);
        DemoBatch batch = DemoBatch.load();
        Map<String, String> settings = new HashMap<>();
        System.getenv().forEach((k, v) -> {
            if (k.startsWith("SQLOOP_")) settings.put(k, v);
        });
        boolean realLlm = settings.containsKey("SQLOOP_LLM_BASE_URL");

        System.out.println("sqloop demo");
        System.out.println("  work dir     " + work.toAbsolutePath());
        // fetched (once per machine) before the warehouse's clock starts: the time printed is the load's
        if (engine == Engine.CLICKHOUSE) LocalChdb.library(settings, System.out);
        long t0 = System.nanoTime();
        if (engine == Engine.CLICKHOUSE) {
            Path dir = clickHouseWarehouse(work, settings);
            System.out.printf("  warehouse    %s (TPC-H sf %.2f, ClickHouse in-process: chDB %s, read-only) in %.1f s%n",
                    dir.getFileName(), DemoWarehouse.DEFAULT_SCALE, Chdb.open(dir).version(), (System.nanoTime() - t0) / 1e9);
            settings.putIfAbsent("SQLOOP_DATASOURCE_DEMO_URL", "jdbc:chdb:" + dir + "?database=" + DATASOURCE);
        } else {
            Path warehouse = DemoWarehouse.create(work.resolve("warehouse.duckdb"));
            System.out.printf("  warehouse    %s (TPC-H sf %.2f, DuckDB, read-only) in %.1f s%n", warehouse.getFileName(),
                    DemoWarehouse.DEFAULT_SCALE, (System.nanoTime() - t0) / 1e9);
            settings.putIfAbsent("SQLOOP_DATASOURCE_DEMO_URL", "jdbc:duckdb:" + warehouse.toAbsolutePath());
        }
        settings.putIfAbsent("SQLOOP_DATASOURCE_DEMO_DIALECT", engine.dialect);

        SimulatedLlm llm = null;
        if (realLlm) {
            System.out.println("  LLM          " + settings.get("SQLOOP_LLM_BASE_URL") + " (configured by SQLOOP_LLM_BASE_URL)");
        } else {
            llm = SimulatedLlm.start(new OracleResponder(batch.goldByQuestion(), DemoBatch.faultMix(), engine.dialect, 7), 7);
            llm.faults().latency(Latency.lognormal(Duration.ofMillis(300), 0.5));
            System.out.println("  LLM          simulated OpenAI-compatible oracle at " + llm.openAiBaseUrl()
                    + " (knows the gold SQL; injects one fault into ~65% of first answers; set SQLOOP_LLM_BASE_URL for a real LLM)");
        }

        // only once the batch is done and the gateway stays up: Ctrl-C during the batch stops the demo at once
        StopSignal signal = null;
        try (EmbeddedPipeline pipeline = EmbeddedPipeline.start(work, settings, llm, false)) {
            System.out.println("  Kafka        embedded KRaft broker at " + pipeline.bootstrapServers());
            System.out.println("  gateway      " + pipeline.gatewayUrl());
            System.out.println("  console      " + pipeline.gatewayUrl() + "/console/  (the batch, each question's attempts, the examples)");
            var report = pipeline.seed(DemoBatch.copyResource("/demo/seed.yaml", work.resolve("seed.yaml")), DATASOURCE, engine.dialect);
            System.out.printf("  seeded       %d examples (%d skipped)%n%n", report.seeded(), report.skipped());

            GatewayClient client = new GatewayClient(pipeline.gatewayUrl(), null);
            long start = System.nanoTime();
            JsonNode accepted = client.submitBatchFile(batch.writeJsonl(work.resolve("batch.jsonl"), DATASOURCE));
            String batchId = accepted.get("batchId").asText();
            System.out.printf("submitted %d questions as batch %s%n", accepted.get("count").asInt(), batchId);
            SubmitCommand.awaitBatch(client, batchId);
            double seconds = (System.nanoTime() - start) / 1e9;
            Path out = work.resolve("results.jsonl");
            SubmitCommand.download(client, batchId, out);
            List<QuestionResult> results = Files.readAllLines(out).stream().filter(l -> !l.isBlank())
                    .map(l -> decode(l)).toList();
            Map<String, Integer> errors = errorsByCategory(client, results);
            System.out.println();
            System.out.print(summary(results, errors, seconds, realLlm));
            System.out.println("results: " + out.toAbsolutePath());

            if (serve) {
                System.out.println("\nserving: gateway " + pipeline.gatewayUrl() + " (try GET /v1/batches/" + batchId + "); console "
                        + pipeline.gatewayUrl() + "/console/batches/" + batchId + "; Ctrl-C to stop");
                signal = new StopSignal();
                signal.await();
            }
        } finally {
            if (signal != null) signal.close(); // the pipeline is closed: the JVM may exit
        }
        return 0;
    }

    /**
     * The demo's warehouse in chDB: the TPC-H rows written as Parquet under the work dir and read into the ClickHouse
     * database {@value #DATASOURCE} of the directory {@code warehouse.chdb} (chDB runs one directory per process; the
     * executor, the validator's catalog and schema linking open sessions on the same one). The demo's gold SQL runs on
     * ClickHouse as written: standard SQL on TPC-H's columns (DemoClickHouseIT checks every question succeeds).
     */
    private static Path clickHouseWarehouse(Path work, Map<String, String> settings) throws Exception {
        Path dir = work.resolve("warehouse.chdb").toAbsolutePath();
        try (ChdbSession writer = Chdb.open(dir).session(Map.of())) {
            for (String statement : DemoWarehouse.clickHouseLoad(DATASOURCE, work.resolve("warehouse-parquet"))) writer.execute(statement);
        }
        return dir;
    }

    private static QuestionResult decode(String line) {
        try {
            return JsonCodec.decode(line.getBytes(java.nio.charset.StandardCharsets.UTF_8), QuestionResult.class);
        } catch (JsonCodec.DecodeException e) {
            throw new IllegalStateException("the gateway returned an unreadable result: " + e.getMessage(), e);
        }
    }

    /** Every issue any attempt ran into, by category, from each question's trace. */
    static Map<String, Integer> errorsByCategory(GatewayClient client, List<QuestionResult> results) throws Exception {
        Map<String, Integer> counts = new TreeMap<>();
        for (QuestionResult r : results) {
            JsonNode trace = client.getPatiently("/v1/questions/" + r.questionId() + "/trace", Duration.ofSeconds(30));
            for (JsonNode event : trace.get("attempts")) {
                if (!"repair".equals(event.path("stage").asText())) continue; // the repair worker sees every failed attempt once
                for (JsonNode issue : event.path("issues")) counts.merge(issue.path("category").asText("unknown"), 1, Integer::sum);
            }
        }
        return counts;
    }

    static String summary(List<QuestionResult> results, Map<String, Integer> errors, double seconds, boolean realLlm) {
        long first = results.stream().filter(r -> "first_attempt_success".equals(r.reason())).count();
        long corrected = results.stream().filter(r -> "corrected_success".equals(r.reason())).count();
        long failed = results.stream().filter(r -> !r.succeeded()).count();
        double avgAttempts = results.stream().mapToInt(QuestionResult::attempts).average().orElse(0);
        Map<String, Long> failedBy = new TreeMap<>();
        results.stream().filter(r -> !r.succeeded()).forEach(r -> failedBy.merge(r.reason(), 1L, Long::sum));
        int n = results.size();
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "%-28s %s%n", "sqloop demo", realLlm ? "(real LLM)" : "(simulated LLM)"));
        b.append(String.format(Locale.ROOT, "  %-26s %6d%n", "questions", n));
        b.append(String.format(Locale.ROOT, "  %-26s %6d  %5.1f %%%n", "first-attempt successes", first, pct(first, n)));
        b.append(String.format(Locale.ROOT, "  %-26s %6d  %5.1f %%%n", "corrected by repair", corrected, pct(corrected, n)));
        b.append(String.format(Locale.ROOT, "  %-26s %6d  %5.1f %%  %s%n", "failed", failed, pct(failed, n), failedBy.isEmpty() ? "" : failedBy));
        b.append(String.format(Locale.ROOT, "  %-26s %6.1f %%%n", "overall success", pct(first + corrected, n)));
        b.append(String.format(Locale.ROOT, "  %-26s %6.2f%n", "average attempts", avgAttempts));
        b.append(String.format(Locale.ROOT, "  %-26s %s%n", "errors repaired, by type", errors.isEmpty() ? "none" : errors));
        b.append(String.format(Locale.ROOT, "  %-26s %6.1f questions/s (%.1f s)%n", "throughput", n / seconds, seconds));
        return b.toString();
    }

    private static double pct(long part, long whole) {
        return whole == 0 ? 0 : 100.0 * part / whole;
    }
}
