package dev.sqloop.embedded.eval;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sqloop.cli.Args;
import dev.sqloop.cli.GatewayClient;
import dev.sqloop.cli.SubmitCommand;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.datasource.Datasources;
import dev.sqloop.common.message.TokenUsage;
import dev.sqloop.embedded.pipeline.DemoBatch;
import dev.sqloop.embedded.pipeline.EmbeddedPipeline;
import dev.sqloop.embedded.pipeline.LocalChdb;
import dev.sqloop.common.Dialect;
import dev.sqloop.common.sql.GoldSql;
import dev.sqloop.testkit.engines.PostgresToClickHouse;
import dev.sqloop.testkit.Ports;
import dev.sqloop.testkit.llm.Fault;
import dev.sqloop.testkit.llm.Latency;
import dev.sqloop.testkit.llm.OracleResponder;
import dev.sqloop.testkit.llm.SimulatedLlm;
import dev.sqloop.cli.ProgressBar;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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
 * {@code --max-attempts} value, scores every final SQL as its result arrives ({@link Scorer}: VA, EX, TS, EM) and
 * writes {@code questions.jsonl} as it goes, then {@code report.json}, {@code report.md} and {@code report.html}
 * ({@link EvalReport}). Ctrl-C leaves a partial report; a rerun on the same output directory resumes it.
 */
public final class Eval {
    static final String QUESTIONS = "questions.jsonl";

    private Eval() {}

    /** Bumped when a score or a report figure changes meaning: a run directory of another version is not resumed. */
    static final int REPORT_VERSION = 2;

    /**
     * The outcome of one question in one configuration.
     *
     * @param reason the pipeline's outcome ({@code first_attempt_success}, {@code max_attempts}, …)
     * @param sql the final SQL (a success's); null on failure
     * @param lastRejectedSql on failure, the last attempt's SQL (what was refused); null on success
     * @param firstError the first error of attempt 1, or null when attempt 1 succeeded
     */
    public record Row(EvalCase c, int maxAttempts, String status, String reason, int attempts, String sql, String lastRejectedSql,
                      FirstError firstError, long tokens, Scorer.Score score, TokenUsage usage) {
        public Row {
            usage = usage == null ? new TokenUsage(tokens, 0) : usage;
        }

        /** A row whose usage is known only as its token total (no cache split, no cost). */
        public Row(EvalCase c, int maxAttempts, String status, String reason, int attempts, String sql, String lastRejectedSql,
                   FirstError firstError, long tokens, Scorer.Score score) {
            this(c, maxAttempts, status, reason, attempts, sql, lastRejectedSql, firstError, tokens, score, null);
        }
    }

    /** An error as a stage reported it: category (wire name), the stage that found it, and its message (engine text, validator reason). */
    public record FirstError(String category, String stage, String message) {}

    /** A result's {@code usage} object: tokens by kind and cost (absent parts read as 0). */
    static TokenUsage usage(JsonNode u) {
        return new TokenUsage(u.path("inputTokens").asLong(), u.path("outputTokens").asLong(), u.path("cachedInputTokens").asLong(),
                u.path("cost").asDouble());
    }

    public static int run(Args args) throws Exception {
        if (args.flag("help")) throw new Args.HelpRequested(usage());
        args.allowOnly(true, "help", "gateway", "api-key", "max-attempts", "out", "datasource", "map", "llm", "faults", "seed", "ts", "resume", "llm-latency-ms",
                "candidates", "silent-rate", "failing-rate", "gold-dialect", "load-defog");
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
        if (args.string("gold-dialect", null) != null) {
            cases = translateGold(cases, dialectOf(args.string("gold-dialect", null)), Datasources.dialectsFromEnv(new EnvConfig(System.getenv())));
        }
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
        Path base = Path.of((home == null || home.isBlank() ? "" : home + "/") + ".sqloop/eval");
        Path out;
        if (args.string("out", null) != null) {
            out = Path.of(args.string("out", null)).toAbsolutePath();
        } else if (args.flag("resume")) {
            out = latestRun(base);
            if (out == null) throw new Args.UsageException("--resume: no earlier run under " + base.toAbsolutePath() + " (give --out DIR)");
        } else {
            out = base.resolve("run-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))).toAbsolutePath();
        }
        if (LocalChdb.needed(settings)) {
            LocalChdb.library(settings, System.err);
            if (args.flag("load-defog")) LocalChdb.loadDefog(settings, out.resolve("defog-parquet"), System.err);
        } else if (args.flag("load-defog")) {
            throw new Args.UsageException("--load-defog loads the defog databases into chDB datasources (SQLOOP_DATASOURCE_<NAME>_URL=jdbc:chdb:DIR?database=NAME);"
                    + " none is configured");
        }
        double silentRate = rate(args, "silent-rate", "makes the simulated oracle wrong silently");
        double failingRate = rate(args, "failing-rate", "makes the simulated oracle's candidates 2..N fail first");
        List<Integer> candidates = candidateCounts(args.string("candidates", null));
        if (candidates != null && args.string("gateway", null) != null) {
            throw new Args.UsageException("--candidates sets SQLOOP_DATASOURCE_<NAME>_CANDIDATES on the pipeline eval runs here;"
                    + " against a gateway, set it on its generator and run once per value");
        }
        Options options = new Options(args.string("gateway", null), args.string("api-key", null), args.string("llm", null),
                args.string("faults", "default"), Long.parseLong(args.string("seed", "7")), args.integer("ts", 3),
                Duration.ofMillis(args.integer("llm-latency-ms", 0)), silentRate, failingRate);
        // Ctrl-C: stop between two questions, write the partial report, then let the JVM end
        Interrupt interrupt = new Interrupt();
        Thread hook = new Thread(() -> {
            dev.sqloop.testkit.engines.ChdbLibrary.exitStatus(130); // ended by a signal, as the JVM's own exit would say
            interrupt.request();
            try {
                interrupt.awaitFinished(Duration.ofSeconds(60));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "eval-interrupt");
        Runtime.getRuntime().addShutdownHook(hook);
        // with chDB loaded the JVM ends by _exit (ChdbLibrary): not before the partial report is written
        if (LocalChdb.needed(settings)) dev.sqloop.testkit.engines.ChdbLibrary.exitAfter(hook, Duration.ofSeconds(60));
        EvalReport report;
        try {
            if (candidates == null) {
                report = evaluate(cases, configs, settings, out, options, interrupt);
                System.out.println();
                System.out.print(report.comparison());
                System.out.println("report: " + out.resolve("report.md") + " (and report.html, report.json, questions.jsonl)");
            } else {
                Map<Integer, EvalReport> byCount = new LinkedHashMap<>();
                report = null;
                for (int n : candidates) {
                    if (interrupt.requested()) break;
                    System.err.printf("sqloop eval: %d candidate%s per question%n", n, n == 1 ? "" : "s");
                    report = evaluate(cases, configs, withCandidates(settings, cases, n), out.resolve("candidates-" + n), options, interrupt);
                    byCount.put(n, report);
                    if (report.remaining() > 0) break;
                }
                String table = CandidatesTable.of(byCount, configs, silentRate);
                Files.writeString(out.resolve("candidates.md"), table);
                System.out.println();
                System.out.print(table);
                System.out.println("report: " + out.resolve("candidates.md") + " (each count's own under candidates-N/)");
            }
            if (report == null || report.remaining() > 0) {
                System.out.printf("interrupted: partial report, %d question runs remain; resume with the same command and --out %s%n",
                        report == null ? cases.size() * configs.size() : report.remaining(), out);
            }
        } finally {
            interrupt.finished();
        }
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            return 130; // ended by Ctrl-C: the JVM is on its way out
        }
        return report == null || report.remaining() > 0 ? 130 : 0;
    }

    private static Dialect dialectOf(String name) {
        try {
            return Dialect.fromWire(name);
        } catch (IllegalArgumentException e) {
            throw new Args.UsageException("--gold-dialect: " + e.getMessage());
        }
    }

    /**
     * {@code --gold-dialect D}: the dataset's gold SQL is written for {@code D} (defog's for PostgreSQL), and each question
     * on a datasource of another engine gets its gold translated into that engine's dialect, every accepted form, so that
     * scoring runs gold and final SQL on the same engine. PostgreSQL to ClickHouse is the translation sqloop has (testkit's
     * {@link PostgresToClickHouse}); DuckDB runs PostgreSQL's gold as written (the first form it runs is used); any other
     * pair is refused rather than scored on gold the engine does not run.
     */
    static List<EvalCase> translateGold(List<EvalCase> cases, Dialect gold, Map<String, Dialect> dialects) {
        List<EvalCase> out = new ArrayList<>();
        for (EvalCase c : cases) {
            Dialect target = dialects.get(c.datasource());
            if (target == null || target == gold || (gold == Dialect.POSTGRES && target == Dialect.DUCKDB)) {
                out.add(c);
            } else if (gold == Dialect.POSTGRES && target == Dialect.CLICKHOUSE) {
                String translated = String.join(";\n", GoldSql.forms(c.gold()).stream().map(PostgresToClickHouse::query).toList());
                out.add(new EvalCase(c.id(), c.question(), translated, c.datasource(), c.category(), c.instructions()));
            } else {
                throw new Args.UsageException("--gold-dialect " + gold.wireName() + ": no translation to " + target.wireName() + " (datasource "
                        + c.datasource() + "); sqloop translates postgres gold to clickhouse; give this datasource's gold in its own dialect");
            }
        }
        return out;
    }

    /** {@code --candidates 1,3,5}: the counts to compare, or null when not given (the pipeline's own settings hold). */
    static List<Integer> candidateCounts(String value) {
        if (value == null) return null;
        List<Integer> out = new ArrayList<>();
        for (String n : value.split(",")) {
            try {
                int k = Integer.parseInt(n.strip());
                if (k < 1 || k > 9) throw new NumberFormatException();
                out.add(k);
            } catch (NumberFormatException e) {
                throw new Args.UsageException("--candidates takes counts from 1 to 9, e.g. 1,3,5; was '" + n + "'");
            }
        }
        return out;
    }

    /** The settings with every dataset datasource asking for {@code n} candidates ({@code _CANDIDATES}). */
    static Map<String, String> withCandidates(Map<String, String> settings, List<EvalCase> cases, int n) {
        Map<String, String> s = new HashMap<>(settings);
        cases.stream().map(EvalCase::datasource).distinct().forEach(ds -> s.put(Datasources.PREFIX
                + ds.toUpperCase(java.util.Locale.ROOT) + Datasources.CANDIDATES, Integer.toString(n)));
        return s;
    }

    /** The newest {@code run-*} directory under {@code base}, or null. */
    static Path latestRun(Path base) throws java.io.IOException {
        if (!Files.isDirectory(base)) return null;
        try (var dirs = Files.list(base)) {
            return dirs.filter(d -> d.getFileName().toString().startsWith("run-") && Files.isDirectory(d))
                    .max(java.util.Comparator.comparing(d -> d.getFileName().toString())).map(Path::toAbsolutePath).orElse(null);
        }
    }

    /** A share of candidates (0-1) for the simulated oracle, refused with a clear message otherwise. */
    private static double rate(Args args, String name, String what) {
        double rate;
        try {
            rate = Double.parseDouble(args.string(name, "0"));
        } catch (NumberFormatException e) {
            throw new Args.UsageException("--" + name + " takes a share of candidates, e.g. 0.3; was '" + args.string(name, "") + "'");
        }
        if (rate < 0 || rate > 1) throw new Args.UsageException("--" + name + " is between 0 and 1, was " + rate);
        if (rate > 0 && !"simulated".equals(args.string("llm", null))) {
            throw new Args.UsageException("--" + name + " " + what + ": it needs --llm simulated");
        }
        return rate;
    }

    /**
     * @param gateway a running gateway to submit to, or null to run the pipeline in this JVM
     * @param llm {@code simulated} for the simulated oracle (it knows the gold SQL), else the configured LLM
     * @param faults {@code default} (the demo's mix), {@code none} or {@code signal} (issue 46's opt-in kinds) for the simulated oracle
     * @param tsCopies neighbour databases per datasource for test-suite accuracy (0: no TS)
     * @param llmLatency how long the simulated oracle takes per answer (zero: at once)
     * @param silentRate the share of the simulated oracle's candidates that answer a silent variant of the gold SQL
     *                   (issue 50; 0: none, as before)
     * @param failingRate the share of its candidates 2..N that answer first a mistake the engine refuses, which the
     *                    candidates' repair corrects from the engine's error (issue 50; 0: none, as before)
     */
    public record Options(String gateway, String apiKey, String llm, String faults, long seed, int tsCopies, Duration llmLatency,
                          double silentRate, double failingRate) {
        public Options(String gateway, String apiKey, String llm, String faults, long seed, int tsCopies, Duration llmLatency,
                       double silentRate) {
            this(gateway, apiKey, llm, faults, seed, tsCopies, llmLatency, silentRate, 0);
        }

        public Options(String gateway, String apiKey, String llm, String faults, long seed, int tsCopies) {
            this(gateway, apiKey, llm, faults, seed, tsCopies, Duration.ZERO);
        }

        public Options(String gateway, String apiKey, String llm, String faults, long seed, int tsCopies, Duration llmLatency) {
            this(gateway, apiKey, llm, faults, seed, tsCopies, llmLatency, 0);
        }
    }

    /**
     * Stops a run between two questions: Ctrl-C (a shutdown hook requests it and waits for the partial report), or in
     * tests after a number of questions scored. Whatever was scored stays in {@code questions.jsonl}; the run writes
     * a report marked partial and a rerun on the same output directory scores only what is missing.
     */
    public static final class Interrupt {
        private final AtomicBoolean requested = new AtomicBoolean();
        private final CountDownLatch finished = new CountDownLatch(1);
        private final int afterScored;

        public Interrupt() {
            this(0);
        }

        private Interrupt(int afterScored) {
            this.afterScored = afterScored;
        }

        /** A run that stops by itself once {@code n} questions were scored in it (tests: Ctrl-C at a known point). */
        public static Interrupt afterScored(int n) {
            return new Interrupt(n);
        }

        public void request() {
            requested.set(true);
        }

        public boolean requested() {
            return requested.get();
        }

        void scored(int inThisRun) {
            if (afterScored > 0 && inThisRun >= afterScored) request();
        }

        /** Sleeps up to {@code d}, less when a stop is requested. */
        void pause(Duration d) throws InterruptedException {
            long until = System.nanoTime() + d.toNanos();
            while (!requested() && System.nanoTime() < until) Thread.sleep(50);
        }

        void finished() {
            finished.countDown();
        }

        boolean awaitFinished(Duration d) throws InterruptedException {
            return finished.await(d.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    public static EvalReport evaluate(List<EvalCase> cases, List<Integer> configs, Map<String, String> settings, Path out,
                                      Options options) throws Exception {
        return evaluate(cases, configs, settings, out, options, new Interrupt());
    }

    /**
     * Runs every (question, configuration) not already scored in {@code out} — a rerun on the directory of an
     * interrupted run resumes it — scoring each question as its result arrives and appending it to
     * {@code questions.jsonl} at once. Writes the report at the end, or when interrupted a partial one
     * ({@link EvalReport#remaining()} above 0).
     */
    public static EvalReport evaluate(List<EvalCase> cases, List<Integer> configs, Map<String, String> settings, Path out,
                                      Options options, Interrupt interrupt) throws Exception {
        Files.createDirectories(out);
        Datasources datasources = Datasources.fromEnv(new EnvConfig(settings));
        Map<String, EvalCase> byId = new LinkedHashMap<>();
        cases.forEach(c -> byId.put(c.id(), c));
        RunState state = RunState.read(out);
        state.options(String.format(java.util.Locale.ROOT, "llm=%s faults=%s seed=%d ts=%d gateway=%s report=%d",
                options.llm() == null ? "configured" : options.llm(), options.faults(), options.seed(), options.tsCopies(), options.gateway(),
                REPORT_VERSION) + (options.silentRate() > 0 ? " silent=" + options.silentRate() : "")
                + (options.failingRate() > 0 ? " failing=" + options.failingRate() : ""), out);
        state.write(out);
        Path log = out.resolve(QUESTIONS);
        List<Row> rows = EvalReport.readRows(log, byId, configs);
        if (!rows.isEmpty()) {
            System.err.printf("sqloop eval: resuming %s: %d of %d questions already scored%n", out, rows.size(), cases.size() * configs.size());
        }
        String tsUser = settings.get("SQLOOP_EVAL_TS_USER");
        NeighbourDatabases.Admin admin = tsUser == null || tsUser.isBlank() ? null
                : new NeighbourDatabases.Admin(tsUser, settings.get("SQLOOP_EVAL_TS_PASSWORD"));
        if (admin == null && options.tsCopies() > 0 && datasources.all().stream().anyMatch(d -> d.dialect() == dev.sqloop.common.Dialect.POSTGRES)) {
            System.err.println("sqloop eval: no TS on PostgreSQL datasources: set SQLOOP_EVAL_TS_USER (and SQLOOP_EVAL_TS_PASSWORD), "
                    + "a login that may create databases, to make their neighbour databases");
        }
        int[] scoredHere = {0};
        try (Scorer scorer = new Scorer(datasources, options.tsCopies(), out.resolve("ts"), admin);
             BufferedWriter appender = Files.newBufferedWriter(log, StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
            for (int maxAttempts : configs) {
                Set<String> scored = new HashSet<>();
                rows.stream().filter(r -> r.maxAttempts() == maxAttempts).forEach(r -> scored.add(r.c().id()));
                List<EvalCase> missing = cases.stream().filter(c -> !scored.contains(c.id())).toList();
                if (missing.isEmpty()) continue;
                if (interrupt.requested()) break;
                long start = System.nanoTime();
                Map<String, Long> metrics;
                try {
                    metrics = runConfig(cases, missing, maxAttempts, settings, out.resolve("max-attempts-" + maxAttempts),
                        options, scorer, interrupt, state, (c, r) -> {
                            String sql = r.hasNonNull("sql") ? r.get("sql").asText() : null;
                            JsonNode fe = r.path("firstError");
                            Row row = new Row(c, maxAttempts, r.path("status").asText(), r.path("reason").asText(), r.path("attempts").asInt(),
                                    sql, r.hasNonNull("lastRejectedSql") ? r.get("lastRejectedSql").asText() : null,
                                    fe.isObject() ? new FirstError(fe.path("category").asText(), fe.path("stage").asText(null), fe.path("message").asText(null)) : null,
                                    r.path("usage").path("inputTokens").asLong() + r.path("usage").path("outputTokens").asLong(),
                                    scorer.score(c, sql), usage(r.path("usage")));
                            rows.add(row);
                            appender.write(EvalReport.line(row, datasources));
                            appender.newLine();
                            appender.flush();
                            interrupt.scored(++scoredHere[0]);
                        });
                } catch (Exception e) {
                    if (!interrupt.requested()) throw e;
                    // stopping (Ctrl-C: other shutdown hooks may be closing things under the pipeline): keep what was scored
                    System.err.println("sqloop eval: while stopping: " + e);
                    metrics = null;
                }
                state.add(maxAttempts, (System.nanoTime() - start) / 1e9, metrics);
                state.write(out);
            }
        }
        List<Row> ordered = new ArrayList<>();
        for (int m : configs) {
            for (EvalCase c : cases) {
                rows.stream().filter(r -> r.maxAttempts() == m && r.c().id().equals(c.id())).findFirst().ifPresent(ordered::add);
            }
        }
        EvalReport report = new EvalReport(cases, configs, ordered, state.seconds(), datasources, state.outcomes(), state.memory(),
                cases.size() * configs.size() - ordered.size());
        report.write(out);
        return report;
    }

    /** What one configuration needs in each answer: a scored question per result, as it arrives. */
    private interface ResultSink {
        void accept(EvalCase c, JsonNode result) throws Exception;
    }

    /**
     * Runs the missing questions of one configuration, handing each result to {@code sink} as it arrives. A batch
     * submitted by an interrupted run is picked up again (its id in {@code batch-id}; in-process, the pipeline's data
     * under {@code dir/data} kept its questions), so no question is sent twice; only what it lacks is submitted anew.
     *
     * @return what the pipeline's own metrics counted by outcome in this run (in-process; null against a gateway)
     */
    private static Map<String, Long> runConfig(List<EvalCase> cases, List<EvalCase> missing, int maxAttempts, Map<String, String> settings,
                                               Path dir, Options options, Scorer scorer, Interrupt interrupt, RunState state, ResultSink sink)
            throws Exception {
        Files.createDirectories(dir);
        if (options.gateway() != null) {
            Memory memory = new Memory(state, maxAttempts, "the gateway at " + options.gateway() + " (the examples its API key's tenant sees)",
                    cases);
            collect(new GatewayClient(options.gateway(), options.apiKey()), missing, maxAttempts, dir, interrupt, memory, sink);
            return null;
        }
        Map<String, String> s = new HashMap<>(settings);
        s.putIfAbsent("SQLOOP_GATEWAY_PORT", Integer.toString(Ports.free()));
        s.putIfAbsent("SQLOOP_GATEWAY_MAX_ATTEMPTS_LIMIT", Integer.toString(Math.max(10, maxAttempts)));
        SimulatedLlm llm = null;
        try {
            if ("simulated".equals(options.llm())) {
                Map<String, String> gold = new LinkedHashMap<>();
                Map<String, String> dialects = new LinkedHashMap<>();
                var dialectOf = Datasources.dialectsFromEnv(new EnvConfig(s));
                // the oracle answers with an accepted gold form this engine runs, and makes its mistakes in the question's dialect
                cases.forEach(c -> {
                    gold.put(c.question(), scorer.firstRunnable(c));
                    if (dialectOf.containsKey(c.datasource())) dialects.put(c.question(), dialectOf.get(c.datasource()).wireName());
                });
                Map<Fault, Double> mix = switch (options.faults()) {
                    case "none" -> Map.of(Fault.NONE, 1.0);
                    case "signal" -> OracleResponder.signalMix(); // issue 46's kinds: foreign SQL, WHERE misuse, silent joins
                    default -> DemoBatch.faultMix();
                };
                OracleResponder oracle = new OracleResponder(gold, mix, "postgres", options.seed()).withDialects(dialects);
                if (options.silentRate() > 0) oracle = oracle.withSilentVariants(options.silentRate());
                if (options.failingRate() > 0) oracle = oracle.withFailingCandidates(options.failingRate());
                llm = SimulatedLlm.start(oracle, options.seed());
                if (!options.llmLatency().isZero()) llm.faults().latency(Latency.fixed(options.llmLatency()));
                s.put("SQLOOP_LLM_BASE_URL", llm.openAiBaseUrl());
                s.putIfAbsent("SQLOOP_LLM_MODEL", "simulated");
            }
            EmbeddedPipeline pipeline = EmbeddedPipeline.serve(dir.resolve("data"), s);
            try {
                collect(new GatewayClient(pipeline.gatewayUrl(), null), missing, maxAttempts, dir, interrupt,
                        new Memory(state, maxAttempts, inProcessStore(s, dir.resolve("data")), cases), sink);
            } finally {
                pipeline.close();
            }
            // read after close: every question the gateway saw finish in this run is counted
            return outcomes(pipeline.registries().get(EmbeddedPipeline.GATEWAY));
        } finally {
            if (llm != null) llm.close();
        }
    }

    /**
     * Where one configuration records the example memory it had: the examples visible before its first question (once,
     * by the run that starts it) and after its last result.
     */
    private record Memory(RunState state, int maxAttempts, String store, List<EvalCase> cases) {
        void start(GatewayClient client) throws Exception {
            if (state.memory().containsKey(maxAttempts)) return; // a resumed run: the start is the first run's
            state.memory(maxAttempts, new EvalMemory(store, EvalMemory.read(client, datasources()), null));
        }

        void end(GatewayClient client) throws Exception {
            state.memory(maxAttempts, state.memory().get(maxAttempts).ended(EvalMemory.read(client, datasources())));
        }

        private Set<String> datasources() {
            Set<String> out = new java.util.TreeSet<>();
            cases.forEach(c -> out.add(c.datasource()));
            return out;
        }
    }

    /**
     * The example store an in-process configuration reads, as its settings choose it. The counts recorded beside it are
     * what the run's own gateway lists, which knows only examples published on the run's broker: for a store named in
     * the settings, that may be fewer than the store holds, and the description says so.
     */
    private static String inProcessStore(Map<String, String> settings, Path dataDir) {
        String partly = "; the counts are the examples this run's gateway lists, which may be fewer than that store holds";
        if ("qdrant".equalsIgnoreCase(settings.getOrDefault("SQLOOP_FEWSHOT_STORE", "lucene"))) {
            return "Qdrant at " + settings.getOrDefault("SQLOOP_FEWSHOT_QDRANT_HOST", "localhost") + ":"
                    + settings.getOrDefault("SQLOOP_FEWSHOT_QDRANT_PORT", "6334") + " (SQLOOP_FEWSHOT_QDRANT_*)" + partly;
        }
        if ("chroma".equalsIgnoreCase(settings.getOrDefault("SQLOOP_FEWSHOT_STORE", "lucene"))) {
            return "Chroma at " + settings.getOrDefault("SQLOOP_FEWSHOT_CHROMA_URL", "http://localhost:8000") + " (SQLOOP_FEWSHOT_CHROMA_*)" + partly;
        }
        String path = settings.get("SQLOOP_FEWSHOT_LUCENE_PATH");
        return path != null ? "the Lucene store at " + path + " (SQLOOP_FEWSHOT_LUCENE_PATH)" + partly
                : "this configuration's own store at " + dataDir.resolve("examples") + " (new for the run: empty unless resumed)";
    }

    private static void collect(GatewayClient client, List<EvalCase> missing, int maxAttempts, Path dir, Interrupt interrupt,
                                Memory memory, ResultSink sink) throws Exception {
        if (interrupt.requested()) return; // Ctrl-C while the pipeline started: send nothing
        memory.start(client);
        Map<String, EvalCase> pending = new LinkedHashMap<>();
        missing.forEach(c -> pending.put(c.id(), c));
        String batchId = earlierBatch(client, dir, pending.keySet());
        if (batchId == null) {
            StringBuilder jsonl = new StringBuilder();
            for (EvalCase c : missing) {
                Map<String, Object> line = new LinkedHashMap<>();
                line.put("question", c.question());
                if (c.instructions() != null) line.put("instructions", c.instructions());
                line.put("datasource", c.datasource());
                line.put("clientId", c.id());
                line.put("maxAttempts", maxAttempts);
                // eval never writes memory: every configuration reads the examples as they stood when it began
                line.put("capture", false);
                line.put("metadata", Map.of("evalId", c.id()));
                jsonl.append(JsonCodec.encodeToString(line)).append('\n');
            }
            Path batch = Files.writeString(dir.resolve("batch.jsonl"), jsonl);
            batchId = client.submitBatchFile(batch).get("batchId").asText();
            Files.writeString(dir.resolve("batch-id"), batchId + "\n");
        }
        ProgressBar bar = new ProgressBar(System.err);
        long fetched = -1; // results the last read of the batch's results held
        while (!pending.isEmpty() && !interrupt.requested()) {
            JsonNode status = client.getPatiently("/v1/batches/" + batchId, Duration.ofMinutes(2));
            long finished = status.path("finished").asLong();
            // the results store may lag the batch's progress by a moment: read again until it holds every finished one
            if (finished != fetched) {
                long lines = 0;
                try (BufferedReader in = new BufferedReader(new InputStreamReader(client.stream("/v1/batches/" + batchId + "/results"),
                        StandardCharsets.UTF_8))) {
                    for (String line; (line = in.readLine()) != null && !interrupt.requested(); ) {
                        if (line.isBlank()) continue;
                        lines++;
                        ObjectNode r = (ObjectNode) JsonCodec.mapper().readTree(line);
                        EvalCase c = pending.get(r.path("metadata").path("evalId").asText());
                        if (c == null) continue;
                        JsonNode trace = client.getPatiently("/v1/questions/" + r.path("questionId").asText() + "/trace", Duration.ofSeconds(30));
                        FirstError first = firstError(trace, r);
                        if (first != null) r.set("firstError", JsonCodec.mapper().valueToTree(first));
                        sink.accept(c, r);
                        pending.remove(c.id());
                    }
                }
                fetched = lines;
            }
            bar.update(missing.size() - pending.size(), missing.size(), "scored (max attempts " + maxAttempts + ")");
            if (status.path("done").asBoolean() && fetched >= finished) break;
            interrupt.pause(Duration.ofSeconds(1));
        }
        bar.finish();
        if (pending.isEmpty()) memory.end(client);
    }

    /** The batch an interrupted run submitted, if it holds every question still missing and the gateway knows it. */
    private static String earlierBatch(GatewayClient client, Path dir, Set<String> missing) throws Exception {
        Path idFile = dir.resolve("batch-id");
        Path batch = dir.resolve("batch.jsonl");
        if (!Files.exists(idFile) || !Files.exists(batch)) return null;
        Set<String> submitted = new HashSet<>();
        for (String line : Files.readAllLines(batch)) {
            if (!line.isBlank()) submitted.add(JsonCodec.mapper().readTree(line).path("clientId").asText());
        }
        if (!submitted.containsAll(missing)) return null;
        String id = Files.readString(idFile).strip();
        try {
            client.getPatiently("/v1/batches/" + id, Duration.ofSeconds(60));
            return id;
        } catch (Args.UsageException e) {
            System.err.println("sqloop eval: the earlier batch " + id + " is gone (" + e.getMessage() + "); submitting the missing questions again");
            return null;
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

    /** Messages are kept whole but for this: Spark's carry the server's stack trace (kilobytes) after the meaning. */
    static final int MAX_ERROR_CHARS = 2000;

    /**
     * The first error of attempt 1 as the repair worker received it (its event in the trace), or null when attempt 1
     * succeeded. A failed question without such an event (ended before the repair worker saw it) gives its result's
     * first error instead.
     */
    static FirstError firstError(JsonNode trace, JsonNode result) {
        for (JsonNode e : trace.path("attempts")) {
            if (e.path("attempt").asInt() != 1 || !"repair".equals(e.path("stage").asText()) || e.path("round").asInt() != 0) continue;
            for (JsonNode i : e.path("issues")) if (!i.path("hint").asBoolean()) return firstError(i);
        }
        if ("succeeded".equals(result.path("status").asText())) return null;
        for (JsonNode i : result.path("issues")) if (!i.path("hint").asBoolean()) return firstError(i);
        if (result.hasNonNull("errorCategory")) {
            return new FirstError(result.get("errorCategory").asText(), null, clip(result.path("errorMessage").asText(null)));
        }
        return null;
    }

    private static FirstError firstError(JsonNode issue) {
        return new FirstError(issue.path("category").asText(), issue.path("stage").asText(null), clip(issue.path("message").asText(null)));
    }

    private static String clip(String message) {
        if (message == null) return null;
        int trace = message.indexOf("\n\tat ");
        String m = trace >= 0 ? message.substring(0, trace) : message;
        return m.length() <= MAX_ERROR_CHARS ? m : m.substring(0, MAX_ERROR_CHARS - 1) + "…";
    }

    static String usage() {
        return """
                usage: ./sqloop eval DATASET [options]

                Runs DATASET (defog .csv, .jsonl with question + gold_sql, or .yaml cases) through the pipeline once
                per --max-attempts value and scores every final SQL (a failed question has none):
                  VA  the final SQL executes;
                  EX  its result equals an accepted gold form's result on the datasource, by values;
                  TS  EX, and the gold's result on every neighbour database too (--ts copies of each datasource with
                      non-key columns shuffled: a query right by luck fails); over every question of a datasource
                      with neighbours, so TS never exceeds EX;
                  EM  the same normalized statement as a gold form (diagnostic).
                Gold and final SQL run read-only, as the executor runs them. Neighbours of a DuckDB datasource are
                files under --out; of a PostgreSQL one, databases <db>_sqloop_ts<i> on its server, made (and remade on
                each run) by the login SQLOOP_EVAL_TS_USER / SQLOOP_EVAL_TS_PASSWORD (CREATEDB; the datasource's
                login only reads them). A question's instructions (defog's instructions column, a JSONL
                "instructions", a YAML case's instructions or notes) go to the LLM with it.

                Memory: every question is submitted with capture off, so no run adds examples or error->fix pairs
                and every configuration reads the example memory as it stood when eval began (in this JVM, each
                configuration's own new store, or the store SQLOOP_FEWSHOT_* names; with --gateway, what the API
                key's tenant sees there). The report records the examples visible at each run's start and end.

                options:
                  --max-attempts 1,3       configurations to compare (default 1,3: no retry vs retry)
                  --map db=ds,...          dataset database name -> sqloop datasource (SQLOOP_DATASOURCE_<NAME>_*)
                  --datasource NAME        the datasource of rows that name none
                  --gateway URL            submit to a running gateway instead of running the pipeline here
                  --api-key KEY            the gateway's API key
                  --llm simulated          the simulated oracle LLM (knows the gold; for harness checks and demos)
                  --faults default|none|signal  the simulated oracle's fault mix (default: the demo's; signal:
                                           another dialect's SQL, aggregates/windows in WHERE, joins on a wrong key)
                  --seed N                 the simulated oracle's seed (default 7)
                  --llm-latency-ms N       the simulated oracle's time per answer (default 0)
                  --ts N                   neighbour databases per datasource for TS (default 3; 0 = off)
                  --gold-dialect D         the dataset's gold is written for D (defog's: postgres); questions on a
                                           ClickHouse datasource get it translated (every accepted form)
                  --load-defog             load the defog databases into the chDB datasources that name them
                                           (jdbc:chdb:DIR?database=broker), once: a database already there is kept
                  --candidates 1,3,5       run once per count of candidate SQL per question (in this JVM: sets
                                           SQLOOP_DATASOURCE_<NAME>_CANDIDATES) and print EX, uncertain rate,
                                           wrong answers and LLM tokens/cost per question side by side (candidates.md)
                  --silent-rate P          the simulated oracle answers a share P of its candidates with a silent
                                           variant of the gold SQL (runs, no error, another answer; default 0)
                  --failing-rate P         the simulated oracle's candidates 2..N answer, each with probability P, first
                                           a mistake the engine refuses (a misspelt column), which the candidates'
                                           repair corrects from the engine's error (default 0)
                  --out DIR                where report.md, report.html, report.json and questions.jsonl go
                                           (default .sqloop/eval/run-TIMESTAMP); a rerun on the directory of an
                                           interrupted run resumes it: only what is missing is sent and scored
                  --resume                 resume the newest run under .sqloop/eval (when --out is not given)

                Output: report.md and report.json (every figure, its definition, each run's memory), report.html (the
                same with charts on 0-100 % axes and one filterable row per question), questions.jsonl (per question
                and configuration: outcome, attempts, final SQL or last refused SQL, first error with its stage and
                message, gold, VA/EX/TS/EM). Ctrl-C stops between two questions and writes a report marked partial
                from what was scored; rerunning resumes, picking up the questions the pipeline was still working on
                rather than sending them again. Exit code 130 when interrupted.
                """;
    }
}
