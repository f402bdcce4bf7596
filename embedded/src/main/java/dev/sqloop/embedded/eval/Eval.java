package dev.sqloop.embedded.eval;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sqloop.cli.Args;
import dev.sqloop.cli.GatewayClient;
import dev.sqloop.cli.SubmitCommand;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.datasource.Datasources;
import dev.sqloop.embedded.DemoBatch;
import dev.sqloop.embedded.EmbeddedPipeline;
import dev.sqloop.testkit.Ports;
import dev.sqloop.testkit.llm.Fault;
import dev.sqloop.testkit.llm.OracleResponder;
import dev.sqloop.testkit.llm.SimulatedLlm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code ./sqloop eval DATASET}: runs a dataset of questions with gold SQL through the real pipeline (in this JVM on
 * the user's {@code SQLOOP_*} configuration, or against a running gateway with {@code --gateway URL}) once per
 * {@code --max-attempts} value, scores every final SQL ({@link Scorer}: VA, EX, EM) and writes
 * {@code questions.jsonl}, {@code report.json} and {@code report.md} ({@link EvalReport}).
 */
public final class Eval {
    private Eval() {}

    /** The outcome of one question in one configuration. */
    public record Row(EvalCase c, int maxAttempts, String status, String reason, int attempts, String sql,
                      String firstError, long tokens, Scorer.Score score) {}

    public static int run(Args args) throws Exception {
        if (args.flag("help")) throw new Args.HelpRequested(usage());
        args.allowOnly(true, "help", "gateway", "api-key", "max-attempts", "out", "datasource", "map", "llm", "faults", "seed", "ts");
        if (args.positional().isEmpty()) throw new Args.UsageException("eval needs a dataset file\n" + usage());
        Path dataset = Path.of(args.positional().getFirst());
        Map<String, String> mapping = new LinkedHashMap<>();
        for (String pair : args.string("map", "").split(",")) {
            if (pair.isBlank()) continue;
            String[] kv = pair.split("=", 2);
            if (kv.length != 2) throw new Args.UsageException("--map takes db=datasource pairs, was '" + pair + "'");
            mapping.put(kv[0].strip(), kv[1].strip());
        }
        List<EvalCase> all = EvalCase.load(dataset, mapping, args.string("datasource", null));
        java.util.Set<String> configured = Datasources.dialectsFromEnv(new EnvConfig(System.getenv())).keySet();
        List<EvalCase> cases = all.stream().filter(c -> configured.contains(c.datasource())).toList();
        if (cases.isEmpty()) {
            throw new Args.UsageException("none of the dataset's datasources " + all.stream().map(EvalCase::datasource).distinct().toList()
                    + " is configured (SQLOOP_DATASOURCE_<NAME>_DIALECT/_URL; --map db=datasource renames)");
        }
        if (cases.size() < all.size()) {
            System.err.printf("sqloop eval: %d of %d questions name a datasource that is not configured; evaluating %d%n",
                    all.size() - cases.size(), all.size(), cases.size());
        }
        List<Integer> configs = new ArrayList<>();
        for (String m : args.string("max-attempts", "1,3").split(",")) {
            try {
                configs.add(Integer.parseInt(m.strip()));
            } catch (NumberFormatException e) {
                throw new Args.UsageException("--max-attempts takes integers, e.g. 1,3; was '" + m + "'");
            }
        }
        Map<String, String> settings = new HashMap<>();
        System.getenv().forEach((k, v) -> {
            if (k.startsWith("SQLOOP_")) settings.put(k, v);
        });
        String home = System.getenv("SQLOOP_HOME");
        Path out = Path.of(args.string("out", (home == null || home.isBlank() ? "" : home + "/") + ".sqloop/eval/run-"
                + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")))).toAbsolutePath();
        Options options = new Options(args.string("gateway", null), args.string("api-key", null), args.string("llm", null),
                args.string("faults", "default"), Long.parseLong(args.string("seed", "7")), args.integer("ts", 3));
        EvalReport report = evaluate(cases, configs, settings, out, options);
        System.out.println();
        System.out.print(report.comparison());
        System.out.println("report: " + out.resolve("report.md") + " (and report.json, questions.jsonl)");
        return 0;
    }

    /**
     * @param gateway a running gateway to submit to, or null to run the pipeline in this JVM
     * @param llm {@code simulated} for the simulated oracle (it knows the gold SQL), else the configured LLM
     * @param faults {@code default} (the demo's mix) or {@code none} for the simulated oracle
     * @param tsCopies neighbour databases per DuckDB datasource for test-suite accuracy (0: no TS)
     */
    public record Options(String gateway, String apiKey, String llm, String faults, long seed, int tsCopies) {}

    public static EvalReport evaluate(List<EvalCase> cases, List<Integer> configs, Map<String, String> settings, Path out,
                                      Options options) throws Exception {
        Files.createDirectories(out);
        Datasources datasources = Datasources.fromEnv(new EnvConfig(settings));
        List<Row> rows = new ArrayList<>();
        Map<Integer, Double> seconds = new LinkedHashMap<>();
        // what the pipeline's own metrics counted (sqloop_questions_total by outcome, gateway registry; in-process runs)
        Map<Integer, Map<String, Long>> metricsByOutcome = new LinkedHashMap<>();
        String tsUser = settings.get("SQLOOP_EVAL_TS_USER");
        NeighbourDatabases.Admin admin = tsUser == null || tsUser.isBlank() ? null
                : new NeighbourDatabases.Admin(tsUser, settings.get("SQLOOP_EVAL_TS_PASSWORD"));
        if (admin == null && options.tsCopies() > 0 && datasources.all().stream().anyMatch(d -> d.dialect() == dev.sqloop.common.Dialect.POSTGRES)) {
            System.err.println("sqloop eval: no TS on PostgreSQL datasources: set SQLOOP_EVAL_TS_USER (and SQLOOP_EVAL_TS_PASSWORD), "
                    + "a login that may create databases, to make their neighbour databases");
        }
        try (Scorer scorer = new Scorer(datasources, options.tsCopies(), out.resolve("ts"), admin)) {
            for (int maxAttempts : configs) {
                long start = System.nanoTime();
                List<JsonNode> results = runConfig(cases, maxAttempts, settings, out.resolve("max-attempts-" + maxAttempts), options, scorer,
                        metricsByOutcome);
                seconds.put(maxAttempts, (System.nanoTime() - start) / 1e9);
                Map<String, EvalCase> byId = new HashMap<>();
                cases.forEach(c -> byId.put(c.id(), c));
                for (JsonNode r : results) {
                    EvalCase c = byId.get(r.path("metadata").path("evalId").asText());
                    if (c == null) continue;
                    String sql = r.hasNonNull("sql") ? r.get("sql").asText() : null;
                    rows.add(new Row(c, maxAttempts, r.path("status").asText(), r.path("reason").asText(), r.path("attempts").asInt(),
                            sql, r.path("firstError").asText(null), r.path("usage").path("inputTokens").asLong()
                            + r.path("usage").path("outputTokens").asLong(), scorer.score(c, sql)));
                }
            }
        }
        EvalReport report = new EvalReport(cases, configs, rows, seconds, datasources, metricsByOutcome);
        report.write(out);
        return report;
    }

    /** One configuration's final results (with each question's first-attempt error category added as {@code firstError}). */
    private static List<JsonNode> runConfig(List<EvalCase> cases, int maxAttempts, Map<String, String> settings, Path dir,
                                            Options options, Scorer scorer, Map<Integer, Map<String, Long>> metricsByOutcome)
            throws Exception {
        Files.createDirectories(dir);
        StringBuilder jsonl = new StringBuilder();
        for (EvalCase c : cases) {
            jsonl.append(JsonCodec.encodeToString(Map.of("question", c.question(), "datasource", c.datasource(),
                    "clientId", c.id(), "maxAttempts", maxAttempts, "metadata", Map.of("evalId", c.id())))).append('\n');
        }
        Path batch = Files.writeString(dir.resolve("batch.jsonl"), jsonl);
        if (options.gateway() != null) return submit(new GatewayClient(options.gateway(), options.apiKey()), batch, dir);
        Map<String, String> s = new HashMap<>(settings);
        s.putIfAbsent("SQLOOP_GATEWAY_PORT", Integer.toString(Ports.free()));
        s.putIfAbsent("SQLOOP_GATEWAY_MAX_ATTEMPTS_LIMIT", Integer.toString(Math.max(10, maxAttempts)));
        SimulatedLlm llm = null;
        try {
            if ("simulated".equals(options.llm())) {
                Map<String, String> gold = new LinkedHashMap<>();
                // the oracle answers with an accepted gold form this engine runs
                cases.forEach(c -> gold.put(c.question(), scorer.firstRunnable(c)));
                String dialect = Datasources.dialectsFromEnv(new EnvConfig(s)).values().stream().findFirst()
                        .map(d -> d.wireName()).orElse("postgres");
                Map<Fault, Double> mix = "none".equals(options.faults()) ? Map.of(Fault.NONE, 1.0) : DemoBatch.faultMix();
                llm = SimulatedLlm.start(new OracleResponder(gold, mix, dialect, options.seed()), options.seed());
                s.put("SQLOOP_LLM_BASE_URL", llm.openAiBaseUrl());
                s.putIfAbsent("SQLOOP_LLM_MODEL", "simulated");
            }
            try (EmbeddedPipeline pipeline = EmbeddedPipeline.serve(dir.resolve("data"), s)) {
                List<JsonNode> results = submit(new GatewayClient(pipeline.gatewayUrl(), null), batch, dir);
                metricsByOutcome.put(maxAttempts, outcomes(pipeline.registries().get(EmbeddedPipeline.GATEWAY)));
                return results;
            }
        } finally {
            if (llm != null) llm.close();
        }
    }

    private static Map<String, Long> outcomes(io.micrometer.core.instrument.MeterRegistry registry) {
        Map<String, Long> out = new java.util.TreeMap<>();
        for (var c : registry.find(dev.sqloop.common.metrics.Metrics.QUESTIONS).counters()) {
            long n = Math.round(c.count());
            if (n > 0) out.merge(c.getId().getTag("outcome"), n, Long::sum);
        }
        return out;
    }

    private static List<JsonNode> submit(GatewayClient client, Path batch, Path dir) throws Exception {
        String batchId = client.submitBatchFile(batch).get("batchId").asText();
        SubmitCommand.awaitBatch(client, batchId);
        Path results = dir.resolve("results.jsonl");
        SubmitCommand.download(client, batchId, results);
        List<JsonNode> out = new ArrayList<>();
        for (String line : Files.readAllLines(results)) {
            if (line.isBlank()) continue;
            ObjectNode r = (ObjectNode) JsonCodec.mapper().readTree(line);
            JsonNode trace = client.getPatiently("/v1/questions/" + r.path("questionId").asText() + "/trace", Duration.ofSeconds(30));
            r.put("firstError", firstError(trace));
            out.add(r);
        }
        return out;
    }

    /** The first error category of attempt 1 (the repair worker's event), or null when it succeeded. */
    static String firstError(JsonNode trace) {
        for (JsonNode e : trace.path("attempts")) {
            if (e.path("attempt").asInt() != 1 || !"repair".equals(e.path("stage").asText())) continue;
            for (JsonNode i : e.path("issues")) if (!i.path("hint").asBoolean()) return i.path("category").asText();
        }
        return null;
    }

    static String usage() {
        return """
                usage: ./sqloop eval DATASET [options]

                Runs DATASET (defog .csv, .jsonl with question + gold_sql, or .yaml cases) through the pipeline once
                per --max-attempts value and scores every final SQL: VA (executes), EX (same result as the gold, by
                values), TS (EX also on --ts neighbour copies of each datasource with non-key columns shuffled: a
                query right by luck fails), EM (same normalized statement). Gold and final SQL run read-only, as the
                executor runs them. Neighbours of a DuckDB datasource are files under --out; of a PostgreSQL one,
                databases <db>_sqloop_ts<i> on its server, made (and remade on each run) by the login
                SQLOOP_EVAL_TS_USER / SQLOOP_EVAL_TS_PASSWORD (CREATEDB; the datasource's login only reads them).

                options:
                  --max-attempts 1,3       configurations to compare (default 1,3: no retry vs retry)
                  --map db=ds,...          dataset database name -> sqloop datasource (SQLOOP_DATASOURCE_<NAME>_*)
                  --datasource NAME        the datasource of rows that name none
                  --gateway URL            submit to a running gateway instead of running the pipeline here
                  --api-key KEY            the gateway's API key
                  --llm simulated          the simulated oracle LLM (knows the gold; for harness checks and demos)
                  --faults default|none    the simulated oracle's fault mix (default: the demo's)
                  --seed N                 the simulated oracle's seed (default 7)
                  --ts N                   neighbour databases per datasource for TS (default 3; 0 = off)
                  --out DIR                where report.md, report.html (charts), report.json and questions.jsonl go
                """;
    }
}
