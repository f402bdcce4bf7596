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
}
