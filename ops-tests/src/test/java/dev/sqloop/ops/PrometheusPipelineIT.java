package dev.sqloop.ops;

import dev.sqloop.testkit.TestDirs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.cli.GatewayClient;
import dev.sqloop.cli.SubmitCommand;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.config.KafkaSettings;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.runtime.KafkaClients;
import dev.sqloop.embedded.pipeline.DemoBatch;
import dev.sqloop.embedded.pipeline.EmbeddedPipeline;
import dev.sqloop.testkit.Ports;
import dev.sqloop.testkit.engines.DemoWarehouse;
import dev.sqloop.testkit.llm.OracleResponder;
import dev.sqloop.testkit.llm.SimulatedLlm;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The metrics proven on a real Prometheus (Debian's package, installed if missing): an embedded pipeline runs the
 * demo batch with the simulated LLM's fault mix (plus two LLM 503s, repeated questions and one undecodable record),
 * Prometheus scrapes every service under its job name and loads the chart's rule files, and then every PromQL
 * expression of every dashboard panel and every rule is evaluated through Prometheus' HTTP API. The counts
 * Prometheus holds must equal the batch's own summary exactly.
 */
class PrometheusPipelineIT {
    private static final String DATASOURCE = "demo";
    private static final HttpClient http = HttpClient.newHttpClient();
    private static SimulatedLlm llm;
    private static EmbeddedPipeline pipeline;
    private static Process prometheus;
    private static URI prometheusUrl;
    private static final List<QuestionResult> results = new ArrayList<>();

    @BeforeAll
    static void runABatchScrapedByPrometheus() throws Exception {
        Path work = TestDirs.create("sqloop-prometheus-it-");
        Path warehouse = DemoWarehouse.create(work.resolve("warehouse.duckdb"));
        DemoBatch batch = DemoBatch.load();
        llm = SimulatedLlm.start(new OracleResponder(batch.goldByQuestion(), DemoBatch.faultMix(), "duckdb", 7), 7);
        llm.faults().failNext(2, 503, Duration.ofMillis(50)); // retried by the generator: LLM errors with an error.type
        Map<String, String> settings = new HashMap<>(Map.of(
                "SQLOOP_DATASOURCE_DEMO_DIALECT", "duckdb",
                "SQLOOP_DATASOURCE_DEMO_URL", "jdbc:duckdb:" + warehouse.toAbsolutePath(),
                // a price table, so the cost panels show a cost and the cost Prometheus sums can be compared
                "SQLOOP_LLM_PRICE_INPUT", "2.5", "SQLOOP_LLM_PRICE_CACHED_INPUT", "1.25", "SQLOOP_LLM_PRICE_OUTPUT", "10"));
        pipeline = EmbeddedPipeline.start(work.resolve("pipeline"), settings, llm, false);
        prometheusUrl = startPrometheus(work.resolve("prometheus"), pipeline.metricsEndpoints());
        // Prometheus scrapes a new target only after its discovery settles (~5 s): a batch done before the first
        // scrape would start every counter at its final value, and rate()/increase() would see no change at all.
        int services = pipeline.metricsEndpoints().size();
        assertTrue(awaitQuery("count(up == 1)", v -> v == services, Duration.ofSeconds(60)), "Prometheus never scraped all " + services + " services");

        pipeline.seed(DemoBatch.copyResource("/demo/seed.yaml", work.resolve("seed.yaml")), DATASOURCE, "duckdb");
        GatewayClient client = new GatewayClient(pipeline.gatewayUrl(), null);
        results.addAll(runBatch(client, batch.writeJsonl(work.resolve("batch.jsonl"), DATASOURCE), work.resolve("results-1.jsonl")));
        // the same questions again: those captured as examples are answered from memory (few-shot shortcuts). A result
        // is final before the capture stage has stored its example: wait (at most 60 s, then go on and let the panel
        // check decide) until capture has handled as many records as there were successes, or the repeats may all reach
        // the LLM and the shortcut panel stays empty (seen once in a full run on a busy machine)
        long successes = results.stream().filter(QuestionResult::succeeded).count();
        awaitQuery("sum(sqloop_stage_duration_seconds_count{stage=\"capture\"})", v -> v >= successes, Duration.ofSeconds(60));
        Path repeats = batch.writeJsonl(work.resolve("repeats.jsonl"), DATASOURCE, 10);
        results.addAll(runBatch(client, repeats, work.resolve("results-2.jsonl")));
        // a record no stage can decode: dead-lettered, and counted
        try (Producer<byte[], byte[]> p = KafkaClients.producer(new KafkaSettings(pipeline.bootstrapServers(), Map.of()), "poison")) {
            p.send(new ProducerRecord<>(Topics.GENERATE.name(), "poison".getBytes(StandardCharsets.UTF_8),
                    "{not json".getBytes(StandardCharsets.UTF_8))).get();
        }
        assertTrue(awaitQuery("sum(sqloop_questions_total)", v -> v == results.size(), Duration.ofSeconds(60)),
                "Prometheus never saw the " + results.size() + " final results");
        assertTrue(awaitQuery("sum(sqloop_dlq_records_total)", v -> v >= 1, Duration.ofSeconds(60)), "the poison record was never counted");
        assertTrue(awaitQuery("sum(sqloop_fewshot_shortcuts_total)", v -> v >= 1, Duration.ofSeconds(30)),
                "no repeated question was answered from memory (few-shot shortcut)");
        // rate() and increase() need two samples of a series in their window: the shortcut and dead-letter counters
        // first appear in the last seconds of the run, and a panel query evaluated right after their first scrape
        // found no data (seen once in CI). Wait until every target has been scraped twice more.
        double now = value(query("time()").get(0));
        assertTrue(awaitQuery("min(timestamp(up))", v -> v >= now + 2.5, Duration.ofSeconds(30)), "Prometheus stopped scraping");
    }

    @AfterAll
    static void stop() throws Exception {
        if (prometheus != null) {
            prometheus.destroy();
            prometheus.waitFor(10, TimeUnit.SECONDS);
        }
        if (pipeline != null) pipeline.close();
    }

    private static List<QuestionResult> runBatch(GatewayClient client, Path jsonl, Path out) throws Exception {
        String batchId = client.submitBatchFile(jsonl).get("batchId").asText();
        SubmitCommand.awaitBatch(client, batchId);
        SubmitCommand.download(client, batchId, out);
        return Files.readAllLines(out).stream().filter(l -> !l.isBlank())
                .map(PrometheusPipelineIT::decode).toList();
    }

    private static QuestionResult decode(String line) {
        try {
            return JsonCodec.decode(line.getBytes(StandardCharsets.UTF_8), QuestionResult.class);
        } catch (Exception e) {
            throw new AssertionError("unreadable result line: " + line, e);
        }
    }

    @Test
    void prometheusCountsEqualTheBatchSummary() throws Exception {
        Map<String, Long> expected = new TreeMap<>();
        for (QuestionResult r : results) expected.merge(r.succeeded() ? r.reason() : "failed", 1L, Long::sum);
        Map<String, Long> scraped = new TreeMap<>();
        for (JsonNode s : query("sum by (outcome) (sqloop_questions_total)")) {
            long v = Math.round(value(s));
            if (v > 0) scraped.put(s.path("metric").path("outcome").asText(), v);
        }
        double avgAttempts = results.stream().mapToInt(QuestionResult::attempts).average().orElseThrow();
        double scrapedAvg = value(query("sum(sqloop_attempts_sum) / sum(sqloop_attempts_count)").get(0));
        long tokens = results.stream().mapToLong(r -> r.usage().inputTokens() + r.usage().outputTokens()).sum();
        double scrapedTokens = value(query("sum(sqloop_question_tokens_sum)").get(0));
        double cost = results.stream().mapToDouble(r -> r.usage().cost()).sum();
        double scrapedCost = value(query("sum(sqloop_question_cost_usd_sum)").get(0));
        double billed = value(query("sum(sqloop_llm_cost_usd_total)").get(0));

        System.out.printf(Locale.ROOT, "%-24s %10s %12s%n", "figure", "batch", "prometheus");
        for (String k : List.of("first_attempt_success", "corrected_success", "failed")) {
            System.out.printf(Locale.ROOT, "%-24s %10d %12d%n", k, expected.getOrDefault(k, 0L), scraped.getOrDefault(k, 0L));
        }
        System.out.printf(Locale.ROOT, "%-24s %10.3f %12.3f%n", "average attempts", avgAttempts, scrapedAvg);
        System.out.printf(Locale.ROOT, "%-24s %10d %12.0f%n", "LLM tokens", tokens, scrapedTokens);
        System.out.printf(Locale.ROOT, "%-24s %10.6f %12.6f (billed calls %.6f)%n", "LLM cost (USD)", cost, scrapedCost, billed);

        assertEquals(expected, scraped, "final results by outcome: the batch's own counts");
        assertEquals(avgAttempts, scrapedAvg, 1e-9);
        assertEquals(tokens, scrapedTokens, 0.5);
        assertTrue(cost > 0, "the price table priced the batch");
        assertEquals(cost, scrapedCost, 1e-9 * Math.max(1, cost));
        // every answered call is billed; a result carries the calls of its own attempts, so the bill is never less
        assertTrue(billed >= cost - 1e-9, "billed " + billed + " < results' " + cost);
        assertTrue(expected.getOrDefault("corrected_success", 0L) > 0, "the fault mix makes the loop correct some questions");
    }

    @Test
    void everyDashboardPanelReturnsData() throws Exception {
        List<String> empty = new ArrayList<>();
        int evaluated = 0;
        for (var d : Dashboards.all().entrySet()) {
            for (String expr : Dashboards.expressions(d.getValue())) {
                String promql = substitute(expr);
                evaluated++;
                if (query(promql).isEmpty()) empty.add(d.getKey().getFileName() + ": " + promql);
            }
        }
        System.out.println(evaluated + " dashboard expressions evaluated, " + empty.size() + " without data");
        assertEquals(List.of(), empty, "panels without data");
        assertTrue(evaluated > 40, "the dashboards were read");
    }

    @Test
    void everyRuleLoadsEvaluatesAndEveryRecordingRuleHasData() throws Exception {
        JsonNode groups = get("/api/v1/rules").path("data").path("groups");
        List<String> problems = new ArrayList<>();
        Map<String, String> recorded = new LinkedHashMap<>();
        int rules = 0;
        for (JsonNode g : groups) {
            for (JsonNode r : g.path("rules")) {
                rules++;
                if (!"ok".equals(r.path("health").asText()) && !"unknown".equals(r.path("health").asText())) {
                    problems.add(r.path("name").asText() + ": " + r.path("lastError").asText());
                }
                if ("recording".equals(r.path("type").asText())) recorded.put(r.path("name").asText(), r.path("query").asText());
                else if (!"success".equals(rawQuery(r.path("query").asText()).path("status").asText())) {
                    problems.add("alert " + r.path("name").asText() + " does not evaluate");
                }
            }
        }
        assertEquals(Rules.allRules().size(), rules, "Prometheus loaded every rule of the chart's rule files");
        for (var e : recorded.entrySet()) {
            // recording rules run every second here; give the newest data a few evaluations
            if (!awaitQuery(e.getKey(), v -> true, Duration.ofSeconds(20))) {
                problems.add(e.getKey() + " recorded nothing (" + e.getValue() + "); the expression itself now: "
                        + rawQuery(e.getValue()).path("data") + "; sqloop:questions:rate5m: " + rawQuery("sqloop:questions:rate5m").path("data"));
            }
        }
        System.out.println(rules + " rules loaded, " + recorded.size() + " recording rules with data");
        assertEquals(List.of(), problems);
    }

    /** Grafana's variables as a dashboard user leaves them: all datasources, dialects and stages. */
    static String substitute(String expr) {
        return expr.replace("$__rate_interval", "1m").replace("$__range", "15m")
                .replace("$datasource", ".*").replace("$dialect", ".*").replace("$stage", ".*");
    }

    private static URI startPrometheus(Path dir, Map<String, URI> endpoints) throws Exception {
        Files.createDirectories(dir);
        Path binary = Promtool.prometheus();
        StringBuilder config = new StringBuilder("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nrule_files:\n");
        for (Path f : Rules.files()) {
            // the chart's rules as they are, evaluated every second instead of every 30 s so the test need not wait
            Path copy = dir.resolve(f.getFileName());
            Files.writeString(copy, Files.readString(f).replaceAll("(?m)^(\\s*)interval:\\s*\\S+", "$1interval: 1s"));
            config.append("  - ").append(copy.toAbsolutePath()).append('\n');
        }
        config.append("scrape_configs:\n");
        for (var e : endpoints.entrySet()) {
            config.append("  - job_name: ").append(e.getKey()).append('\n')
                    .append("    metrics_path: ").append(e.getValue().getPath()).append('\n')
                    .append("    static_configs:\n      - targets: ['").append(e.getValue().getHost()).append(':')
                    .append(e.getValue().getPort()).append("']\n        labels: {service: ").append(e.getKey()).append("}\n");
        }
        Files.writeString(dir.resolve("prometheus.yml"), config);
        int port = Ports.free();
        prometheus = new ProcessBuilder(binary.toString(), "--config.file=" + dir.resolve("prometheus.yml"),
                "--storage.tsdb.path=" + dir.resolve("data"), "--web.listen-address=127.0.0.1:" + port, "--log.level=warn")
                .redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile()).start();
        URI base = URI.create("http://127.0.0.1:" + port);
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            try {
                if (http.send(HttpRequest.newBuilder(base.resolve("/-/ready")).build(), HttpResponse.BodyHandlers.ofString()).statusCode() == 200) break;
            } catch (java.io.IOException notYet) {
                // starting
            }
            if (!prometheus.isAlive() || System.nanoTime() > deadline) {
                throw new IllegalStateException("prometheus did not start:\n" + Files.readString(dir.resolve("prometheus.log")));
            }
            Thread.sleep(200);
        }
        return base;
    }

    private static JsonNode get(String pathAndQuery) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(prometheusUrl.resolve(pathAndQuery)).build(), HttpResponse.BodyHandlers.ofString());
        return Dashboards.JSON.readTree(r.body());
    }

    private static JsonNode rawQuery(String promql) throws Exception {
        return get("/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8));
    }

    /** The instant vector or scalar {@code promql} evaluates to now; fails on a query error. */
    static List<JsonNode> query(String promql) throws Exception {
        JsonNode r = rawQuery(promql);
        assertEquals("success", r.path("status").asText(), promql + " → " + r);
        JsonNode result = r.path("data").path("result");
        List<JsonNode> out = new ArrayList<>();
        if ("scalar".equals(r.path("data").path("resultType").asText())) {
            out.add(Dashboards.JSON.createObjectNode().set("value", result));
        } else {
            result.forEach(out::add);
        }
        return out;
    }

    static double value(JsonNode sample) {
        return Double.parseDouble(sample.path("value").get(1).asText());
    }

    /** Waits until {@code promql} has a first sample whose value satisfies {@code until}. */
    private static boolean awaitQuery(String promql, Predicate<Double> until, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<JsonNode> last = List.of();
        while (System.nanoTime() < deadline) {
            last = query(promql);
            if (!last.isEmpty() && until.test(value(last.get(0)))) return true;
            Thread.sleep(500);
        }
        System.out.println(promql + " last: " + last);
        return false;
    }
}
