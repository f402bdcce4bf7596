package dev.sqloop.embedded.eval;

import dev.sqloop.embedded.pipeline.DemoBatch;
import dev.sqloop.embedded.pipeline.EmbeddedPipeline;
import dev.sqloop.testkit.TestDirs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.testkit.engines.DefogDatasets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code ./sqloop eval} on defog databases in DuckDB, through the whole pipeline with the simulated oracle. With no
 * faults the harness must score the gold against itself 100 % EX; with the demo's fault mix, retries must raise EX;
 * against a gateway, the report's figures equal a computation of this test's own from questions.jsonl, every failure
 * keeps its reason, and both configurations start from the same example memory with the questions' instructions.
 */
class EvalIT {
    private static final List<String> DATABASES = List.of("restaurants", "broker", "car_dealership");
    private static final Map<String, String> settings = new HashMap<>();
    private static List<EvalCase> cases;

    @BeforeAll
    static void warehouses() throws Exception {
        Path dir = TestDirs.create("sqloop-eval-it-");
        for (String db : DATABASES) {
            Path file = DefogDatasets.loadIntoDuckDb(db, dir.resolve(db + ".duckdb"));
            String key = "SQLOOP_DATASOURCE_" + db.toUpperCase(java.util.Locale.ROOT);
            settings.put(key + "_DIALECT", "duckdb");
            settings.put(key + "_URL", "jdbc:duckdb:" + file.toAbsolutePath());
        }
        cases = EvalCase.load(DefogDatasets.questionsCsv(), Map.of(), null).stream()
                .filter(c -> Set.copyOf(DATABASES).contains(c.datasource())).toList();
    }

    @Test
    void shouldScoreTheGoldAgainstItselfAtOneHundredPercent() throws Exception {
        EvalReport report = Eval.evaluate(cases, List.of(3), settings, TestDirs.create("eval-gold-"),
                new Eval.Options(null, null, "simulated", "none", 7, 2));
        System.out.print(report.comparison());
        List<String> misses = report.rows().stream().filter(r -> !r.score().ex())
                .map(r -> r.c().id() + " " + r.c().datasource() + ": " + r.reason() + " " + r.score().note()).toList();
        assertEquals(List.of(), misses, "gold through the pipeline must score EX");
        assertEquals(cases.size(), report.summary(3).ex());
        assertEquals(cases.size(), report.summary(3).tsScope(), "every DuckDB question is also scored on neighbour databases");
        List<String> tsMisses = report.rows().stream().filter(r -> !Boolean.TRUE.equals(r.score().ts()))
                .map(r -> r.c().id() + ": " + r.score().note()).toList();
        assertEquals(List.of(), tsMisses, "the gold itself is right on every neighbour");
    }

    @Test
    void shouldScoreTheGoldAgainstItselfOnPostgresToo() throws Exception {
        var pg = dev.sqloop.testkit.engines.PostgresServer.shared();
        Map<String, String> pgSettings = new HashMap<>();
        for (String db : List.of("broker", "car_dealership")) {
            DefogDatasets.loadIntoPostgres(pg, db);
            String key = "SQLOOP_DATASOURCE_" + db.toUpperCase(java.util.Locale.ROOT);
            pgSettings.put(key + "_DIALECT", "postgres");
            pgSettings.put(key + "_URL", pg.jdbcUrl(db));
            pgSettings.put(key + "_USER", dev.sqloop.testkit.engines.PostgresServer.READER);
            pgSettings.put(key + "_PASSWORD", dev.sqloop.testkit.engines.PostgresServer.READER_PASSWORD);
        }
        pgSettings.put("SQLOOP_EVAL_TS_USER", dev.sqloop.testkit.engines.PostgresServer.SUPERUSER);
        List<EvalCase> pgCases = cases.stream().filter(c -> !c.datasource().equals("restaurants")).toList();
        EvalReport report = Eval.evaluate(pgCases, List.of(3), pgSettings, TestDirs.create("eval-pg-"),
                new Eval.Options(null, null, "simulated", "none", 7, 2));
        System.out.print(report.comparison());
        assertEquals(List.of(), report.rows().stream().filter(r -> !r.score().ex())
                .map(r -> r.c().id() + " " + r.c().datasource() + ": " + r.reason() + " " + r.score().note()).toList());
        assertEquals(pgCases.size(), report.summary(3).tsScope(), "every question is also scored on neighbour databases in PostgreSQL");
        assertEquals(List.of(), report.rows().stream().filter(r -> !Boolean.TRUE.equals(r.score().ts()))
                .map(r -> r.c().id() + ": " + r.score().note()).toList(), "the gold itself is right on every neighbour");
    }

    @Test
    void shouldMakeNeighbourDatabasesWithEveryTableItsValuesShuffled() throws Exception {
        for (String db : DATABASES) {
            var ds = dev.sqloop.common.datasource.Datasources.fromEnv(new dev.sqloop.common.config.EnvConfig(settings)).get(db);
            var copy = NeighbourDatabases.duckDb(ds, 1, TestDirs.create("ts-"), 1).getFirst();
            long tables = 0;
            long moved = 0;
            try (var c = java.sql.DriverManager.getConnection(copy.jdbcUrl()); var st = c.createStatement()) {
                st.execute("ATTACH '" + ds.jdbcUrl().substring("jdbc:duckdb:".length()) + "' AS orig (READ_ONLY)");
                var names = new java.util.ArrayList<String>();
                try (var rs = st.executeQuery("SELECT table_name FROM information_schema.tables WHERE table_catalog = 'orig' AND table_type = 'BASE TABLE'")) {
                    while (rs.next()) names.add(rs.getString(1));
                }
                for (String t : names) {
                    tables++;
                    try (var rs = st.executeQuery("SELECT (SELECT count(*) FROM orig.\"" + t + "\") - (SELECT count(*) FROM \"" + t + "\"), "
                            + "(SELECT count(*) FROM (SELECT * FROM orig.\"" + t + "\" EXCEPT ALL SELECT * FROM \"" + t + "\"))")) {
                        rs.next();
                        assertEquals(0, rs.getLong(1), db + "." + t + " keeps its row count");
                        moved += rs.getLong(2);
                    }
                }
            }
            System.out.printf("%s: %d tables, %d rows changed in the neighbour%n", db, tables, moved);
            assertTrue(tables > 0 && moved > 0, db + ": the neighbour must differ from the original");
        }
    }

    @Test
    void shouldShowRetriesRaisingAccuracyUnderTheFaultMix() throws Exception {
        Path out = TestDirs.create("eval-faults-");
        EvalReport report = Eval.evaluate(cases, List.of(1, 3), settings, out, new Eval.Options(null, null, "simulated", "default", 7, 0));
        System.out.print(report.comparison());
        EvalReport.Summary once = report.summary(1);
        EvalReport.Summary retry = report.summary(3);
        assertEquals(cases.size(), once.questions());
        assertEquals(cases.size(), retry.questions());
        assertEquals(0, once.corrected(), "max attempts 1 corrects nothing");
        assertTrue(retry.ex() > once.ex(), "retries raise EX: " + once.ex() + " -> " + retry.ex());
        assertTrue(Files.readString(out.resolve("report.md")).contains("EX by query category"));
        assertTrue(Files.readString(out.resolve("report.html")).contains("Retry vs no retry"));
        for (int m : List.of(1, 3)) {
            assertEquals(report.outcomes(m), report.pipelineOutcomes(m), "the report's counts equal the pipeline's own metrics");
        }
        assertEquals(2L * cases.size(), Files.readAllLines(out.resolve("questions.jsonl")).size());
        // in this JVM each configuration has a store of its own, new and empty, and eval wrote nothing to it
        assertEquals(Boolean.TRUE, report.sameMemory(), report.memory(1) + " / " + report.memory(3));
        assertTrue(report.memory(3).store().contains("max-attempts-3"), report.memory(3).store());
        assertTrue(Files.readString(out.resolve("report.md")).contains("capture off"));
    }

    /** Two paraphrased questions with their answers, posted before eval: the memory every configuration must start from. */
    private static final Map<String, String> SEEDS = Map.of(
            "Count the restaurants per city", "SELECT location.city_name, COUNT(DISTINCT location.restaurant_id) FROM location GROUP BY location.city_name",
            "Number of restaurants for each food type", "SELECT restaurant.food_type, COUNT(*) FROM restaurant GROUP BY restaurant.food_type");

    /**
     * The issue's run: {@code --gateway} and {@code --max-attempts 1,3} against one running pipeline (its simulated LLM
     * makes the demo's mistakes). Before the fix the second run inherited every example the first captured: its
     * fault-free questions came back from stored answers with 0 tokens and its prompts carried the first run's examples.
     */
    @Test
    void shouldCompareConfigurationsAgainstAGatewayFromTheSameMemoryAndScoreAsAnIndependentCount() throws Exception {
        Path work = TestDirs.create("eval-gateway-");
        Path out = work.resolve("out");
        Map<String, String> gold = new java.util.LinkedHashMap<>();
        try (Scorer scorer = new Scorer(dev.sqloop.common.datasource.Datasources.fromEnv(new dev.sqloop.common.config.EnvConfig(settings)))) {
            cases.forEach(c -> gold.put(c.question(), scorer.firstRunnable(c)));
        }
        dev.sqloop.testkit.llm.OracleResponder oracle = new dev.sqloop.testkit.llm.OracleResponder(gold, dev.sqloop.embedded.pipeline.DemoBatch.faultMix(), "duckdb", 7);
        try (dev.sqloop.testkit.llm.SimulatedLlm llm = dev.sqloop.testkit.llm.SimulatedLlm.start(oracle, 7);
             dev.sqloop.embedded.pipeline.EmbeddedPipeline gateway = dev.sqloop.embedded.pipeline.EmbeddedPipeline.start(work.resolve("gateway"), settings, llm, false)) {
            dev.sqloop.cli.GatewayClient client = new dev.sqloop.cli.GatewayClient(gateway.gatewayUrl(), null);
            for (var seed : SEEDS.entrySet()) {
                client.postJson("/v1/examples", dev.sqloop.common.JsonCodec.encodeToString(Map.of("question", seed.getKey(),
                        "datasource", "restaurants", "sql", seed.getValue())), 200, 201, 202);
            }
            long until = System.nanoTime() + java.time.Duration.ofSeconds(60).toNanos();
            while (EvalMemory.read(client, List.of("restaurants")).get("restaurants").count() < SEEDS.size()) {
                assertTrue(System.nanoTime() < until, "the seeds are stored within a minute");
                Thread.sleep(200);
            }

            EvalReport report = Eval.evaluate(cases, List.of(1, 3), settings, out, new Eval.Options(gateway.gatewayUrl(), null, null, "default", 7, 2));
            System.out.print(report.comparison());

            // every configuration started from the seeds alone and left them so
            assertEquals(Boolean.TRUE, report.sameMemory(), report.memory(1) + " / " + report.memory(3));
            assertEquals(SEEDS.size(), report.memory(3).atStart().get("restaurants").count());
            assertEquals(report.memory(1).atStart(), report.memory(3).atStart());
            java.time.Instant secondRun = java.time.Instant.parse(client.get("/v1/batches/"
                    + Files.readString(out.resolve("max-attempts-3/batch-id")).strip()).path("createdAt").asText());
            java.util.Set<String> seen = new java.util.TreeSet<>();
            int withSeeds = 0;
            for (var r : llm.requests()) {
                java.util.regex.Matcher q = java.util.regex.Pattern.compile("(?m)^Q: (.*)$").matcher(r.system());
                boolean any = false;
                while (q.find()) {
                    seen.add(q.group(1).strip());
                    any = true;
                }
                if (any && r.at().isAfter(secondRun)) withSeeds++;
            }
            assertEquals(SEEDS.keySet(), seen, "the prompts of both runs carry the seeds and no example either run would have captured");
            assertTrue(withSeeds > 0, "the second run's prompts do carry examples: the check above is not vacuous");
            for (int m : List.of(1, 3)) assertEquals(0, report.summary(m).withoutLlm(), "no question answered from a stored answer (max " + m + ")");

            // what each question says with it reaches the prompt
            List<EvalCase> instructed = cases.stream().filter(c -> c.instructions() != null).toList();
            assertFalse(instructed.isEmpty(), "restaurants has questions with instructions");
            for (EvalCase c : instructed) {
                assertFalse(llm.requestsMentioning(dev.sqloop.generator.PromptBuilder.INSTRUCTIONS + c.instructions()).isEmpty(),
                        c.id() + ": its instructions reach the LLM");
            }

            // the check sees a change: the same questions with capture on (as users submit them) grow the memory
            var before = EvalMemory.read(client, List.of("restaurants"));
            StringBuilder jsonl = new StringBuilder();
            cases.stream().filter(c -> c.datasource().equals("restaurants")).limit(5).forEach(c -> jsonl.append(dev.sqloop.common.JsonCodec
                    .encodeToString(Map.of("question", c.question(), "datasource", c.datasource(), "maxAttempts", 3))).append('\n'));
            client.submitBatchFile(Files.writeString(work.resolve("captured.jsonl"), jsonl));
            until = System.nanoTime() + java.time.Duration.ofSeconds(120).toNanos();
            while (EvalMemory.read(client, List.of("restaurants")).equals(before)) {
                assertTrue(System.nanoTime() < until, "questions submitted with capture on are captured");
                Thread.sleep(500);
            }
        }

        // questions.jsonl keeps each question's reason, and the report's figures are what this test counts from it
        List<com.fasterxml.jackson.databind.JsonNode> lines = new java.util.ArrayList<>();
        for (String l : Files.readAllLines(out.resolve(Eval.QUESTIONS))) lines.add(dev.sqloop.common.JsonCodec.mapper().readTree(l));
        assertEquals(2 * cases.size(), lines.size());
        for (var l : lines) {
            String id = l.path("id").asText() + "@" + l.path("maxAttempts").asInt();
            for (String field : List.of("question", "outcome", "attempts", "gold")) assertTrue(l.hasNonNull(field), id + " has " + field);
            if ("succeeded".equals(l.path("status").asText())) {
                assertTrue(l.hasNonNull("sql") && !l.has("lastRejectedSql"), id + ": a success keeps its final SQL");
            } else {
                assertTrue(!l.has("sql") && l.hasNonNull("lastRejectedSql"), id + ": a failure keeps its last refused SQL: " + l);
            }
            if (!"first_attempt_success".equals(l.path("outcome").asText())) {
                var e = l.path("firstError");
                assertTrue(e.hasNonNull("category") && e.hasNonNull("stage") && e.hasNonNull("message"), id + ": the first error, whole: " + l);
            }
        }
        Path tsDir = out.resolve("ts");
        for (int m : List.of(1, 3)) {
            int[] mine = independentCount(lines.stream().filter(l -> l.path("maxAttempts").asInt() == m).toList(), tsDir);
            EvalReport.Summary s = reread(out, m);
            System.out.printf("max %d: report VA %d EX %d TS %d EM %d; independent VA %d EX %d TS %d EM %d%n", m, s.va(), s.ex(), s.ts(), s.em(),
                    mine[0], mine[1], mine[2], mine[3]);
            assertEquals(List.of(mine[0], mine[1], mine[2], mine[3]), List.of(s.va(), s.ex(), s.ts(), s.em()), "max " + m + ": VA, EX, TS, EM");
            assertEquals(cases.size(), s.tsScope(), "every DuckDB question is in TS's scope");
            assertTrue(s.ts() <= s.ex());
        }
        assertTrue(reread(out, 1).ex() < reread(out, 3).ex(), "retries raise EX");
    }

    private static EvalReport.Summary reread(Path out, int maxAttempts) throws Exception {
        var json = dev.sqloop.common.JsonCodec.mapper().readTree(out.resolve("report.json").toFile());
        for (var c : json.path("configurations")) {
            if (c.path("maxAttempts").asInt() == maxAttempts) return dev.sqloop.common.JsonCodec.mapper().treeToValue(c, EvalReport.Summary.class);
        }
        throw new AssertionError("no configuration " + maxAttempts + " in report.json");
    }

    /**
     * VA, EX, TS and EM counted here from questions.jsonl alone: each final SQL and each accepted gold form run with
     * plain JDBC on the DuckDB file and on its neighbour copies, results compared as sorted rows of values rounded to
     * six significant digits (the oracle answers a gold form or a broken query, so order never decides here).
     */
    private static int[] independentCount(List<com.fasterxml.jackson.databind.JsonNode> lines, Path tsDir) throws Exception {
        int va = 0, ex = 0, ts = 0, em = 0;
        for (var l : lines) {
            String sql = l.hasNonNull("sql") ? l.get("sql").asText() : null;
            if (sql == null) continue;
            String ds = l.path("datasource").asText();
            Path original = Path.of(settings.get("SQLOOP_DATASOURCE_" + ds.toUpperCase(java.util.Locale.ROOT) + "_URL").substring("jdbc:duckdb:".length()));
            List<String> answer = rows(original, sql);
            if (answer == null) continue;
            va++;
            List<String> forms = dev.sqloop.common.sql.GoldSql.forms(l.path("gold").asText());
            String matched = forms.stream().filter(f -> answer.equals(rowsQuietly(original, f))).findFirst().orElse(null);
            if (matched != null) {
                ex++;
                boolean everywhere = true;
                for (int i = 1; i <= 2; i++) {
                    Path n = tsDir.resolve(ds + "-ts" + i + ".duckdb");
                    List<String> g = rowsQuietly(n, matched);
                    if (g != null) everywhere &= g.equals(rowsQuietly(n, sql));
                }
                if (everywhere) ts++;
            }
            String norm = sql.strip().replaceAll("\\s+", " ").replaceAll(";$", "").toLowerCase(java.util.Locale.ROOT);
            if (forms.stream().anyMatch(f -> f.strip().replaceAll("\\s+", " ").replaceAll(";$", "").toLowerCase(java.util.Locale.ROOT).equals(norm))) em++;
        }
        return new int[] {va, ex, ts, em};
    }

    private static List<String> rowsQuietly(Path file, String sql) {
        try {
            return rows(file, sql);
        } catch (Exception e) {
            return null;
        }
    }

    private static List<String> rows(Path file, String sql) throws Exception {
        java.util.Properties readOnly = new java.util.Properties();
        readOnly.setProperty("duckdb.read_only", "true");
        try (var c = java.sql.DriverManager.getConnection("jdbc:duckdb:" + file, readOnly); var st = c.createStatement();
             var rs = st.executeQuery(sql)) {
            List<String> out = new java.util.ArrayList<>();
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                StringBuilder row = new StringBuilder();
                for (int i = 1; i <= n; i++) {
                    Object v = rs.getObject(i);
                    row.append(v instanceof Number x ? new java.math.BigDecimal(x.toString()).round(new java.math.MathContext(6)).stripTrailingZeros().toPlainString()
                            : String.valueOf(v)).append('|');
                }
                out.add(row.toString());
            }
            java.util.Collections.sort(out);
            return out;
        } catch (java.sql.SQLException e) {
            return null;
        }
    }
}
