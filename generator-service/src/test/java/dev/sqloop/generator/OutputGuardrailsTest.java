package dev.sqloop.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class OutputGuardrailsTest {

    private static String valid(String answer) {
        return assertInstanceOf(OutputGuardrails.Valid.class, OutputGuardrails.check(answer), answer).sql();
    }

    private static String invalid(String answer) {
        return assertInstanceOf(OutputGuardrails.Invalid.class, OutputGuardrails.check(answer), answer).reason();
    }

    @Test
    void shouldTakeTheSqlFieldOfAJsonAnswer() {
        assertEquals("SELECT 1", valid("{\"sql\": \"SELECT 1;\"}"));
    }

    @Test
    void shouldTakeTheFirstFencedBlock() {
        assertEquals("SELECT region FROM sales", valid("Here you go:\n```sql\nSELECT region FROM sales;\n```\nHope it helps."));
        assertEquals("WITH t AS (SELECT 1 AS x) SELECT x FROM t", valid("```\nWITH t AS (SELECT 1 AS x) SELECT x FROM t\n```"));
    }

    @Test
    void shouldStripTrailingSemicolonsFromRawSql() {
        assertEquals("select 1", valid("  select 1 ;; "));
    }

    @Test
    void shouldRejectMoreThanOneStatement() {
        assertTrue(invalid("SELECT 1; SELECT 2").contains("more than one"));
    }

    @Test
    void shouldKeepSemicolonsInsideStringLiterals() {
        assertEquals("SELECT 'a;b' AS x", valid("SELECT 'a;b' AS x;"));
    }

    @Test
    void shouldRejectProse() {
        assertTrue(invalid("You should count the rows of the sales table.").contains("prose"));
        assertTrue(invalid("{\"answer\": \"no idea\"}").contains("no \"sql\" string field"));
    }

    @Test
    void shouldPassAStatementWithAKeywordTypoOnToTheParser() {
        // The parser names the token and its position; "prose" would name neither.
        assertEquals("SELEC name FROM t", valid("SELEC name FROM t"));
        assertEquals("SLECT name FROM t WHERE x = 1", valid("```sql\nSLECT name FROM t WHERE x = 1\n```"));
        assertEquals("WTIH a AS (SELECT 1 AS x) SELECT x FROM a", valid("WTIH a AS (SELECT 1 AS x) SELECT x FROM a"));
        assertTrue(invalid("To answer this you would look at the relevant table and count the matching rows.").contains("prose"));
        assertTrue(invalid("Sure, here it is").contains("prose"));
    }

    @Test
    void shouldRejectPromptEcho() {
        assertTrue(invalid("## Schema\nTABLE sales\n## Rules\n- Exactly one").contains("echoed"));
        assertTrue(invalid("SELECT 1 Failed SQL: SELECT 1").contains("echoed"));
    }

    @Test
    void shouldRejectEmptyAndCommentOnlyAnswers() {
        assertTrue(invalid("   ").contains("empty"));
        assertTrue(invalid("-- nothing to see").contains("comments"));
        assertTrue(invalid("```sql\n;\n```").contains("no SQL"));
    }

    @Test
    void shouldLetWriteStatementsThroughForTheValidatorToJudge() {
        assertEquals("CREATE TABLE t AS SELECT 1", valid("CREATE TABLE t AS SELECT 1"));
    }

    /** The forms real models wrap one query in: each costs no attempt, and the query comes out whole. */
    @org.junit.jupiter.params.ParameterizedTest(name = "[{index}] {0}")
    @org.junit.jupiter.params.provider.MethodSource("wrappedAnswers")
    void shouldTakeTheQueryOutOfWhatAModelWrapsItIn(String answer, String sql) {
        assertEquals(sql, valid(answer));
    }

    static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> wrappedAnswers() {
        String q = "SELECT status, count(*) AS n FROM orders GROUP BY status";
        return java.util.stream.Stream.of(
                // a lead-in sentence, no fence
                org.junit.jupiter.params.provider.Arguments.of("Here is the SQL query:\n\n" + q + ";", q),
                org.junit.jupiter.params.provider.Arguments.of("Sure! To count the orders per status you can run:\n" + q, q),
                org.junit.jupiter.params.provider.Arguments.of("SQL: " + q, q),
                org.junit.jupiter.params.provider.Arguments.of("Query:\n" + q + ";", q),
                // an explanation after it
                org.junit.jupiter.params.provider.Arguments.of(q + ";\n\nThis query groups the orders by status and counts each group.", q),
                org.junit.jupiter.params.provider.Arguments.of(q + "; -- counts per status", q),
                org.junit.jupiter.params.provider.Arguments.of(q + "\n\nExplanation: the GROUP BY makes one row per status.", q),
                org.junit.jupiter.params.provider.Arguments.of(q + ";\n\n**Explanation:**\n- `GROUP BY status` makes one row per status", q),
                org.junit.jupiter.params.provider.Arguments.of(q + "; It doesn't count cancelled ones twice.", q),
                // reasoning blocks
                org.junit.jupiter.params.provider.Arguments.of("<think>\nThe user wants counts. ```sql\nSELECT 1\n``` no.\n</think>\n```sql\n" + q + "\n```", q),
                org.junit.jupiter.params.provider.Arguments.of("Okay, counting per status needs GROUP BY.\n</think>\n\n" + q, q),
                // fences
                org.junit.jupiter.params.provider.Arguments.of("```postgresql\n" + q + "\n```", q),
                org.junit.jupiter.params.provider.Arguments.of("```sql " + q + "```", q),
                org.junit.jupiter.params.provider.Arguments.of("```" + q + "```", q),
                org.junit.jupiter.params.provider.Arguments.of("```sql\n" + q + ";\n", q), // never closed
                org.junit.jupiter.params.provider.Arguments.of("```json\n{\"sql\": \"" + q + "\"}\n```", q),
                org.junit.jupiter.params.provider.Arguments.of("{\"query\": \"" + q + ";\"}", q),
                org.junit.jupiter.params.provider.Arguments.of("`" + q + "`", q),
                org.junit.jupiter.params.provider.Arguments.of("**SQL:**\n" + q, q),
                org.junit.jupiter.params.provider.Arguments.of(q + "\n```", q), // the opening fence missing
                // a lead-in whose WITH is not a query's, then a CTE
                org.junit.jupiter.params.provider.Arguments.of("With a CTE it reads better:\nWITH s AS (SELECT status FROM orders) SELECT status, count(*) FROM s GROUP BY status",
                        "WITH s AS (SELECT status FROM orders) SELECT status, count(*) FROM s GROUP BY status"));
    }

    /** What is not an explanation stays part of the query, and a second statement is still refused. */
    @Test
    void shouldKeepWhatGoesOnTheQueryAndRefuseASecondStatement() {
        String split = "SELECT customer_name,\n\n  sum(amount) AS total\nFROM orders\n\nGROUP BY customer_name";
        assertEquals(split, valid(split));
        assertEquals("SELECT 'a. B is prose: no.' AS x", valid("SELECT 'a. B is prose: no.' AS x"));
        assertTrue(invalid("SELECT 1; DROP TABLE orders").contains("more than one"));
        assertTrue(invalid("SELECT 1; /* hidden */ delete from orders").contains("more than one"));
        // whatever follows an explanation is not the answer: it never runs
        assertEquals("SELECT 1", valid("SELECT 1;\n\nThis drops nothing.\n; DROP TABLE t"));
        assertTrue(invalid("SELECT 1; SHUTDOWN").contains("more than one"));
        assertTrue(invalid("SELECT * FROM t; EXEC xp_cmdshell 'dir'").contains("more than one"));
        assertTrue(invalid("Here is what I would do: look at the orders table and count them.").contains("prose"));
        assertTrue(invalid("<think>SELECT 1</think>").contains("empty"), "a query only in the reasoning is no answer");
        assertTrue(invalid("Here is the query:\n## Schema\nSELECT 1").contains("echoed"));
    }
}
