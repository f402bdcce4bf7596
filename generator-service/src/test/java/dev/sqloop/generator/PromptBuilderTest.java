package dev.sqloop.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.Example;
import dev.sqloop.common.message.LinkedSchema;
import dev.sqloop.common.message.NlConstraints;
import dev.sqloop.common.message.QuestionTask;
import java.util.List;
import org.junit.jupiter.api.Test;

class PromptBuilderTest {

    @Test
    void shouldPutWhatEveryQuestionSharesBeforeTheQuestionsOwnContext() {
        QuestionTask task = Tasks.fresh("warehouse").withContext(Tasks.fresh("warehouse").examples(),
                new LinkedSchema(Tasks.SCHEMA.tables(), true), NlConstraints.NONE);
        LlmClient.Prompt p = new PromptBuilder(true).build(task, Dialect.TRINO);
        String s = p.system();
        assertTrue(s.startsWith("Write Trino SQL"), s);
        assertTrue(s.contains("TABLE sales -- one row per sale"), s);
        assertTrue(s.contains("  region VARCHAR -- sales region (e.g. EU, US, APAC)"), "at most three sample values: " + s);
        int rules = s.indexOf("## Rules");
        int instructions = s.indexOf("## Instructions");
        int schema = s.indexOf("## Schema");
        int examples = s.indexOf("## Similar Examples");
        assertTrue(rules < instructions && instructions < schema && schema < examples, s);
        assertTrue(p.prefix().contains("## Schema") && !p.prefix().contains("## Similar Examples"),
                "the whole schema is in the shared prefix, the examples after it: " + p.prefix());
        assertTrue(p.context().startsWith("## Similar Examples"), p.context());
        assertTrue(s.startsWith(p.prefix()), "the prefix is sent first, as it is");
        assertTrue(s.contains("Q: How many sales are there?\nSQL: SELECT count(*) FROM sales"), s);
        assertTrue(s.contains("{\"sql\""), "JSON answer requested: " + s);
        assertEquals(Tasks.QUESTION, p.user());
    }

    @Test
    void shouldShareTheWholePrefixBetweenTwoQuestionsOfADatasourceWhoseSchemaIsWhole() {
        LinkedSchema whole = new LinkedSchema(Tasks.SCHEMA.tables(), true);
        QuestionTask a = QuestionTask.create("a", "t", "warehouse", "How many sales per region?", 3, null)
                .withContext(List.of(new Example("Total amount?", "SELECT sum(amount) FROM sales", 0.8, "seed")), whole, NlConstraints.NONE);
        QuestionTask b = QuestionTask.create("b", "t", "warehouse", "Which regions exist?", 3, null)
                .withContext(List.of(new Example("List the regions", "SELECT name FROM regions", 0.8, "seed")), whole, NlConstraints.NONE);
        LlmClient.Prompt pa = new PromptBuilder(true).build(a, Dialect.TRINO);
        LlmClient.Prompt pb = new PromptBuilder(true).build(b, Dialect.TRINO);
        assertEquals(pa.prefix(), pb.prefix());
        assertTrue(pa.prefix().length() > pa.system().length() / 2, "most of the system part is shared");
        assertTrue(pa.system().startsWith(pa.prefix()) && pb.system().startsWith(pb.prefix()));
    }

    @Test
    void shouldPutALinkedSubsetAfterTheSharedPrefixBecauseItDiffersPerQuestion() {
        LlmClient.Prompt p = new PromptBuilder(true).build(Tasks.fresh("warehouse"), Dialect.TRINO);
        assertFalse(p.prefix().contains("## Schema"), p.prefix());
        assertTrue(p.context().startsWith("## Schema\nTABLE sales"), p.context());
        assertTrue(p.context().indexOf("## Schema") < p.context().indexOf("## Similar Examples"), "the schema before the examples");
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

    @Test
    void shouldAddExamplesBestFirstWhileThePromptStaysWithinItsBudget() {
        // a whole schema of ~1,200 estimated tokens (defog advising and atis: ~1,000) and five ~55-token examples
        List<LinkedSchema.Column> columns = new java.util.ArrayList<>();
        for (int i = 0; i < 110; i++) columns.add(new LinkedSchema.Column("column_" + i, "VARCHAR", "what column " + i + " holds", List.of()));
        LinkedSchema schema = new LinkedSchema(List.of(new LinkedSchema.Table("course", "one row per course", columns)), true);
        List<Example> examples = new java.util.ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            examples.add(new Example("Which courses of department " + i + " have more than " + i + " credits and a lab?",
                    "SELECT course.column_1, course.column_2 FROM course WHERE course.column_3 = " + i
                            + " AND course.column_4 > " + i + " AND course.column_5 = 'Y' ORDER BY course.column_1", 0.9 - i / 10.0, "seed"));
        }
        QuestionTask task = QuestionTask.create("q", "t", "uni", "Which courses have a lab?", 3, null).withContext(examples, schema, NlConstraints.NONE);

        LlmClient.Prompt unbounded = new PromptBuilder(true, Integer.MAX_VALUE).build(task, Dialect.DUCKDB);
        assertEquals(5, count(unbounded.system(), "\nQ: "), "all five within an unlimited budget");
        int withoutExamples = LinkedSchema.estimateTokens(new PromptBuilder(true).build(
                task.withContext(List.of(), schema, NlConstraints.NONE), Dialect.DUCKDB).system() + task.question());
        assertTrue(withoutExamples > 1000 && LinkedSchema.estimateTokens(unbounded.system() + unbounded.user()) > PromptBuilder.PROMPT_TOKEN_BUDGET,
                "the case the budget is for: " + withoutExamples);

        LlmClient.Prompt p = new PromptBuilder(true).build(task, Dialect.DUCKDB);
        int n = count(p.system(), "\nQ: ");
        assertTrue(n >= 1 && n < 5, n + " examples");
        assertTrue(LinkedSchema.estimateTokens(p.system() + p.user()) <= PromptBuilder.PROMPT_TOKEN_BUDGET, p.system());
        for (int i = 1; i <= n; i++) assertTrue(p.system().contains("department " + i + " "), "the best ones, in order: " + i);
        assertEquals(unbounded.prefix(), p.prefix(), "the shared prefix, schema included, is never cut");

        LlmClient.Prompt tiny = new PromptBuilder(true, 10).build(task, Dialect.DUCKDB);
        assertEquals(1, count(tiny.system(), "\nQ: "), "over budget already: the best example still");
        assertTrue(tiny.system().contains("department 1 "), tiny.system());
    }

    private static int count(String text, String what) {
        return text.split(java.util.regex.Pattern.quote(what), -1).length - 1;
    }
}
