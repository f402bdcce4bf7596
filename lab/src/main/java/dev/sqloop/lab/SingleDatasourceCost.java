package dev.sqloop.lab;

import dev.sqloop.cli.Args;
import dev.sqloop.cli.GatewayClient;
import dev.sqloop.cli.SubmitCommand;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.datasource.Datasources;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.message.TokenUsage;
import dev.sqloop.embedded.eval.EvalCase;
import dev.sqloop.embedded.eval.Scorer;
import dev.sqloop.embedded.pipeline.DemoBatch;
import dev.sqloop.embedded.pipeline.EmbeddedPipeline;
import dev.sqloop.testkit.engines.DefogDatasets;
import dev.sqloop.testkit.llm.OracleResponder;
import dev.sqloop.testkit.llm.PromptCache;
import dev.sqloop.testkit.llm.RecordedRequest;
import dev.sqloop.testkit.llm.SimulatedLlm;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code ./sqloop bench cost --single-datasource}: each defog database (DuckDB) as one single-datasource batch through
 * the whole embedded pipeline, online, against the simulated LLM (the demo's fault mix, so some questions are repaired;
 * cached tokens reported as OpenAI's automatic cache would: from 1,024 tokens, 128-token blocks, 5-minute TTL). Per
 * batch it prints prompt tokens per question and per call (mean, p95), the share of prompt tokens served from the
 * cache, USD per question and per success at a stated price table, and what the prompts are made of: the prefix all
 * of the batch's prompts share (the most a cache can serve) and the mean tokens of each section, to say why a batch is
 * or is not cached. {@code --schema-budget N} sets the schema linker's budget ({@code SQLOOP_SCHEMA_TOKEN_BUDGET}): below
 * a schema's size it takes the ranked path a larger schema takes. {@code --examples} seeds each database's example
 * memory with its own questions and gold SQL and retrieves with no minimum score, so every prompt carries the full five
 * examples (one of them usually its own question: the same size as any other, and the oracle's answer does not depend
 * on it; a measure of tokens, not of accuracy).
 */
final class SingleDatasourceCost {
    private SingleDatasourceCost() {}

    record Figures(String datasource, int questions, long succeeded, TokenUsage usage, long[] promptPerQuestion,
                   long[] promptPerCall, int sharedPrefix, Map<String, Double> meanSections) {
        double cachedShare() {
            return usage.inputTokens() == 0 ? 0 : (double) usage.cachedInputTokens() / usage.inputTokens();
        }

        String row() {
            return String.format(Locale.ROOT, "| %s | %d (%d) | %d | %.0f | %d | %.0f | %d | %d | **%.1f %%** | %.0f | %.7f | %.7f |",
                    datasource, questions, succeeded, promptPerCall.length, PromptShape.mean(promptPerQuestion),
                    PromptShape.percentile(promptPerQuestion, 95), PromptShape.mean(promptPerCall),
                    PromptShape.percentile(promptPerCall, 95), sharedPrefix, 100 * cachedShare(),
                    (double) (usage.inputTokens() - usage.cachedInputTokens()) / questions, usage.cost() / questions,
                    usage.cost() / Math.max(1, succeeded));
        }
    }

    static int run(Args args) throws Exception {
        Path out = Path.of(args.string("out", Files.createTempDirectory("sqloop-bench-cost-single-").toString()));
        Files.createDirectories(out);
        List<String> databases = args.strings("databases").isEmpty() ? DefogDatasets.DATABASES
                : Arrays.stream(String.join(",", args.strings("databases")).split(",")).map(String::strip).toList();
        Map<String, String> settings = new HashMap<>();
        settings.put("SQLOOP_LLM_PRICE_INPUT", Double.toString(CostBenchmark.IN));
        settings.put("SQLOOP_LLM_PRICE_CACHED_INPUT", Double.toString(CostBenchmark.CACHED));
        settings.put("SQLOOP_LLM_PRICE_OUTPUT", Double.toString(CostBenchmark.OUT));
        boolean examples = args.flag("examples");
        if (examples) {
            settings.put("SQLOOP_FEWSHOT_SHORTCUT_EXACT", "false");
            settings.put("SQLOOP_FEWSHOT_MIN_SCORE", "0");
        }
        String budget = args.string("schema-budget", null);
        if (budget != null) settings.put("SQLOOP_SCHEMA_TOKEN_BUDGET", budget);
        for (String db : databases) {
            Path file = DefogDatasets.loadIntoDuckDb(db, out.resolve(db + ".duckdb"));
            String key = "SQLOOP_DATASOURCE_" + db.toUpperCase(Locale.ROOT);
            settings.put(key + "_DIALECT", "duckdb");
            settings.put(key + "_URL", "jdbc:duckdb:" + file.toAbsolutePath());
        }
        List<EvalCase> cases = EvalCase.load(DefogDatasets.questionsCsv(), Map.of(), null).stream()
                .filter(c -> databases.contains(c.datasource())).toList();
        Map<String, String> gold = new LinkedHashMap<>();
        try (Scorer scorer = new Scorer(Datasources.fromEnv(new EnvConfig(settings)))) {
            cases.forEach(c -> gold.put(c.question(), scorer.firstRunnable(c)));
        }
        List<Figures> figures = new ArrayList<>();
        try (SimulatedLlm llm = SimulatedLlm.start(new OracleResponder(gold, DemoBatch.faultMix(), "duckdb", 7), 7);
             EmbeddedPipeline pipeline = EmbeddedPipeline.start(out.resolve("pipeline"), settings, llm, false)) {
            GatewayClient client = new GatewayClient(pipeline.gatewayUrl(), null);
            if (examples) {
                for (String db : databases) pipeline.seed(seedFile(db, cases, gold, out), db, "duckdb");
            }
            for (String db : databases) figures.add(runBatch(db, cases, llm, client, out));
        }
        System.out.printf(Locale.ROOT, "prices USD per 1M tokens: input %.2f, cached input %.2f, output %.2f (online);"
                + " schema token budget %s; examples %s; cache: from %d tokens, %d-token blocks, TTL %s%n", CostBenchmark.IN, CostBenchmark.CACHED,
                CostBenchmark.OUT, budget == null ? "default" : budget,
                examples ? "seeded (5 a prompt)" : "as captured", PromptCache.MIN_TOKENS, PromptCache.BLOCK, PromptCache.DEFAULT_TTL);
        System.out.println("| datasource | questions (succeeded) | calls | prompt / q | p95 | prompt / call | p95 | shared prefix"
                + " | cached share | uncached / q | USD / q | USD / success |");
        System.out.println("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
        for (Figures f : figures) System.out.println(f.row());
        System.out.println("mean tokens per call by prompt section (system sections by heading; user = question or repair prompt):");
        for (Figures f : figures) {
            StringBuilder s = new StringBuilder("  " + f.datasource() + ":");
            f.meanSections().forEach((k, v) -> s.append(String.format(Locale.ROOT, " %s %.0f;", k, v)));
            System.out.println(s);
        }
        long in = figures.stream().mapToLong(f -> f.usage().inputTokens()).sum();
        long cached = figures.stream().mapToLong(f -> f.usage().cachedInputTokens()).sum();
        System.out.printf(Locale.ROOT, "all batches: %d of %d prompt tokens from the cache (%.1f %%)%n", cached, in, in == 0 ? 0 : 100.0 * cached / in);
        return 0;
    }

    /** The database's questions and gold SQL as an example seed file (the format of {@code demo/seed.yaml}). */
    static Path seedFile(String db, List<EvalCase> cases, Map<String, String> gold, Path out) throws java.io.IOException {
        StringBuilder yaml = new StringBuilder("cases:\n");
        for (EvalCase c : cases) {
            if (!c.datasource().equals(db) || gold.get(c.question()) == null) continue;
            // JSON strings are YAML double-quoted scalars: quotes, backslashes and newlines come through as written
            yaml.append("  - id: ").append(JsonCodec.encodeToString("seed-" + c.id())).append('\n')
                    .append("    question: ").append(JsonCodec.encodeToString(c.question())).append('\n')
                    .append("    expected_sql: ").append(JsonCodec.encodeToString(gold.get(c.question()))).append('\n');
        }
        return Files.writeString(out.resolve(db + "-seed.yaml"), yaml);
    }

    private static Figures runBatch(String db, List<EvalCase> cases, SimulatedLlm llm, GatewayClient client, Path out) throws Exception {
        int from = llm.requests().size();
        StringBuilder jsonl = new StringBuilder();
        cases.stream().filter(c -> c.datasource().equals(db)).forEach(c -> jsonl.append(JsonCodec.encodeToString(
                Map.of("question", c.question(), "datasource", db, "clientId", c.id()))).append('\n'));
        String batchId = client.submitBatchFile(Files.writeString(out.resolve(db + ".jsonl"), jsonl)).get("batchId").asText();
        SubmitCommand.awaitBatch(client, batchId);
        Path resultsFile = out.resolve(db + "-results.jsonl");
        SubmitCommand.download(client, batchId, resultsFile);
        List<QuestionResult> results = new ArrayList<>();
        for (String line : Files.readAllLines(resultsFile)) {
            if (!line.isBlank()) results.add(JsonCodec.decode(line.getBytes(StandardCharsets.UTF_8), QuestionResult.class));
        }
        TokenUsage sum = results.stream().map(QuestionResult::usage).reduce(TokenUsage.ZERO, TokenUsage::plus);
        long succeeded = results.stream().filter(QuestionResult::succeeded).count();
        long[] perQuestion = results.stream().mapToLong(r -> r.usage().inputTokens()).toArray();
        List<RecordedRequest> calls = llm.requests().subList(from, llm.requests().size()).stream().filter(r -> r.status() == 200).toList();
        long[] perCall = calls.stream().mapToLong(r -> PromptCache.tokenize(r.system()).length + PromptCache.tokenize(r.user()).length).toArray();
        Map<String, Double> sections = new LinkedHashMap<>();
        for (RecordedRequest r : calls) {
            PromptShape.sectionTokens(r.system()).forEach((k, v) -> sections.merge(k, (double) v / calls.size(), Double::sum));
            sections.merge("user", (double) PromptCache.tokenize(r.user()).length / calls.size(), Double::sum);
        }
        int shared = PromptShape.sharedPrefixTokens(calls.stream().map(RecordedRequest::system).toList());
        return new Figures(db, results.size(), succeeded, sum, perQuestion, perCall, shared, sections);
    }
}
