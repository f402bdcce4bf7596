package dev.sqloop.embedded;

import dev.sqloop.embedded.pipeline.EmbeddedPipeline;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.cli.GatewayClient;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.testkit.TestDirs;
import dev.sqloop.testkit.llm.Fault;
import dev.sqloop.testkit.llm.OracleResponder;
import dev.sqloop.testkit.llm.SilentVariants;
import dev.sqloop.testkit.llm.SimulatedLlm;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Several candidates through the whole pipeline (issue 50): real Kafka, a DuckDB warehouse, the simulated LLM over HTTP,
 * {@code SQLOOP_DATASOURCE_SALES_CANDIDATES=3} as a user sets it. One question's own attempt
 * (candidate 1) is a silent variant of its gold SQL — it runs, no error — and the two other candidates answer the gold:
 * the selector outvotes it and the question succeeds with the gold SQL. Another question's candidates 2 and 3 are two
 * different silent variants: three results, no agreement, the question ends {@code uncertain} with no SQL and its three
 * candidates kept. The data makes every variant's answer differ from the gold's and from each other's.
 */
class CandidatesPipelineIT {

    static final String GOLD = "SELECT region, SUM(amount) AS total FROM sales WHERE day >= DATE '2024-03-01' AND amount > 0"
            + " GROUP BY region ORDER BY total DESC LIMIT 2";
    static final String OUTVOTED = "Which two regions sold the most since March 2024?";
    static final String TIE = "What are the top two regions by sales from March 2024 on?";

    /**
     * Sales where the gold answer (south 55, west 40) and each silent variant differ: from the day after (west 40, east 32),
     * without the date filter (east 1031, north 130), AVG (west 40, south 27.5), ascending (north 30, east 32), LIMIT 1
     * (south 55).
     */
    private static Path warehouse(Path dir) throws SQLException {
        Path file = dir.resolve("sales.duckdb");
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:" + file.toAbsolutePath()); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE sales (region VARCHAR, day DATE, amount INTEGER)");
            st.execute("INSERT INTO sales VALUES ('north', DATE '2024-02-15', 100), ('north', DATE '2024-03-01', 10),"
                    + " ('north', DATE '2024-03-05', 20), ('south', DATE '2024-03-01', 50), ('south', DATE '2024-04-01', 5),"
                    + " ('east', DATE '2024-03-10', 31), ('east', DATE '2024-03-11', 1), ('east', DATE '2024-02-01', 1000),"
                    + " ('west', DATE '2024-03-20', -5), ('west', DATE '2024-03-21', 40)");
        }
        return file;
    }

    static final String BATCHED = "Which two regions had the highest sales from March 2024?";
    static final String PLAIN = "Name the two regions with the most sales since March 2024.";
    static final String JUDGED = "What were the two best-selling regions starting March 2024?";
    static final String REPAIRED = "Which two regions led sales from March 2024 onward?";
    static final String OWN_FAILS = "Which two regions brought in the most since March 2024?";
    static final Map<String, String> GOLDS = Map.of(OUTVOTED, GOLD, TIE, GOLD, BATCHED, GOLD, PLAIN, GOLD, JUDGED, GOLD, REPAIRED, GOLD,
            OWN_FAILS, GOLD);

    static OracleResponder oracle;
    static EmbeddedPipeline pipeline;
    static GatewayClient client;

    /**
     * One pipeline for every case, three datasources on copies of the same data: {@code sales} asks for three candidates
     * by its setting, {@code single} for one (the default), {@code judged} for three with {@code _TIE_BREAK=true}.
     */
    @BeforeAll
    static void start() throws Exception {
        Path work = TestDirs.create("candidates-pipeline-");
        assertEquals(5, SilentVariants.of(GOLD).size(), "every variant but the join's applies");
        oracle = new OracleResponder(GOLDS, Map.of(Fault.NONE, 1.0), "duckdb", 7).withFaults(Map.of(OWN_FAILS, Fault.WRONG_COLUMN))
                .withSilentCandidates(Map.of(OUTVOTED, Set.of(1), TIE, Set.of(2, 3), BATCHED, Set.of(1), JUDGED, Set.of(1, 3), REPAIRED, Set.of(1)))
                .withFailingCandidates(Map.of(REPAIRED, Set.of(2)));
        Map<String, String> settings = new HashMap<>();
        for (String ds : List.of("SALES", "SINGLE", "JUDGED")) {
            Path dir = java.nio.file.Files.createDirectories(work.resolve(ds.toLowerCase(java.util.Locale.ROOT)));
            settings.put("SQLOOP_DATASOURCE_" + ds + "_DIALECT", "duckdb");
            settings.put("SQLOOP_DATASOURCE_" + ds + "_URL", "jdbc:duckdb:" + warehouse(dir).toAbsolutePath());
        }
        settings.put("SQLOOP_DATASOURCE_SALES_CANDIDATES", "3");
        settings.put("SQLOOP_DATASOURCE_JUDGED_CANDIDATES", "3");
        settings.put("SQLOOP_DATASOURCE_JUDGED_TIE_BREAK", "true");
        pipeline = EmbeddedPipeline.start(work.resolve("pipeline"), settings, SimulatedLlm.start(oracle, 7), false);
        client = new GatewayClient(pipeline.gatewayUrl(), null);
    }

    @AfterAll
    static void stop() {
        if (pipeline != null) pipeline.close();
    }

    @Test
    void shouldOutvoteASilentVariantAndEndATieUncertain() throws Exception {
        String outvoted = OUTVOTED;
        String tie = TIE;
        Map<String, String> gold = GOLDS;
        String a = ask(client, outvoted);
        String b = ask(client, tie);
        JsonNode won = QuestionWait.awaitFinal(client, a);
        JsonNode uncertain = QuestionWait.awaitFinal(client, b);
        System.out.println("outvoted: " + won.toPrettyString() + "\nuncertain: " + uncertain.toPrettyString());

        assertEquals("succeeded", won.get("status").asText(), won.toString());
        assertEquals("first_attempt_success", won.get("reason").asText());
        assertEquals(gold.get(outvoted), won.get("sql").asText().strip(), "candidate 2, the gold SQL, answers");
        JsonNode cs = won.get("candidates");
        assertEquals(3, cs.size(), won.toString());
        assertEquals(oracle.silentVariantFor(outvoted, 1), cs.get(0).get("sql").asText(), "candidate 1 was the silent variant");
        assertEquals(cs.get(1).get("fingerprint").asText(), cs.get(2).get("fingerprint").asText(), "2 and 3 agree");
        assertNotEquals(cs.get(0).get("fingerprint").asText(), cs.get(1).get("fingerprint").asText());
        assertEquals(List.of("majority"), selections(client, a));

        assertEquals("failed", uncertain.get("status").asText(), uncertain.toString());
        assertEquals("uncertain", uncertain.get("reason").asText());
        assertFalse(uncertain.hasNonNull("sql"), "no answer is given");
        assertTrue(uncertain.get("errorMessage").asText().startsWith("no agreement: 3 candidates, all ran; results in 3 groups"),
                uncertain.toString());
        Set<String> fingerprints = new HashSet<>();
        uncertain.get("candidates").forEach(x -> fingerprints.add(x.get("fingerprint").asText()));
        assertEquals(3, fingerprints.size(), "three results kept for review: " + uncertain);
        assertEquals(List.of("uncertain"), selections(client, b));

        // one first attempt each, and two more candidates each: six calls, no repair
        assertEquals(1, requestsMentioning("Candidate 2 of 3", outvoted));
        assertEquals(1, requestsMentioning("Candidate 3 of 3", outvoted));
        assertEquals(1, requestsMentioning("Candidate 3 of 3", tie));
        assertEquals(0, requestsMentioning("regenerate", outvoted) + requestsMentioning("regenerate", tie));
        assertEquals(0, requestsMentioning(COMPARE, tie), "no tie-break where the datasource does not ask for it");
    }

    @Test
    void shouldAskForTheCandidatesABatchWantsOnADatasourceThatWantsOne() throws Exception {
        // a batch element asking for more than the bound is refused, naming the field and its line; nothing is enqueued
        GatewayClient.Answer refused = client.post("/v1/batches", JsonCodec.mapper().writeValueAsString(List.of(
                Map.of("question", PLAIN, "datasource", "single"), Map.of("question", PLAIN, "datasource", "single", "candidates", 10))));
        assertEquals(400, refused.status(), refused.text());
        assertEquals("candidates", refused.body().path("field").asText(), refused.text());
        assertEquals(2, refused.body().path("line").asInt(), refused.text());
        assertTrue(refused.text().contains("between 1 and 9"), refused.text());

        String batch = client.postJson("/v1/batches", JsonCodec.mapper().writeValueAsString(List.of(
                Map.of("question", BATCHED, "datasource", "single", "candidates", 3),
                Map.of("question", PLAIN, "datasource", "single"))), 202).get("batchId").asText();
        Map<String, JsonNode> results = awaitBatch(batch, 2);
        JsonNode three = results.get(BATCHED);
        assertEquals("succeeded", three.get("status").asText(), three.toString());
        assertEquals(GOLD, three.get("sql").asText().strip(), "candidate 1, a silent variant, is outvoted by 2 and 3");
        assertEquals(3, three.get("candidates").size(), "three candidates where the datasource's default is one: " + three);
        assertEquals(1, requestsMentioning("Candidate 3 of 3", BATCHED));
        JsonNode one = results.get(PLAIN);
        assertEquals("succeeded", one.get("status").asText(), one.toString());
        assertTrue(one.path("candidates").isEmpty(), "the element that asked nothing gets the datasource's one: " + one);
        assertEquals(0, requestsMentioning("Candidate 2 of", PLAIN));
    }

    @Test
    void shouldBreakATieByAPairwiseComparisonWhereTheDatasourceAsksForIt() throws Exception {
        // candidates 1 and 3 are two different silent variants, 2 the gold: three results, no majority
        String id = client.postJson("/v1/questions", JsonCodec.mapper().writeValueAsString(Map.of("question", JUDGED, "datasource", "judged")),
                202).get("id").asText();
        JsonNode judged = QuestionWait.awaitFinal(client, id);
        System.out.println("judged: " + judged.toPrettyString());
        assertEquals("succeeded", judged.get("status").asText(), judged.toString());
        assertEquals(GOLD, judged.get("sql").asText().strip(), "the comparison chose the gold candidate 2");
        Set<String> fingerprints = new HashSet<>();
        judged.get("candidates").forEach(x -> fingerprints.add(x.get("fingerprint").asText()));
        assertEquals(3, fingerprints.size(), "a real tie: " + judged);
        // 1 vs 2 (B wins), then 2 vs 3 (A wins): two comparison calls, through the real LLM client over HTTP
        assertEquals(2, requestsMentioning(COMPARE, JUDGED));
        JsonNode selection = null;
        for (JsonNode e : client.getPatiently("/v1/questions/" + id + "/trace", java.time.Duration.ofSeconds(30)).path("attempts")) {
            if ("selection".equals(e.path("kind").asText())) selection = e;
        }
        assertTrue(selection != null, "a selection event in the trace");
        assertEquals("pairwise", selection.path("decision").asText(), selection.toString());
        assertTrue(selection.path("reason").asText().contains("candidate 2 over 1 (candidate B is the gold SQL)"), selection.toString());
        assertTrue(selection.path("reason").asText().endsWith("candidate 2 chosen"), selection.toString());
    }

    /**
     * A failed candidate goes through repair (issue 50): candidate 1 is a silent variant, candidate 2 misspells a column
     * (DuckDB refuses it), candidate 3 is the gold SQL. Without repair that is one result against another, no answer;
     * candidate 2, corrected from DuckDB's own error, agrees with candidate 3 and the gold SQL wins 2 to 1.
     */
    @Test
    void shouldRepairAFailedCandidateAndLetItVote() throws Exception {
        String id = ask(client, REPAIRED);
        JsonNode r = QuestionWait.awaitFinal(client, id);
        System.out.println("repaired candidate: " + r.toPrettyString());
        assertEquals("succeeded", r.get("status").asText(), r.toString());
        assertEquals(GOLD, r.get("sql").asText().strip(), "candidate 2, repaired, and candidate 3 agree on the gold SQL");
        JsonNode second = r.get("candidates").get(1);
        assertEquals("ran", second.get("status").asText(), r.toString());
        assertEquals(2, second.get("attempt").asInt(), "its second attempt ran: " + second);
        assertEquals(r.get("candidates").get(2).get("fingerprint").asText(), second.get("fingerprint").asText());
        assertEquals(1, r.get("attempts").asInt(), "the question's own attempt was not spent: " + r);
        // one correction call, carrying the candidate's SQL and the engine's error
        List<String> corrections = pipeline.llm().requestsMentioning("region_nm").stream().map(x -> x.user())
                .filter(u -> u.contains(REPAIRED) && u.contains("Failed SQL")).toList();
        assertEquals(1, corrections.size(), "one repair of candidate 2: " + corrections);
        assertTrue(corrections.getFirst().contains("not found in FROM clause"), "DuckDB's own error: " + corrections.getFirst());
        // the trace events come on their own topic: the last can reach the view a moment after the result
        List<String> expected = List.of("repair-candidates", "candidates-repaired", "majority");
        List<String> seen = decisions(client, id);
        for (long end = System.nanoTime() + java.time.Duration.ofSeconds(30).toNanos(); !seen.equals(expected) && System.nanoTime() < end; ) {
            Thread.sleep(200);
            seen = decisions(client, id);
        }
        assertEquals(expected, seen, "the candidates' repair and the selection after it, in the trace");
    }

    /**
     * The question's own SQL misspells a column (the validator refuses it), candidates 2 and 3 answer the gold SQL: they
     * agree, the own SQL's repair could not outvote them, so they answer on the first attempt and no correction is asked.
     */
    @Test
    void shouldAnswerFromTheOtherCandidatesWhenTheOwnSqlIsRefused() throws Exception {
        String id = ask(client, OWN_FAILS);
        JsonNode r = QuestionWait.awaitFinal(client, id);
        System.out.println("own refused: " + r.toPrettyString());
        assertEquals("succeeded", r.get("status").asText(), r.toString());
        assertEquals(GOLD, r.get("sql").asText().strip(), "candidates 2 and 3 agree on the gold SQL");
        assertEquals(1, r.get("attempts").asInt(), r.toString());
        JsonNode own = r.get("candidates").get(0);
        assertEquals("failed", own.get("status").asText(), "the refused SQL is kept for review: " + own);
        assertEquals("column_not_found", own.get("issue").get("category").asText(), own.toString());
        assertEquals(0, (int) pipeline.llm().requestsMentioning("Failed SQL").stream().filter(x -> x.user().contains(OWN_FAILS)).count(),
                "no correction asked for");
    }

    static final String COMPARE = "Compare candidate A and candidate B";

    /** The simulated LLM's requests whose last user message holds {@code text} and is about {@code question}. */
    private static int requestsMentioning(String text, String question) {
        return (int) pipeline.llm().requestsMentioning(text).stream().filter(r -> r.user().contains(question)).count();
    }

    /** A batch's results by question, once its status says done; fails after 90 s. */
    private static Map<String, JsonNode> awaitBatch(String batchId, int count) throws Exception {
        long deadline = System.nanoTime() + java.time.Duration.ofSeconds(90).toNanos();
        while (true) {
            GatewayClient.Answer a = client.fetch("/v1/batches/" + batchId);
            if (a.status() == 200 && a.body().path("done").asBoolean()) break;
            assertTrue(System.nanoTime() < deadline, "batch never done: " + a.text());
            Thread.sleep(200);
        }
        Map<String, JsonNode> out = new HashMap<>();
        try (java.io.BufferedReader r = new java.io.BufferedReader(new java.io.InputStreamReader(
                client.stream("/v1/batches/" + batchId + "/results"), java.nio.charset.StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (line.isBlank()) continue;
                JsonNode n = JsonCodec.mapper().readTree(line);
                out.put(n.get("question").asText(), n);
            }
        }
        assertEquals(count, out.size(), "results: " + out.keySet());
        return out;
    }

    private static String ask(GatewayClient client, String question) throws Exception {
        return client.postJson("/v1/questions", JsonCodec.mapper().writeValueAsString(Map.of("question", question, "datasource", "sales")),
                202).get("id").asText();
    }

    /** The decisions of the question's candidate repairs and selections, in trace order. */
    private static List<String> decisions(GatewayClient client, String id) throws Exception {
        return decisions(client, id, Set.of("selection", "candidate-repair"));
    }

    /** The selector's decisions in the question's trace. */
    private static List<String> selections(GatewayClient client, String id) throws Exception {
        return decisions(client, id, Set.of("selection"));
    }

    private static List<String> decisions(GatewayClient client, String id, Set<String> kinds) throws Exception {
        List<String> out = new ArrayList<>();
        for (JsonNode e : client.getPatiently("/v1/questions/" + id + "/trace", java.time.Duration.ofSeconds(30)).path("attempts")) {
            if (kinds.contains(e.path("kind").asText())) out.add(e.path("decision").asText());
        }
        return out;
    }
}
