package dev.sqloop.embedded;

import dev.sqloop.embedded.pipeline.EmbeddedPipeline;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.cli.GatewayClient;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.testkit.TestDirs;
import dev.sqloop.testkit.engines.DefogDatasets;
import dev.sqloop.testkit.engines.DefogQuestions;
import dev.sqloop.testkit.llm.Fault;
import dev.sqloop.testkit.llm.OracleResponder;
import dev.sqloop.testkit.llm.SimulatedLlm;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The cost guard through the whole pipeline, configured as a user would ({@code SQLOOP_DATASOURCE_BROKER_MAX_SCAN_ROWS}),
 * on the defog broker database in DuckDB: the oracle's first answer reads the largest defog table whole
 * ({@code SELECT * FROM sbTransaction}, 56 rows by DuckDB's estimate) over a budget of 28 rows; the executor refuses it as
 * {@code too_expensive} with the table and the estimate; with that evidence in the correction prompt the oracle answers
 * the gold SQL (a filtered read, under the budget), which runs. Without the evidence it repeats itself and the question
 * ends {@code unchanged_sql} on {@code too_expensive}, never run.
 */
class CostGuardPipelineIT {
    /** Half of DuckDB's estimate for a full read of sbTransaction (56 rows). */
    static final String BUDGET_ROWS = "28";
    static final String QUESTION_START = "What is the monthly average transaction price";

    private static Map<String, String> settings(Path warehouse) {
        Map<String, String> s = new HashMap<>();
        s.put("SQLOOP_DATASOURCE_BROKER_DIALECT", "duckdb");
        s.put("SQLOOP_DATASOURCE_BROKER_URL", "jdbc:duckdb:" + warehouse.toAbsolutePath());
        s.put("SQLOOP_DATASOURCE_BROKER_MAX_SCAN_ROWS", BUDGET_ROWS);
        return s;
    }

    private static JsonNode ask(boolean stripEvidence) throws Exception {
        DefogQuestions.Question q = DefogQuestions.load().stream().filter(x -> x.question().startsWith(QUESTION_START))
                .findFirst().orElseThrow();
        Path work = TestDirs.create("cost-pipeline-");
        Path warehouse = DefogDatasets.loadIntoDuckDb("broker", work.resolve("broker.duckdb"));
        OracleResponder oracle = new OracleResponder(Map.of(q.question(), q.firstGold()), Map.of(Fault.NONE, 1.0), "duckdb", 7)
                .withCostlyFirstAnswers(Map.of(q.question(), "sbTransaction"));
        try (EmbeddedPipeline pipeline = EmbeddedPipeline.start(work.resolve("pipeline"), settings(warehouse),
                SimulatedLlm.start(oracle, 7), stripEvidence)) {
            GatewayClient client = new GatewayClient(pipeline.gatewayUrl(), null);
            String id = client.postJson("/v1/questions", JsonCodec.mapper().writeValueAsString(
                    Map.of("question", q.question(), "datasource", "broker")), 202).get("id").asText();
            JsonNode result = QuestionWait.awaitFinal(client, id);
            List<String> corrections = pipeline.llm().requestsMentioning("regenerate").stream()
                    .map(dev.sqloop.testkit.llm.RecordedRequest::user).toList();
            System.out.println((stripEvidence ? "without" : "with") + " the evidence: " + result.get("status").asText() + " / "
                    + result.get("reason").asText() + " after " + result.get("attempts").asInt() + " attempts; correction prompt:\n"
                    + (corrections.isEmpty() ? "(none)" : corrections.getFirst()));
            result = ((com.fasterxml.jackson.databind.node.ObjectNode) result).put("goldSql", q.firstGold());
            return ((com.fasterxml.jackson.databind.node.ObjectNode) result).put("corrections", String.join("\n----\n", corrections));
        }
    }

    @Test
    void shouldRefuseTheFullReadAndRunTheRepairWhenTheMessageCarriesTheEvidence() throws Exception {
        JsonNode r = ask(false);
        assertEquals("succeeded", r.get("status").asText(), r.toString());
        assertEquals("corrected_success", r.get("reason").asText(), r.toString());
        assertEquals(2, r.get("attempts").asInt(), "one repair: " + r);
        assertEquals(r.get("goldSql").asText().strip(), r.get("sql").asText().strip(), "the repaired SQL is the gold SQL");
        String prompt = r.get("corrections").asText();
        assertTrue(prompt.contains("[too_expensive] too expensive to run: the engine estimates 56 rows scanned (budget 28)"), prompt);
        assertTrue(prompt.toLowerCase(java.util.Locale.ROOT).contains("sbtransaction (56 rows)"), "the table and its estimate: " + prompt);
    }

    @Test
    void shouldEndOnTooExpensiveWithoutRunningWhenTheEvidenceIsStripped() throws Exception {
        JsonNode r = ask(true);
        assertEquals("failed", r.get("status").asText(), r.toString());
        assertEquals("unchanged_sql", r.get("reason").asText(), r.toString());
        assertEquals("too_expensive", r.get("errorCategory").asText(), r.toString());
        assertEquals("SELECT * FROM sbTransaction", r.get("lastRejectedSql").asText().strip(), "the costly answer, never run");
        assertTrue(!r.hasNonNull("execution") || r.get("execution").isEmpty(), "nothing ran: " + r);
    }
}
