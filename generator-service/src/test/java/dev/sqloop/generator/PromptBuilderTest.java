package dev.sqloop.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.QuestionTask;
import org.junit.jupiter.api.Test;

class PromptBuilderTest {

    @Test
    void shouldPutDialectSchemaRulesAndExamplesBeforeTheInstructions() {
        LlmClient.Prompt p = new PromptBuilder(true).build(Tasks.fresh("warehouse"), Dialect.TRINO);
        String s = p.system();
        assertTrue(s.startsWith("Write Trino SQL"), s);
        assertTrue(s.contains("TABLE sales -- one row per sale"), s);
        assertTrue(s.contains("  region VARCHAR -- sales region (e.g. EU, US, APAC)"), "at most three sample values: " + s);
        int schema = s.indexOf("## Schema");
        int rules = s.indexOf("## Rules");
        int examples = s.indexOf("## Similar Examples");
        int instructions = s.indexOf("## Instructions");
        assertTrue(schema < rules && rules < examples && examples < instructions, s);
        assertTrue(s.contains("Q: How many sales are there?\nSQL: SELECT count(*) FROM sales"), s);
        assertTrue(s.contains("{\"sql\""), "JSON answer requested: " + s);
        assertEquals(Tasks.QUESTION, p.user());
    }

    @Test
    void shouldAskForAFencedBlockWithoutJsonMode() {
        assertTrue(new PromptBuilder(false).build(Tasks.fresh("demo"), Dialect.DUCKDB).system().contains("```sql"));
    }

    @Test
    void shouldOmitEmptySections() {
        QuestionTask bare = QuestionTask.create("q", "t", "demo", "How many?", 3, null);
        String s = new PromptBuilder(true).build(bare, Dialect.DUCKDB).system();
        assertTrue(!s.contains("## Schema") && !s.contains("## Similar Examples"), s);
    }

    @Test
    void shouldSendTheCorrectionPromptAsTheUserPartOfARetry() {
        QuestionTask retry = Tasks.failed(1, null, "SELECT regionn FROM sales", Tasks.issue(ErrorCategory.COLUMN_NOT_FOUND, "x"))
                .nextAttempt("Failed SQL:\nSELECT regionn FROM sales\n\nFix and regenerate for: \"" + Tasks.QUESTION + "\"");
        LlmClient.Prompt p = new PromptBuilder(true).build(retry, Dialect.TRINO);
        assertTrue(p.user().startsWith("Failed SQL:"), p.user());
        assertTrue(p.system().startsWith("Write Trino SQL"), "the system part stays the same on a retry");
    }

    @Test
    void shouldShowTheAskersInstructionsAfterTheQuestionOnEveryAttempt() {
        String instructions = "Always filter names using ILIKE with percent sign wildcards";
        QuestionTask first = Tasks.fresh("warehouse").withInstructions(instructions);
        LlmClient.Prompt p = new PromptBuilder(true).build(first, Dialect.TRINO);
        assertEquals(Tasks.QUESTION + "\n\n" + PromptBuilder.INSTRUCTIONS + instructions, p.user());
        QuestionTask retry = Tasks.failed(1, null, "SELECT regionn FROM sales", Tasks.issue(ErrorCategory.COLUMN_NOT_FOUND, "x"))
                .withInstructions(instructions).nextAttempt("Failed SQL:\nSELECT regionn FROM sales\n\nFix and regenerate for: \"" + Tasks.QUESTION + "\"");
        String user = new PromptBuilder(true).build(retry, Dialect.TRINO).user();
        assertTrue(user.startsWith("Failed SQL:") && user.endsWith(PromptBuilder.INSTRUCTIONS + instructions), user);
        assertEquals(Tasks.QUESTION, new PromptBuilder(true).build(Tasks.fresh("warehouse").withInstructions("  "), Dialect.TRINO).user(),
                "blank instructions are none");
    }
}
