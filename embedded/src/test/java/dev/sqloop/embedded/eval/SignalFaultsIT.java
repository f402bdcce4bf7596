package dev.sqloop.embedded.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.cli.GatewayClient;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.embedded.pipeline.EmbeddedPipeline;
import dev.sqloop.testkit.TestDirs;
import dev.sqloop.testkit.llm.Fault;
import dev.sqloop.testkit.llm.Injection;
import dev.sqloop.testkit.llm.OracleResponder;
import dev.sqloop.testkit.llm.RecordedRequest;
import dev.sqloop.testkit.llm.SimulatedLlm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 46's fault classes through the whole pipeline on every engine the project starts (DuckDB, PostgreSQL, Trino,
 * Spark SQL, Hive): another dialect's constructs (SELECT TOP n, backticks or [brackets], IFNULL/NVL, DATE_FORMAT/GETDATE,
 * LIMIT a, b), an aggregate or a window function in WHERE, and a join on the wrong key that runs and returns no rows. Each
 * kind is injected once per engine where it is foreign there (the simulated LLM's opt-in kinds); each must get the right
 * error category, a correction prompt that names the construct (or the empty answer and the join) outside the failed
 * SQL, and be repaired at attempt 2. The datasources ask for the empty-answer repair round
 * ({@code _EMPTY_ANSWER_REPAIR=true}); without it a silent join ends {@code first_attempt_success} with the hint only.
 * Prints a table per kind and engine.
 */
class SignalFaultsIT {
    private static final Map<String, String> ENGINES = BatchRuns.engines();

    private record Gold(String question, String sql) {}

    /** A plain gold ending in LIMIT n (TOP, LIMIT a, b), whose first column gets quoted, and that takes a period label. */
    private static final Gold LIMITED = new Gold("Name 3 active customers and their country.",
            "SELECT sbCustName, sbCustCountry FROM sbCustomer WHERE sbCustStatus = 'active' LIMIT 3");
    private static final Map<Fault, Gold> GOLD = new EnumMap<>(Fault.class);

    static {
        GOLD.put(Fault.FOREIGN_TOP, LIMITED);
        GOLD.put(Fault.FOREIGN_QUOTING, LIMITED);
        GOLD.put(Fault.FOREIGN_DATE_FUNCTION, LIMITED);
        GOLD.put(Fault.FOREIGN_LIMIT_OFFSET, LIMITED);
        GOLD.put(Fault.FOREIGN_NULL_FUNCTION, new Gold("What currency did each successful transaction use, USD where none is recorded?",
                "SELECT sbTxId, COALESCE(sbTxCcy, 'USD') AS currency FROM sbTransaction WHERE sbTxStatus = 'success'"));
        GOLD.put(Fault.AGGREGATE_IN_WHERE, new Gold("Which states have more than 2 customers, and how many customers each?",
                "SELECT sbCustState, COUNT(*) AS num_customers FROM sbCustomer GROUP BY sbCustState HAVING COUNT(*) > 2"));
        GOLD.put(Fault.WINDOW_IN_WHERE, new Gold("List the first 3 stock tickers by symbol with their names.",
                "SELECT sbTickerSymbol, sbTickerName FROM sbTicker WHERE sbTickerType = 'stock' ORDER BY sbTickerSymbol LIMIT 3"));
        GOLD.put(Fault.SILENT_JOIN, new Gold("Which customers made sell transactions, and which transactions were they?",
                "SELECT c.sbCustName, t.sbTxId FROM sbCustomer c JOIN sbTransaction t ON c.sbCustId = t.sbTxCustId WHERE t.sbTxType = 'sell'"));
    }

    private static final Map<Fault, String> CATEGORY = new EnumMap<>(Map.of(
            Fault.FOREIGN_TOP, "syntax_error", Fault.FOREIGN_QUOTING, "syntax_error", Fault.FOREIGN_LIMIT_OFFSET, "syntax_error",
            Fault.FOREIGN_NULL_FUNCTION, "unsupported_function", Fault.FOREIGN_DATE_FUNCTION, "unsupported_function",
            Fault.AGGREGATE_IN_WHERE, "aggregation_error", Fault.WINDOW_IN_WHERE, "aggregation_error", Fault.SILENT_JOIN, "join_error"));

    private static Path work;
    private static final Map<String, String> settings = new HashMap<>();

    @BeforeAll
    static void engines() throws Exception {
        work = TestDirs.create("signal-faults-");
        settings.putAll(BatchRuns.brokerOnEveryEngine(work));
        ENGINES.keySet().forEach(name -> settings.put("SQLOOP_DATASOURCE_" + name.toUpperCase(Locale.ROOT) + "_EMPTY_ANSWER_REPAIR", "true"));
    }

    private record Case(String question, String datasource, String dialect, Fault fault, String gold) {}

    private static List<Case> cases() {
        List<Case> out = new ArrayList<>();
        for (Fault f : Fault.signal()) {
            ENGINES.forEach((ds, dialect) -> out.add(new Case("[" + ds + " " + f.name().toLowerCase(Locale.ROOT) + "] " + GOLD.get(f).question(),
                    ds, dialect, f, GOLD.get(f).sql())));
        }
        return out;
    }

    /** What the correction prompt must name, outside the failed SQL: the construct and this dialect's way, or the finding. */
    private static List<String> names(Injection i, String dialect) {
        boolean hiveLike = dialect.equals("hive") || dialect.equals("sparksql");
        return switch (i.fault()) {
            case FOREIGN_TOP -> List.of("top", "limit 3");
            case FOREIGN_QUOTING -> hiveLike ? List.of("bracketed", "backticks") : List.of("backtick", "double quotes");
            case FOREIGN_NULL_FUNCTION -> List.of(i.identifier() + "()", "coalesce");
            case FOREIGN_DATE_FUNCTION -> List.of(i.identifier() + "()", i.evidence().getFirst());
            case FOREIGN_LIMIT_OFFSET -> List.of("mysql", "offset");
            case AGGREGATE_IN_WHERE -> List.of("aggregate function in where", "having");
            case WINDOW_IN_WHERE -> List.of("window function", "subquery");
            case SILENT_JOIN -> List.of("returned no rows", "join compares", i.identifier().toLowerCase(Locale.ROOT));
            default -> throw new IllegalArgumentException(i.fault().name());
        };
    }

    @Test
    void shouldNameRepairAndCountEachSignalFaultOnEveryEngine() throws Exception {
        Map<String, String> gold = new LinkedHashMap<>();
        Map<String, String> dialects = new LinkedHashMap<>();
        Map<String, Fault> faults = new LinkedHashMap<>();
        Map<String, Case> byQuestion = new LinkedHashMap<>();
        for (Case c : cases()) {
            gold.put(c.question(), c.gold());
            dialects.put(c.question(), c.dialect());
            faults.put(c.question(), c.fault());
            byQuestion.put(c.question(), c);
        }
        OracleResponder oracle = new OracleResponder(gold, Map.of(), "postgres", 7).withDialects(dialects).withFaults(faults);
        StringBuilder jsonl = new StringBuilder();
        byQuestion.values().forEach(c -> jsonl.append(JsonCodec.encodeToString(Map.of("question", c.question(), "datasource", c.datasource(),
                "maxAttempts", 3, "capture", false, "clientId", Integer.toString(c.question().hashCode())))).append('\n'));

        Map<Fault, Map<String, String>> matrix = new EnumMap<>(Fault.class);
        Map<Fault, int[]> rate = new EnumMap<>(Fault.class);
        List<String> lines = new ArrayList<>();
        List<String> wrong = new ArrayList<>();
        try (SimulatedLlm llm = SimulatedLlm.start(oracle, 7);
             EmbeddedPipeline pipeline = EmbeddedPipeline.start(work.resolve("pipeline"), settings, llm, false)) {
            GatewayClient client = new GatewayClient(pipeline.gatewayUrl(), null);
            List<JsonNode> results = BatchRuns.submitAndCollect(client, work.resolve("batch.jsonl"), jsonl, Duration.ofMinutes(20));
            List<RecordedRequest> requests = llm.requests();
            for (JsonNode r : results) {
                Case c = byQuestion.get(r.path("question").asText());
                Injection i = oracle.injectionFor(c.question());
                if (i.fault() != c.fault()) { // the construct is this dialect's own: not made here
                    matrix.computeIfAbsent(c.fault(), k -> new LinkedHashMap<>()).put(c.datasource(), "n/a");
                    continue;
                }
                Eval.FirstError first = Eval.firstError(client.getPatiently("/v1/questions/" + r.path("questionId").asText() + "/trace",
                        Duration.ofSeconds(30)), r);
                String prompt = requests.stream().filter(q -> q.call().lastUser().contains(c.question())
                        && q.call().lastUser().contains("Failed SQL")).map(q -> q.call().lastUser()).findFirst().orElse("");
                int at = prompt.indexOf("\n\nError:");
                String advice = (at < 0 ? "" : prompt.substring(at)).toLowerCase(Locale.ROOT);
                List<String> missing = names(i, c.dialect()).stream().filter(n -> !advice.contains(n)).toList();
                boolean category = first != null && CATEGORY.get(c.fault()).equals(first.category());
                boolean fixed = "corrected_success".equals(r.path("reason").asText()) && r.path("attempts").asInt() == 2;
                String cell = (category ? "C" : "c") + (missing.isEmpty() ? "N" : "n") + (fixed ? "F" : "f");
                matrix.computeIfAbsent(c.fault(), k -> new LinkedHashMap<>()).put(c.datasource(), cell);
                int[] counts = rate.computeIfAbsent(c.fault(), k -> new int[2]);
                counts[1]++;
                if (fixed) counts[0]++;
                String detail = String.format(Locale.ROOT, "%-6s %-22s %-18s %-20s %-15s %s", c.datasource(), c.fault(), r.path("reason").asText(),
                        first == null ? "-" : first.category(), first == null ? "-" : first.stage(), first == null ? "-" : oneLine(first.message()));
                lines.add(detail);
                if (!category || !missing.isEmpty() || !fixed) {
                    wrong.add(detail + "\n        faulty: " + i.faultyAnswer() + "\n        prompt lacks: " + missing + "\n        advice: " + oneLine(advice));
                }
            }
        }
        lines.sort(null);
        System.out.println("engine kind                   outcome            first error          stage           message");
        lines.forEach(System.out::println);
        System.out.println("\nper kind and engine: C right category, N the prompt names the construct or evidence, F repaired at attempt 2"
                + " (lower case: not); n/a: the construct is the dialect's own");
        System.out.printf(Locale.ROOT, "%-22s %-6s %-6s %-6s %-6s %-6s fixed%n", "kind", "duck", "pg", "trino", "spark", "hive");
        for (Fault f : Fault.signal()) {
            Map<String, String> row = matrix.getOrDefault(f, Map.of());
            int[] n = rate.getOrDefault(f, new int[2]);
            System.out.printf(Locale.ROOT, "%-22s %-6s %-6s %-6s %-6s %-6s %d/%d%n", f, row.get("duck"), row.get("pg"), row.get("trino"),
                    row.get("spark"), row.get("hive"), n[0], n[1]);
        }
        int fixed = rate.values().stream().mapToInt(n -> n[0]).sum();
        int made = rate.values().stream().mapToInt(n -> n[1]).sum();
        System.out.printf(Locale.ROOT, "all kinds: %d/%d repaired%n", fixed, made);
        assertEquals(cases().size(), lines.size() + matrix.values().stream().mapToLong(m -> m.values().stream().filter("n/a"::equals).count()).sum(),
                "every question has a result");
        assertEquals(38, made, "8 kinds on 5 engines, less LIMIT a, b on Hive and a null function on Spark");
        assertEquals(List.of(), wrong, "each kind gets its category, a prompt naming it, and the repair");
    }

    private static String oneLine(String s) {
        String m = s == null ? "" : s.replaceAll("\\s+", " ").strip();
        return m.length() > 200 ? m.substring(0, 199) + "…" : m;
    }
}
