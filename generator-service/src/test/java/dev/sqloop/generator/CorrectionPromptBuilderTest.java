package dev.sqloop.generator;

import static dev.sqloop.generator.Tasks.failed;
import static dev.sqloop.generator.Tasks.issue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.Issue;
import dev.sqloop.common.message.QuestionTask;
import java.util.List;
import org.junit.jupiter.api.Test;

class CorrectionPromptBuilderTest {
    private static final ErrorPatternRegistry REGISTRY = ErrorPatternRegistry.load();
    private static final CorrectionPromptBuilder WITH_EVIDENCE =
            new CorrectionPromptBuilder(REGISTRY, PastFixes.NONE, CorrectionPromptBuilder.Evidence.INCLUDED);
    private static final CorrectionPromptBuilder STRIPPED =
            new CorrectionPromptBuilder(REGISTRY, PastFixes.NONE, CorrectionPromptBuilder.Evidence.STRIPPED);

    private static String prompt(ErrorCategory category, String sql, String error) {
        return WITH_EVIDENCE.build(failed(1, null, sql, issue(category, error)), Dialect.TRINO);
    }

    /** Words, numbers and symbols: close enough to LLM tokens to bound a prompt. */
    private static int tokens(String s) {
        return s.isBlank() ? 0 : s.strip().split("\\s+|(?=[^\\w\\s])|(?<=[^\\w\\s])").length;
    }

    @Test
    void shouldCarryFailedSqlErrorAndQuestion() {
        String p = prompt(ErrorCategory.COLUMN_NOT_FOUND, "SELECT regionn FROM sales", "line 1:8: Column 'regionn' cannot be resolved");
        assertTrue(p.startsWith("Failed SQL:\nSELECT regionn FROM sales\n"), p);
        assertTrue(p.contains("[column_not_found] line 1:8: Column 'regionn' cannot be resolved"), p);
        assertTrue(p.endsWith("Fix and regenerate for: \"" + Tasks.QUESTION + "\""), p);
    }

    @Test
    void shouldListTheValidColumnsOfTheReferencedTablesForColumnErrors() {
        String p = prompt(ErrorCategory.COLUMN_NOT_FOUND, "SELECT regionn FROM sales", "Column 'regionn' cannot be resolved");
        assertTrue(p.contains("replace the unknown column. Valid columns: sales(id, region, amount, dt)."), p);
        assertFalse(p.contains("regions(name)"), "only the tables the SQL uses: " + p);
    }

    @Test
    void shouldAddTheEngineSuggestionAndIdentifier() {
        Issue i = new Issue("execute", ErrorCategory.COLUMN_NOT_FOUND, "Referenced column not found", "regionn", List.of("region", "regions"));
        String p = WITH_EVIDENCE.build(failed(1, null, "SELECT regionn FROM sales", i), Dialect.DUCKDB);
        assertTrue(p.contains("(at regionn) Did you mean: region, regions?"), p);
    }

    @Test
    void shouldQuoteTheOffendingTokenOfASyntaxError() {
        Issue i = new Issue("static-validate", ErrorCategory.SYNTAX_ERROR,
                "'SELEC' is not a SQL keyword (did you mean SELECT?): Encountered unexpected token: \"SELEC\" at line 1, column 1.",
                "SELEC", List.of());
        String p = WITH_EVIDENCE.build(failed(1, null, "SELEC region FROM sales", i), Dialect.POSTGRES);
        assertTrue(p.contains("Offending token: 'SELEC'."), p);
        assertTrue(p.contains("line 1, column 1"), p);
    }

    @Test
    void shouldLeaveHintsOutOfTheCorrectionPrompt() {
        Issue error = new Issue("static-validate", ErrorCategory.COLUMN_NOT_FOUND, "column regionn does not exist in sales", "regionn", List.of("region"));
        Issue hint = Issue.hint("static-validate", ErrorCategory.CONSTRAINT_VIOLATION, "question asks for the top 6, SQL has no LIMIT", "LIMIT");
        QuestionTask t = failed(1, null, "SELECT regionn FROM sales", error).withIssues(List.of(hint, error));
        String p = WITH_EVIDENCE.build(t, Dialect.TRINO);
        assertTrue(p.contains("regionn does not exist"), p);
        assertFalse(p.contains("LIMIT"), "a hint about a part that may be right stays out: " + p);
        assertEquals(ErrorCategory.COLUMN_NOT_FOUND, CorrectionPromptBuilder.primaryIssue(t.issues()).category());
    }

    @Test
    void shouldKeepAggregationsWhenFixingGroupBy() {
        String p = prompt(ErrorCategory.AGGREGATION_ERROR, "SELECT region, sum(amount) FROM sales",
                "line 1:8: 'region' must be an aggregate expression or appear in GROUP BY clause");
        assertTrue(p.contains("Keep all aggregations; only add the missing columns to GROUP BY."), p);
    }

    @Test
    void shouldListAvailableTablesForTableErrors() {
        String p = prompt(ErrorCategory.TABLE_NOT_FOUND, "SELECT * FROM sale", "line 1:15: Table 'sale' does not exist");
        assertTrue(p.contains("Use only tables listed in the schema. Tables: sales, regions."), p);
    }

    @Test
    void shouldGiveTheDialectAlternativeForUnsupportedFunctions() {
        String p = prompt(ErrorCategory.UNSUPPORTED_FUNCTION, "SELECT strftime(dt, '%Y') FROM sales", "line 1:8: Function 'strftime' not registered");
        assertTrue(p.contains("Replace the function with a Trino built-in"), p);
        assertTrue(p.contains("Trino: Trino has no strftime(). Use format_datetime"), p);
        assertTrue(p.contains("date_format"), p);
    }

    @Test
    void shouldHaveAnInstructionForEveryCategory() {
        for (ErrorCategory c : ErrorCategory.values()) {
            CorrectionStrategy s = CorrectionStrategy.forCategory(c);
            String p = prompt(c, "SELECT 1", "some error");
            assertTrue(p.contains(s.guidance(Dialect.TRINO, failed(1, null, "SELECT 1"))), c + ": " + p);
        }
        assertEquals(CorrectionStrategy.TYPE_MISMATCH, CorrectionStrategy.forCategory(ErrorCategory.TYPE_MISMATCH));
        assertEquals(CorrectionStrategy.SYNTAX, CorrectionStrategy.forCategory(ErrorCategory.SYNTAX_ERROR));
        assertEquals(CorrectionStrategy.TIMEOUT, CorrectionStrategy.forCategory(ErrorCategory.TIMEOUT));
        assertEquals(CorrectionStrategy.CONSTRAINT_VIOLATION, CorrectionStrategy.forCategory(ErrorCategory.CONSTRAINT_VIOLATION));
        assertEquals(CorrectionStrategy.LLM_OUTPUT_INVALID, CorrectionStrategy.forCategory(ErrorCategory.LLM_OUTPUT_INVALID));
        assertEquals(CorrectionStrategy.GENERIC, CorrectionStrategy.forCategory(ErrorCategory.UNKNOWN));
        assertTrue(prompt(ErrorCategory.TIMEOUT, "SELECT * FROM a, b", "Query exceeded maximum time limit of 3.00s")
                .contains("avoid cross joins"));
        assertTrue(prompt(ErrorCategory.CONSTRAINT_VIOLATION, "SELECT region FROM sales", "the question asks for the top 5; the SQL has no LIMIT")
                .contains("the question asks for the top 5"));
        assertTrue(prompt(ErrorCategory.LLM_OUTPUT_INVALID, "Sure! Here", "the answer was prose, not a SQL statement")
                .contains("Answer with exactly one Trino query and nothing else."));
    }

    @Test
    void shouldStayConciseBesidesTheSqlErrorAndQuestion() {
        for (ErrorCategory c : ErrorCategory.values()) {
            String sql = "SELECT region, sum(amount) FROM sales";
            String error = "line 1:8: 'region' must be an aggregate expression or appear in GROUP BY clause";
            String p = prompt(c, sql, error);
            String rest = p.replace(sql, "").replace(error, "").replace(Tasks.QUESTION, "");
            // 004: ~50 tokens plus the SQL and the error; schema facts and dialect guidance may add a little.
            assertTrue(tokens(rest) <= 90, c + " overhead is " + tokens(rest) + " tokens: " + rest);
        }
        String plain = prompt(ErrorCategory.UNKNOWN, "SELECT 1", "boom").replace("SELECT 1", "").replace("boom", "")
                .replace(Tasks.QUESTION, "");
        assertTrue(tokens(plain) <= 50, "generic overhead " + tokens(plain) + ": " + plain);
    }

    @Test
    void shouldCutLongEngineErrors() {
        String spark = "org.apache.hive.service.cli.HiveSQLException: Error running query: [UNRESOLVED_COLUMN.WITH_SUGGESTION] "
                + "A column or function parameter with name `nosuchcol` cannot be resolved.; line 1 pos 7;\n'Project [nosuchcol]\n"
                + "\tat org.apache.spark.sql.hive.thriftserver.SparkExecuteStatementOperation.run(X.scala:1)\n".repeat(60);
        QuestionTask t = failed(1, null, "SELECT nosuchcol FROM sales", issue(ErrorCategory.COLUMN_NOT_FOUND, spark));
        String p = WITH_EVIDENCE.build(t, Dialect.SPARKSQL);
        assertFalse(p.contains("\tat "), p);
        assertTrue(p.length() < 900, "prompt length " + p.length());
        assertTrue(p.contains("UNRESOLVED_COLUMN"), p);
    }

    @Test
    void shouldStripTheEvidenceWhenToldTo() {
        Issue i = new Issue("static-validate", ErrorCategory.UNSUPPORTED_FUNCTION, "line 1:8: Function 'strftime' not registered",
                "strftime", List.of("format_datetime"));
        QuestionTask t = failed(1, null, "SELECT strftime(dt, '%Y') FROM sales", i);
        String stripped = STRIPPED.build(t, Dialect.TRINO);
        String residue = stripped.replace("SELECT strftime(dt, '%Y') FROM sales", "");
        assertFalse(residue.contains("strftime"), residue);
        assertFalse(residue.contains("not registered"), residue);
        assertFalse(residue.contains("format_datetime"), residue);
        assertTrue(stripped.contains("Replace the function with a Trino built-in"), "the category's instruction stays");
        assertTrue(stripped.endsWith("Fix and regenerate for: \"" + Tasks.QUESTION + "\""));
    }

    @Test
    void shouldAddUpToThreeSimilarPastFixes() {
        PastFixes fixes = (ds, d, issue) -> List.of(
                new PastFixes.PastFix("Function 'strftime' not registered", "SELECT strftime(a)", "SELECT format_datetime(a, 'yyyy')"),
                new PastFixes.PastFix("e2", "s2", "f2"), new PastFixes.PastFix("e3", "s3", "f3"), new PastFixes.PastFix("e4", "s4", "f4"));
        CorrectionPromptBuilder b = new CorrectionPromptBuilder(REGISTRY, fixes, CorrectionPromptBuilder.Evidence.INCLUDED);
        String p = b.build(failed(1, null, "SELECT strftime(dt) FROM sales",
                issue(ErrorCategory.UNSUPPORTED_FUNCTION, "Function 'strftime' not registered")), Dialect.TRINO);
        assertTrue(p.contains("Similar past fixes:\n- error: Function 'strftime' not registered\n  fix: SELECT format_datetime(a, 'yyyy')"), p);
        assertTrue(p.contains("f3") && !p.contains("f4"), p);
        assertFalse(prompt(ErrorCategory.UNSUPPORTED_FUNCTION, "SELECT 1", "x").contains("Similar past fixes"), "none by default");
    }

    @Test
    void shouldPickTheStrategyFromTheRegistryWhenTheStageCouldNotClassifyTheError() {
        String p = prompt(ErrorCategory.UNKNOWN, "SELECT region, sum(amount) FROM sales",
                "line 1:8: 'region' must be an aggregate expression or appear in GROUP BY clause");
        assertTrue(p.contains("Keep all aggregations; only add the missing columns to GROUP BY."), p);
        assertFalse(p.contains("Fix the error."), p);
    }

    @Test
    void shouldAimATooExpensiveRepairAtTheTableAndKeepTheEstimateOutOfAStrippedPrompt() {
        String sql = "SELECT * FROM flight";
        String error = "too expensive to run: the engine estimates 480,000 rows scanned (budget 10,000); largest scans: flight"
                + " (480,000 rows). Not run.";
        String p = prompt(ErrorCategory.TOO_EXPENSIVE, sql, error);
        assertTrue(p.contains("[too_expensive] " + error), p);
        assertTrue(p.contains("add a filter on the partition or date column"), p);
        String stripped = STRIPPED.build(failed(1, null, sql, issue(ErrorCategory.TOO_EXPENSIVE, error)), Dialect.TRINO)
                .replace(sql, "");
        assertFalse(stripped.contains("flight") || stripped.contains("480"), "no table, no estimate without the evidence: " + stripped);
        assertTrue(stripped.contains("Read less"), "the category's instruction stays: " + stripped);
    }
}
