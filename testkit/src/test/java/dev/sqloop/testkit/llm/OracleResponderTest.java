package dev.sqloop.testkit.llm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OracleResponderTest {
    private static final String Q = "What is the total amount per region?";
    private static final String GOLD = "SELECT region, sum(amount) AS total FROM sales GROUP BY region ORDER BY total DESC";

    private static OracleResponder oracle(Fault fault, String dialect) {
        return new OracleResponder(Map.of(Q, GOLD), Map.of(), dialect, 1).withFaults(Map.of(Q, fault));
    }

    private static ChatCall first() {
        return new ChatCall("openai", "m", "system", Q, false);
    }

    private static String fenced(String sql) {
        return "```sql\n" + sql + "\n```";
    }

    @Test
    void shouldInjectEachFaultAndRepairOnlyWhenTheCorrectionCarriesTheEvidence() {
        for (Fault fault : Fault.classic()) {
            if (fault == Fault.NONE) continue;
            for (String dialect : List.of("trino", "presto", "postgres", "duckdb", "sparksql", "hive")) {
                OracleResponder o = oracle(fault, dialect);
                Injection i = o.injectionFor(Q);
                assertEquals(fault, i.fault(), "fault applies to the gold SQL: " + fault);
                String firstAnswer = o.respond(first());
                assertNotEquals(fenced(GOLD), firstAnswer, fault + " first answer is faulty");

                String blind = "Failed SQL:\n" + i.faultyAnswer() + "\n\nFix the error.\n\nFix and regenerate for: \"" + Q + "\"";
                assertEquals(firstAnswer, o.respond(new ChatCall("openai", "m", "s", blind, false)),
                        fault + "/" + dialect + ": without evidence the fault repeats");

                String error = i.errorMessage() != null ? i.errorMessage() : "the answer was prose, not a SQL statement";
                String informed = "Failed SQL:\n" + i.faultyAnswer() + "\n\nError:\n" + error + "\n\nFix and regenerate for: \"" + Q + "\"";
                assertEquals(fenced(GOLD), o.respond(new ChatCall("openai", "m", "s", informed, false)),
                        fault + "/" + dialect + ": with the evidence the gold SQL comes back");
            }
        }
    }

    @Test
    void shouldBuildRealisticFaults() {
        assertEquals("SELECT region_nm, sum(amount) AS total FROM sales GROUP BY region ORDER BY total DESC",
                oracle(Fault.WRONG_COLUMN, "trino").injectionFor(Q).faultyAnswer());
        assertEquals("SELECT region, sum(amount) AS total FROM sales_tbl GROUP BY region ORDER BY total DESC",
                oracle(Fault.WRONG_TABLE, "trino").injectionFor(Q).faultyAnswer());
        assertEquals("SELECT region, sum(amount) AS total FROM sales ORDER BY total DESC",
                oracle(Fault.MISSING_GROUP_BY, "trino").injectionFor(Q).faultyAnswer());
        assertTrue(oracle(Fault.FOREIGN_FUNCTION, "trino").injectionFor(Q).faultyAnswer().contains("strftime("));
        assertTrue(oracle(Fault.FOREIGN_FUNCTION, "duckdb").injectionFor(Q).faultyAnswer().contains("format_datetime("));
        assertTrue(oracle(Fault.SYNTAX_SLIP, "trino").injectionFor(Q).faultyAnswer().contains(" FORM sales"));
    }

    @Test
    void shouldAnswerJsonWhenAskedAndDrawFaultsFromTheMix() {
        OracleResponder none = new OracleResponder(Map.of(Q, GOLD), Map.of(Fault.NONE, 1.0), "trino", 1);
        assertEquals("{\"sql\":\"" + GOLD + "\"}", none.respond(new ChatCall("openai", "m", "s", Q, true)));

        Map<String, String> gold = new HashMap<>();
        for (int k = 0; k < 200; k++) gold.put("question number " + k + " about sales?", GOLD);
        OracleResponder mixed = new OracleResponder(gold, OracleResponder.uniformMix(), "trino", 7);
        Map<Fault, Integer> seen = new EnumMap<>(Fault.class);
        gold.keySet().forEach(q -> seen.merge(mixed.injectionFor(q).fault(), 1, Integer::sum));
        assertEquals(Fault.classic().size() - 1, seen.size(), "every fault of the mix is drawn: " + seen);
    }

    @Test
    void shouldAcceptEvidenceOnlyInTheLastUserMessageOutsideTheFaultySqlAndTheSystemPrompt() {
        OracleResponder o = oracle(Fault.KEYWORD_TYPO, "trino");
        Injection i = o.injectionFor(Q);
        assertTrue(i.faultyAnswer().startsWith("SELEC "), i.faultyAnswer());
        String bare = "Failed SQL:\n" + i.faultyAnswer() + "\n\nError:\n[syntax_error] the answer was prose\n\nFix and regenerate for: \"" + Q + "\"";
        String firstAnswer = o.respond(new ChatCall("openai", "m", "s", Q, false));
        // the faulty SQL itself (even re-spaced) holds SELEC: not evidence
        assertEquals(firstAnswer, o.respond(new ChatCall("openai", "m", "s", bare.replace(i.faultyAnswer(), i.faultyAnswer().replace(" ", "  ")), false)));
        // evidence in the system prompt or an earlier user turn does not count
        assertEquals(firstAnswer, o.respond(new ChatCall("openai", "m", "Offending token: 'SELEC'", bare, false)));
        assertEquals(firstAnswer, o.respond(new ChatCall("openai", "m", "s", "Offending token: 'SELEC'\n" + bare, false, bare)));
        // quoted in the last user message, outside the SQL: the fix
        assertEquals(fenced(GOLD), o.respond(new ChatCall("openai", "m", "s", bare + " Offending token: 'SELEC'.", false)));
    }

    /** The gold OracleEvidenceIT (embedded) faults on every engine, and the grouped one a missing GROUP BY needs. */
    private static final String BROKER_GOLD = "SELECT sbCustName, sbCustCountry FROM sbCustomer WHERE sbCustStatus = 'active'";
    private static final String BROKER_GROUPED = "SELECT sbCustCountry, COUNT(*) AS num_customers FROM sbCustomer GROUP BY sbCustCountry";

    /**
     * Each engine's own message for each fault kind on defog's broker database, as OracleEvidenceIT recorded them from
     * DuckDB 2.0, PostgreSQL, Trino 483, Spark Thrift Server 3.5.4 and Hive 4.0.1 (whitespace folded; Spark's plan and
     * stack trace cut, as the correction prompt cuts them).
     */
    private static final Map<String, Map<Fault, String>> RECORDED = Map.of(
            "duckdb", Map.of(
                    Fault.WRONG_COLUMN, "Binder Error: Referenced column \"sbCustName_nm\" not found in FROM clause! Candidate bindings: \"sbCustName\", \"sbCustState\", \"sbCustJoinDate\", \"sbCustEmail\", \"sbCustPhone\"",
                    Fault.WRONG_TABLE, "Catalog Error: Table with name sbCustomer_tbl does not exist! Did you mean \"sbCustomer\"?",
                    Fault.MISSING_GROUP_BY, "Binder Error: column \"sbCustCountry\" must appear in the GROUP BY clause or must be part of an aggregate function. Either add it to the GROUP BY list, or use ANY_VALUE(\"sbCustCountry\") if the exact value of \"sbCustCountry\" is not important.",
                    Fault.FOREIGN_FUNCTION, "Catalog Error: Scalar Function with name format_datetime does not exist! Did you mean \"format_type\"?",
                    Fault.TYPE_MISMATCH, "Binder Error: Could not choose a best candidate function for the function call \"+(STRING_LITERAL, INTEGER_LITERAL)\". In order to select one, please add explicit type casts.",
                    Fault.SYNTAX_SLIP, "Parser Error: syntax error at or near \"sbCustomer\"",
                    Fault.KEYWORD_TYPO, "Parser Error: syntax error at or near \"SELEC\""),
            "postgres", Map.of(
                    Fault.WRONG_COLUMN, "ERROR: column \"sbcustname_nm\" does not exist Hint: Perhaps you meant to reference the column \"sbcustomer.sbcustname\". Position: 8",
                    Fault.WRONG_TABLE, "ERROR: relation \"sbcustomer_tbl\" does not exist Position: 39",
                    Fault.MISSING_GROUP_BY, "ERROR: column \"sbcustomer.sbcustcountry\" must appear in the GROUP BY clause or be used in an aggregate function Position: 8",
                    Fault.FOREIGN_FUNCTION, "ERROR: function strftime(date, unknown) does not exist Hint: No function matches the given name and argument types. You might need to add explicit type casts. Position: 8",
                    Fault.TYPE_MISMATCH, "ERROR: invalid input syntax for type integer: \"one\" Position: 8",
                    Fault.SYNTAX_SLIP, "ERROR: syntax error at or near \"sbCustomer\" Position: 39",
                    Fault.KEYWORD_TYPO, "ERROR: syntax error at or near \"SELEC\" Position: 1"),
            "trino", Map.of(
                    Fault.WRONG_COLUMN, "Query failed (#20261201_232125_01056_xsuup): line 1:8: Column 'sbcustname_nm' cannot be resolved",
                    Fault.WRONG_TABLE, "Query failed (#20261201_232125_01057_xsuup): line 1:39: Table 'memory.broker.sbcustomer_tbl' does not exist",
                    Fault.MISSING_GROUP_BY, "Query failed (#20261201_232125_01058_xsuup): line 1:8: 'sbCustCountry' must be an aggregate expression or appear in GROUP BY clause",
                    Fault.FOREIGN_FUNCTION, "Query failed (#20261201_232125_01059_xsuup): line 1:8: Function 'strftime' not registered",
                    Fault.TYPE_MISMATCH, "Query failed (#20261201_232125_01060_xsuup): line 1:14: Cannot apply operator: varchar(3) + integer",
                    Fault.SYNTAX_SLIP, "Query failed (#20261201_232125_01061_xsuup): line 1:39: mismatched input 'sbCustomer'. Expecting: ',', 'EXCEPT', 'FETCH', 'FROM', 'GROUP', 'HAVING', 'INTERSECT', 'LIMIT', 'OFFSET', 'ORDER', 'UNION', 'WHERE', 'WINDOW', <EOF>",
                    Fault.KEYWORD_TYPO, "Query failed (#20261201_232125_01062_xsuup): line 1:1: mismatched input 'SELEC'. Expecting: 'ALTER', 'ANALYZE', 'CALL', 'COMMENT', 'COMMIT', 'CREATE', 'DEALLOCATE', 'DELETE', 'DENY', 'DESC', 'DESCRIBE', 'DROP', 'EXECUTE', 'EXPLAIN', 'GRANT', 'INSERT', 'MERGE', 'PREPARE', 'REFRESH', 'RESET', 'REVOKE', 'ROLLBACK', 'SET', 'SHOW', 'START', 'TRUNCATE', 'UPDATE', 'USE', 'WITH', <query>"),
            "sparksql", Map.of(
                    Fault.WRONG_COLUMN, "org.apache.hive.service.cli.HiveSQLException: Error running query: [UNRESOLVED_COLUMN.WITH_SUGGESTION] org.apache.spark.sql.AnalysisException: [UNRESOLVED_COLUMN.WITH_SUGGESTION] A column or function parameter with name `sbCustName_nm` cannot be resolved. Did you mean one of the following? [`sbCustName`, `sbCustEmail`, `sbCustState`, `sbCustCity`, `sbCustId`].; line 1 pos 7;",
                    Fault.WRONG_TABLE, "org.apache.hive.service.cli.HiveSQLException: Error running query: [TABLE_OR_VIEW_NOT_FOUND] org.apache.spark.sql.AnalysisException: [TABLE_OR_VIEW_NOT_FOUND] The table or view `sbCustomer_tbl` cannot be found. Verify the spelling and correctness of the schema and catalog.; line 1 pos 38;",
                    Fault.MISSING_GROUP_BY, "org.apache.hive.service.cli.HiveSQLException: Error running query: [MISSING_GROUP_BY] org.apache.spark.sql.AnalysisException: [MISSING_GROUP_BY] The query does not include a GROUP BY clause. Add GROUP BY or turn it into the window functions using OVER clauses.; line 1 pos 0;",
                    Fault.FOREIGN_FUNCTION, "org.apache.hive.service.cli.HiveSQLException: Error running query: [UNRESOLVED_ROUTINE] org.apache.spark.sql.AnalysisException: [UNRESOLVED_ROUTINE] Cannot resolve function `strftime` on search path [`system`.`builtin`, `system`.`session`, `spark_catalog`.`broker`].; line 1 pos 7",
                    Fault.TYPE_MISMATCH, "org.apache.hive.service.cli.HiveSQLException: Error running query: [DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES] org.apache.spark.sql.AnalysisException: [DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES] Cannot resolve \"(current_date() > true)\" due to data type mismatch: the left and right operands of the binary operator have incompatible types (\"DATE\" and \"BOOLEAN\").; line 1 pos 7;",
                    Fault.SYNTAX_SLIP, "org.apache.hive.service.cli.HiveSQLException: Error running query: [PARSE_SYNTAX_ERROR] org.apache.spark.sql.catalyst.parser.ParseException: [PARSE_SYNTAX_ERROR] Syntax error at or near 'sbCustomer'.(line 1, pos 38)",
                    Fault.KEYWORD_TYPO, "org.apache.hive.service.cli.HiveSQLException: Error running query: [PARSE_SYNTAX_ERROR] org.apache.spark.sql.catalyst.parser.ParseException: [PARSE_SYNTAX_ERROR] Syntax error at or near 'SELEC'.(line 1, pos 0)"),
            "hive", Map.of(
                    Fault.WRONG_COLUMN, "Error while compiling statement: FAILED: SemanticException [Error 10004]: Line 1:7 Invalid table alias or column reference 'sbCustName_nm': (possible column names are: sbcustid, sbcustname, sbcustemail, sbcustphone, sbcustaddress1, sbcustaddress2, sbcustcity, sbcuststate, sbcustcountry, sbcustpostalcode, sbcustjoindate, sbcuststatus)",
                    Fault.WRONG_TABLE, "Error while compiling statement: FAILED: SemanticException [Error 10001]: Line 1:38 Table not found 'sbCustomer_tbl'",
                    Fault.MISSING_GROUP_BY, "Error while compiling statement: FAILED: SemanticException [Error 10025]: Line 1:7 Expression not in GROUP BY key 'sbCustCountry'",
                    Fault.FOREIGN_FUNCTION, "Error while compiling statement: FAILED: SemanticException [Error 10011]: Invalid function strftime",
                    Fault.TYPE_MISMATCH, "Error while compiling statement: FAILED: SemanticException [Error 10014]: Line 1:7 Wrong arguments 'true': Casting DATE/TIMESTAMP to NUMERIC is prohibited (hive.strict.timestamp.conversion)",
                    Fault.SYNTAX_SLIP, "Error while compiling statement: FAILED: ParseException line 1:38 missing EOF at 'sbCustomer' near 'FORM'",
                    Fault.KEYWORD_TYPO, "Error while compiling statement: FAILED: ParseException line 1:0 cannot recognize input near 'SELEC' 'sbCustName' ','"));

    /**
     * Without engines: every fault kind on every dialect, repaired from the engine's own recorded words in a correction
     * prompt and not without them (issue 45: PostgreSQL's type mismatch was never repaired). Presto words its errors as
     * Trino does (same parser and analyzer lineage), so it is checked with Trino's.
     */
    @Test
    void shouldRepairFromEachEnginesRecordedWordingAndNotWithoutIt() {
        for (String dialect : List.of("duckdb", "postgres", "trino", "presto", "sparksql", "hive")) {
            Map<Fault, String> recorded = RECORDED.get(dialect.equals("presto") ? "trino" : dialect);
            for (Map.Entry<Fault, String> e : recorded.entrySet()) {
                boolean grouped = e.getKey() == Fault.MISSING_GROUP_BY;
                String q = "Which active customers are there, and in which country?";
                OracleResponder o = new OracleResponder(Map.of(q, grouped ? BROKER_GROUPED : BROKER_GOLD), Map.of(), dialect, 1)
                        .withFaults(Map.of(q, e.getKey()));
                Injection i = o.injectionFor(q);
                String gold = fenced(grouped ? BROKER_GROUPED : BROKER_GOLD);
                String informed = "Failed SQL:\n" + i.faultyAnswer() + "\n\nError:\n[" + i.category() + "] " + e.getValue()
                        + "\n\nFix and regenerate for: \"" + q + "\"";
                assertEquals(gold, o.respond(new ChatCall("openai", "m", "s", informed, false)), dialect + "/" + e.getKey() + ": " + e.getValue());
                String blind = "Failed SQL:\n" + i.faultyAnswer() + "\n\nError:\n[" + i.category() + "] the query failed\n\nFix and regenerate for: \"" + q + "\"";
                assertNotEquals(gold, o.respond(new ChatCall("openai", "m", "s", blind, false)), dialect + "/" + e.getKey() + " without the engine's words");
            }
        }
    }

    @Test
    void shouldReadATableWholeFirstAndRepairOnlyWithTheTableAndTheEstimate() {
        OracleResponder o = new OracleResponder(Map.of(Q, GOLD), Map.of(Fault.NONE, 1.0), "duckdb", 1)
                .withCostlyFirstAnswers(Map.of(Q, "sbTransaction"));
        String costly = fenced("SELECT * FROM sbTransaction");
        assertEquals(costly, o.respond(first()));
        String head = "Failed SQL:\nSELECT * FROM sbTransaction\n\nError:\n";
        String tail = "\nRead less: add a filter on the partition or date column.\n\nFix and regenerate for: \"" + Q + "\"";
        for (String blind : List.of(
                head + "[too_expensive] too expensive to run.\n" + tail,
                head + "[too_expensive] the engine estimates 56 rows scanned (budget 28). Not run.\n" + tail,
                head + "[too_expensive] too expensive; largest scans: sbTransaction.\n" + tail)) {
            assertEquals(costly, o.respond(new ChatCall("openai", "m", "s", blind, false)), "no table or no estimate: " + blind);
        }
        String informed = head + "[too_expensive] too expensive to run: the engine estimates 56 rows scanned (budget 28);"
                + " largest scans: broker.main.sbTransaction (56 rows). Not run.\n" + tail;
        assertEquals(fenced(GOLD), o.respond(new ChatCall("openai", "m", "s", informed, false)));
        assertEquals(costly, o.respond(new ChatCall("openai", "m", "s", informed.replace("Failed SQL", "Earlier SQL")
                .replace("regenerate", "answer"), false)), "a first request is no correction, whatever it holds");
    }

    @Test
    void shouldChooseTheGoldCandidateOfAPairwiseComparisonElseTheFirst() {
        OracleResponder o = new OracleResponder(Map.of(Q, GOLD), Map.of(), "duckdb", 1);
        String silent = "SELECT region, avg(amount) AS total FROM sales GROUP BY region ORDER BY total DESC";
        java.util.function.BiFunction<String, String, String> ask = (a, b) -> "Question: " + Q + "\n\nCandidate A:\n```sql\n" + a
                + "\n```\nResult of A (1 row):\ntotal\n1\n\nCandidate B:\n```sql\n" + b + "\n```\nResult of B (1 row):\ntotal\n2\n\n"
                + "Compare candidate A and candidate B: which one answers the question?";
        assertEquals("CHOICE: B\nREASON: candidate B is the gold SQL", o.respond(new ChatCall("openai", "m", "judge", ask.apply(silent, GOLD + ";"), false)));
        assertEquals("CHOICE: A\nREASON: candidate A is the gold SQL", o.respond(new ChatCall("openai", "m", "judge", ask.apply(GOLD, silent), false)));
        assertEquals("{\"choice\":\"A\",\"reason\":\"neither is the gold SQL: the first\"}",
                o.respond(new ChatCall("openai", "m", "judge", ask.apply(silent, silent + " LIMIT 1"), true)));
    }

    @Test
    void shouldFailAShareOfLaterCandidatesFirstAndRepairThemOnlyWithTheEnginesEvidence() {
        Map<String, String> gold = new java.util.LinkedHashMap<>();
        for (int i = 0; i < 200; i++) gold.put("How many orders did customer " + i + " place in total?", "SELECT count(id) FROM orders WHERE customer = " + i);
        OracleResponder o = new OracleResponder(gold, Map.of(), "duckdb", 7).withFailingCandidates(0.3);
        int failed = 0;
        for (String q : gold.keySet()) {
            assertFalse(o.failsFirst(q, 1), "the question's own attempt keeps its fault of the mix");
            for (int k = 2; k <= 3; k++) if (o.failsFirst(q, k)) failed++;
        }
        assertTrue(failed > 90 && failed < 150, "about 30 % of 400 later candidates: " + failed);
        String q = gold.keySet().stream().filter(x -> o.failsFirst(x, 2)).findFirst().orElseThrow();
        String first = o.respond(new ChatCall("openai", "m", "s", "Question: " + q + "\n\nCandidate 2 of 3: write the query independently", false));
        java.util.regex.Matcher misspelt = java.util.regex.Pattern.compile("\\w+_nm").matcher(first);
        assertTrue(misspelt.find(), "a misspelt column the engine refuses: " + first);
        String wrong = first.replace("```sql\n", "").replace("\n```", "");
        String withEvidence = "Failed SQL:\n" + wrong + "\n\nError:\ncolumn_not_found: Binder Error: Referenced column \"" + misspelt.group()
                + "\" not found in FROM clause!\n\n"
                + "Fix and regenerate for: \"" + q + "\"";
        assertEquals(fenced(gold.get(q)), o.respond(new ChatCall("openai", "m", "s", withEvidence, false)));
        String blind = "Failed SQL:\n" + wrong + "\n\nThe query failed.\n\nFix and regenerate for: \"" + q + "\"";
        assertEquals(first, o.respond(new ChatCall("openai", "m", "s", blind, false)), "no evidence, the same mistake");
    }
}
