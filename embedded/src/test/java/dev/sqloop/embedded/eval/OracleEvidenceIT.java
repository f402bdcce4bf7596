package dev.sqloop.embedded.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.cli.GatewayClient;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.embedded.pipeline.EmbeddedPipeline;
import dev.sqloop.testkit.TestDirs;
import dev.sqloop.testkit.engines.HiveServer;
import dev.sqloop.testkit.engines.PostgresServer;
import dev.sqloop.testkit.engines.SparkThriftServer;
import dev.sqloop.testkit.engines.TrinoServer;
import dev.sqloop.testkit.llm.Fault;
import dev.sqloop.testkit.llm.Injection;
import dev.sqloop.testkit.llm.OracleResponder;
import dev.sqloop.testkit.llm.SimulatedLlm;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The simulated LLM repairs a mistake only when the correction prompt carries the evidence of it; so its expectations
 * must match what the pipeline really reports on each engine, or {@code eval --llm simulated} under-reports correction
 * there (issue 45: every type mismatch on PostgreSQL ended {@code unchanged_sql}). Here every fault kind is made on
 * every engine the dialects run on (DuckDB, PostgreSQL, Trino, Spark SQL, Hive), through the whole pipeline: the real
 * validator, the real engines' errors, the real correction prompt. Each faulty first attempt must fail and be repaired
 * at attempt 2. Prints each first error (stage, category, message) as the engine or validator worded it.
 */
class OracleEvidenceIT {
    /** The gold of every fault but a missing GROUP BY: no aggregation, so Hive answers it without a MapReduce job. */
    private static final String GOLD = "SELECT sbCustName, sbCustCountry FROM sbCustomer WHERE sbCustStatus = 'active'";
    private static final String QUESTION = "Which active customers are there, and in which country?";
    /** A missing GROUP BY needs a gold that groups. */
    private static final String GROUPED_GOLD = "SELECT sbCustCountry, COUNT(*) AS num_customers FROM sbCustomer GROUP BY sbCustCountry";
    private static final String GROUPED_QUESTION = "How many customers are there in each country?";
    /** Datasource name → dialect: one per engine. */
    private static final Map<String, String> ENGINES = BatchRuns.engines();

    private static Path work;
    private static final Map<String, String> settings = new HashMap<>();
    private static final Map<String, java.util.concurrent.Callable<Connection>> readers = new LinkedHashMap<>();

    @BeforeAll
    static void engines() throws Exception {
        work = TestDirs.create("oracle-evidence-");
        settings.putAll(BatchRuns.brokerOnEveryEngine(work));
        PostgresServer pg = PostgresServer.shared();
        TrinoServer trino = TrinoServer.shared();
        SparkThriftServer spark = SparkThriftServer.shared();
        HiveServer hive = HiveServer.shared();
        Path duck = work.resolve("broker.duckdb");
        readers.put("duck", () -> DriverManager.getConnection("jdbc:duckdb:" + duck.toAbsolutePath(), readOnly()));
        readers.put("pg", () -> PostgresServer.reader(pg.jdbcUrl("broker")));
        readers.put("trino", () -> DriverManager.getConnection(trino.jdbcUrl("memory", "broker"), "sqloop", null));
        readers.put("spark", () -> spark.connect("broker"));
        readers.put("hive", () -> DriverManager.getConnection(hive.jdbcUrl("broker"), "sqloop", ""));
    }

    private static java.util.Properties readOnly() {
        java.util.Properties p = new java.util.Properties();
        p.setProperty("duckdb.read_only", "true");
        return p;
    }

    /** One question per engine and fault kind, its gold, dialect and fault. */
    private record Case(String question, String datasource, String dialect, Fault fault, String gold) {}

    private static List<Case> cases() {
        List<Case> out = new ArrayList<>();
        ENGINES.forEach((ds, dialect) -> {
            for (Fault f : Fault.classic()) {
                if (f == Fault.NONE) continue;
                boolean grouped = f == Fault.MISSING_GROUP_BY;
                out.add(new Case("[" + ds + " " + f.name().toLowerCase(Locale.ROOT) + "] " + (grouped ? GROUPED_QUESTION : QUESTION),
                        ds, dialect, f, grouped ? GROUPED_GOLD : GOLD));
            }
        });
        return out;
    }

    private static OracleResponder oracle() {
        Map<String, String> gold = new LinkedHashMap<>();
        Map<String, String> dialects = new LinkedHashMap<>();
        Map<String, Fault> faults = new LinkedHashMap<>();
        for (Case c : cases()) {
            gold.put(c.question(), c.gold());
            dialects.put(c.question(), c.dialect());
            faults.put(c.question(), c.fault());
        }
        return new OracleResponder(gold, Map.of(), "postgres", 7).withDialects(dialects).withFaults(faults);
    }

    /**
     * The faulty SQL of every fault kind the engine itself would see (not a write, which the executor never runs, nor
     * prose), run on each engine directly: the engine must refuse it (else it is no mistake there), and its own message
     * must hold the evidence the oracle expects, so that the oracle repairs it whichever stage reports it. The
     * oracle's simulated message for that engine (what tests without the engine get) must hold the evidence too.
     */
    @Test
    void shouldExpectEachEnginesOwnWording() throws Exception {
        OracleResponder oracle = oracle();
        List<String> table = new ArrayList<>();
        List<String> wrong = new ArrayList<>();
        for (Case c : cases()) {
            if (c.fault() == Fault.WRITE_STATEMENT || c.fault() == Fault.PROSE) continue;
            Injection i = oracle.injectionFor(c.question());
            String message;
            try (Connection conn = readers.get(c.datasource()).call(); java.sql.Statement st = conn.createStatement()) {
                st.setQueryTimeout(120);
                st.setMaxRows(10);
                try (var rs = st.executeQuery(i.faultyAnswer())) {
                    message = null;
                }
            } catch (java.sql.SQLException e) {
                message = firstPart(e.getMessage());
            }
            String cell = String.format(Locale.ROOT, "%-6s %-17s %s", c.datasource(), c.fault(),
                    message == null ? "(ran without an error)" : message.replaceAll("\\s+", " ").strip());
            table.add(cell + "\n       simulated: " + oneLine(i.errorMessage()));
            if (message == null || !OracleResponder.evidenceIn(message, i)) wrong.add(cell + "\n       evidence expected: " + i.evidence());
            if (!OracleResponder.evidenceIn(i.errorMessage(), i)) wrong.add(cell + "\n       the simulated message lacks the evidence: " + i.errorMessage());
        }
        System.out.println("engine fault             the engine's own message");
        table.forEach(System.out::println);
        assertEquals(List.of(), wrong, "each engine refuses each fault in words the oracle recognises");
    }

    /** The engine's message without the server's stack trace (Spark appends kilobytes of it). */
    private static String firstPart(String message) {
        if (message == null) return "";
        int at = message.indexOf("\n\tat ");
        return at >= 0 ? message.substring(0, at) : message;
    }

    @Test
    void shouldRepairEveryFaultKindOnEveryEngineFromTheErrorThePipelineReports() throws Exception {
        Map<String, String> datasourceOf = new LinkedHashMap<>();
        Map<String, Fault> faults = new LinkedHashMap<>();
        cases().forEach(c -> {
            datasourceOf.put(c.question(), c.datasource());
            faults.put(c.question(), c.fault());
        });
        OracleResponder oracle = oracle();
        StringBuilder jsonl = new StringBuilder();
        datasourceOf.keySet().forEach(q -> jsonl.append(JsonCodec.encodeToString(Map.of("question", q, "datasource", datasourceOf.get(q),
                "maxAttempts", 2, "capture", false, "clientId", Integer.toString(q.hashCode())))).append('\n'));

        List<String> table = new ArrayList<>();
        List<String> unrepaired = new ArrayList<>();
        try (SimulatedLlm llm = SimulatedLlm.start(oracle, 7);
             EmbeddedPipeline pipeline = EmbeddedPipeline.start(work.resolve("pipeline"), settings, llm, false)) {
            GatewayClient client = new GatewayClient(pipeline.gatewayUrl(), null);
            List<JsonNode> results = BatchRuns.submitAndCollect(client, work.resolve("batch.jsonl"), jsonl, Duration.ofMinutes(15));
            for (JsonNode r : results) {
                String q = r.path("question").asText();
                Eval.FirstError first = Eval.firstError(client.getPatiently("/v1/questions/" + r.path("questionId").asText() + "/trace",
                        Duration.ofSeconds(30)), r);
                Injection i = oracle.injectionFor(q);
                String cell = String.format(Locale.ROOT, "%-6s %-17s %-18s %-16s %-14s %s", datasourceOf.get(q), faults.get(q),
                        r.path("reason").asText(), first == null ? "-" : first.category(), first == null ? "-" : first.stage(),
                        first == null ? "(no error: the faulty SQL ran)" : oneLine(first.message()));
                table.add(cell);
                if (!"corrected_success".equals(r.path("reason").asText()) || r.path("attempts").asInt() != 2) {
                    unrepaired.add(cell + "\n        faulty: " + i.faultyAnswer() + "\n        evidence expected: " + i.evidence());
                }
            }
        }
        table.sort(null);
        System.out.println("engine fault             outcome            first error      stage          message");
        table.forEach(System.out::println);
        assertEquals(datasourceOf.size(), table.size(), "every question has a result");
        assertEquals(List.of(), unrepaired, "every fault fails its first attempt on the engine and is repaired from the error reported");
    }

    private static String oneLine(String s) {
        String m = s == null ? "" : s.replaceAll("\\s+", " ").strip();
        return m.length() > 220 ? m.substring(0, 219) + "…" : m;
    }
}
