package dev.sqloop.embedded.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.datasource.Datasources;
import dev.sqloop.common.message.TokenUsage;
import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.common.JsonCodec;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report's aggregates, its definitions, questions.jsonl's fields and its HTML: a self-contained page whose charts
 * are well-formed SVG on 0–100 % axes, with one filterable row per question.
 */
class EvalReportTest {
    private static final EvalCase A = new EvalCase("a", "q a", "SELECT 1", "dw", "join");
    private static final EvalCase B = new EvalCase("b", "q b", "SELECT 2", "dw", "group_by", "only the b part");

    private static Eval.Row row(EvalCase c, int max, String reason, int attempts, boolean ex, String firstError) {
        boolean ok = reason.endsWith("success");
        return new Eval.Row(c, max, ok ? "succeeded" : "failed", reason, attempts, ok ? c.gold() : null, ok ? null : "SELECT x",
                firstError == null ? null : new Eval.FirstError(firstError, "static-validate", "no column x"), 100,
                new Scorer.Score(ok, ex, null, ex, null));
    }

    private static EvalReport report() {
        List<Eval.Row> rows = new ArrayList<>(List.of(
                row(A, 1, "first_attempt_success", 1, true, null), row(B, 1, "max_attempts", 1, false, "column_not_found"),
                row(A, 3, "first_attempt_success", 1, true, null), row(B, 3, "corrected_success", 2, true, "column_not_found")));
        return new EvalReport(List.of(A, B), List.of(1, 3), rows, Map.of(1, 1.0, 3, 2.0),
                Datasources.of(DatasourceConfig.of("dw", Dialect.DUCKDB, "jdbc:duckdb:", null, null)),
                Map.of(3, Map.of("first_attempt_success", 1L, "corrected_success", 1L)));
    }

    @Test
    void shouldAggregateEachConfiguration() {
        EvalReport r = report();
        assertEquals(1, r.summary(1).ex());
        assertEquals(2, r.summary(3).ex());
        assertEquals(1.0, r.summary(3).correctionEffectiveness());
        assertEquals(0.0, r.summary(1).correctionEffectiveness(), "one repair failure, nothing corrected");
        assertEquals(Map.of("attempt 1", 1, "attempt 2", 1, "attempt 3", 0, "failed", 0), r.successByAttempt().get(3));
        assertTrue(r.comparison().contains("pipeline metrics agree") && r.comparison().contains("yes"), r.comparison());
    }

    @Test
    void shouldSumTokensByKindAndPriceEachQuestionAndEachSuccess() {
        Eval.Row a = new Eval.Row(A, 3, "succeeded", "first_attempt_success", 1, "SELECT 1", null, null, 1520,
                new Scorer.Score(true, true, null, true, null), new TokenUsage(1500, 20, 1152, 0.001));
        Eval.Row b = new Eval.Row(B, 3, "failed", "max_attempts", 3, null, "SELECT x", null, 4560,
                new Scorer.Score(false, false, null, false, null), new TokenUsage(4500, 60, 3456, 0.003));
        EvalReport r = new EvalReport(List.of(A, B), List.of(3), List.of(a, b), Map.of(3, 1.0),
                Datasources.of(DatasourceConfig.of("dw", Dialect.DUCKDB, "jdbc:duckdb:", null, null)), Map.of());
        EvalReport.Summary s = r.summary(3);
        assertEquals(new TokenUsage(6000, 80, 4608, 0.004), s.usage());
        assertEquals(0.002, s.costPerQuestion(), 1e-12);
        assertEquals(0.004, s.costPerSuccess(), 1e-12, "the failure's cost is borne by the one success");
        assertEquals(0.768, s.cachedShare(), 1e-12);
        assertTrue(r.comparison().contains("3000 / 2304 (77 %) / 40"), r.comparison());
        assertTrue(r.comparison().contains("0.002000 USD (per success 0.004000)"), r.comparison());
    }

    @Test
    void shouldWriteASelfContainedPageWithWellFormedChartsOnAxesFromZeroToOneHundred() throws Exception {
        String html = report().html();
        assertTrue(html.startsWith("<!DOCTYPE html>"));
        assertFalse(Pattern.compile("\\b(src|href)\\s*=|@import|url\\(").matcher(html).find(), "nothing loaded from elsewhere");
        assertEquals(List.of("http://www.w3.org/2000/svg"), Pattern.compile("https?://[^\"' ]+").matcher(html).results()
                .map(m -> m.group()).distinct().toList(), "the only address is the SVG namespace");
        Matcher svg = Pattern.compile("<svg.*?</svg>", Pattern.DOTALL).matcher(html);
        int charts = 0;
        while (svg.find()) {
            DocumentBuilderFactory.newInstance().newDocumentBuilder()
                    .parse(new ByteArrayInputStream(svg.group().getBytes(StandardCharsets.UTF_8)));
            for (int tick = 0; tick <= 100; tick += 20) assertTrue(svg.group().contains(">" + tick + " %</text>"), "axis tick " + tick + " %");
            charts++;
        }
        assertEquals(4, charts, "success by attempt, first errors, EX by category, retry vs no retry");
        assertTrue(html.contains("column_not_found") && html.contains("group_by"), "the categories are labelled");
    }

    /** The issue's chart: 85 % was drawn full width (scaled to the largest bar). On a 0–100 % axis it is 85 % long. */
    @Test
    void shouldDrawABarAsLongAsItsShareNotAsTheLargestBar() {
        String svg = Charts.bars("t", "axis", List.of("max 1"), Map.of("EX", new Charts.Bar[] {new Charts.Bar(85, "17 of 20")}));
        assertTrue(svg.contains("width=\"340\" height=\"12\""), "85 % of the 400-pixel plot: " + svg);
        String full = Charts.bars("t", "axis", List.of("max 1"), Map.of("EX", new Charts.Bar[] {new Charts.Bar(100, "20 of 20")}));
        assertTrue(full.contains("width=\"400\" height=\"12\""), full);
    }

    @Test
    void shouldStateEveryMetricsDefinitionInEachReport(@TempDir Path dir) throws Exception {
        EvalReport r = report();
        r.write(dir);
        String html = Files.readString(dir.resolve("report.html"));
        String md = Files.readString(dir.resolve("report.md"));
        JsonNode json = JsonCodec.mapper().readTree(dir.resolve("report.json").toFile());
        for (String metric : List.of("VA", "EX", "TS", "EM", "correction effectiveness", "first error", "LLM cost per question",
                "prompt / cached / output tokens per question")) {
            assertTrue(html.contains("<dt>" + metric + "</dt>"), "html defines " + metric);
            assertTrue(md.contains("- **" + metric + "**: "), "md defines " + metric);
            assertTrue(json.path("definitions").hasNonNull(metric), "json defines " + metric);
        }
        assertTrue(EvalReport.DEFINITIONS.get("TS").contains("never exceeds EX"));
    }

    @Test
    void shouldKeepEachQuestionsReasonInQuestionsJsonlAndShowItInFilterableRows(@TempDir Path dir) throws Exception {
        EvalReport r = report();
        r.write(dir);
        List<String> lines = Files.readAllLines(dir.resolve(Eval.QUESTIONS));
        assertEquals(4, lines.size());
        JsonNode failed = JsonCodec.mapper().readTree(lines.get(1));
        assertEquals("b", failed.path("id").asText());
        assertEquals("max_attempts", failed.path("outcome").asText());
        assertEquals(1, failed.path("attempts").asInt());
        assertTrue(failed.path("sql").isMissingNode(), "no final SQL on a failure");
        assertEquals("SELECT x", failed.path("lastRejectedSql").asText());
        assertEquals("column_not_found", failed.path("firstError").path("category").asText());
        assertEquals("static-validate", failed.path("firstError").path("stage").asText());
        assertEquals("no column x", failed.path("firstError").path("message").asText());
        assertEquals("SELECT 2", failed.path("gold").asText());
        assertEquals("q b", failed.path("question").asText());
        assertEquals("only the b part", failed.path("instructions").asText());
        JsonNode right = JsonCodec.mapper().readTree(lines.get(0));
        assertEquals("SELECT 1", right.path("sql").asText());
        assertTrue(right.path("firstError").isMissingNode() && right.path("lastRejectedSql").isMissingNode());
        // what a resumed run reads back is what was written
        assertEquals(r.rows(), EvalReport.readRows(dir.resolve(Eval.QUESTIONS), Map.of("a", A, "b", B), List.of(1, 3)));

        String html = r.html();
        assertEquals(4, Pattern.compile("<tr data-config=").matcher(html).results().count(), "one row per question and configuration");
        assertTrue(html.contains("data-outcome=\"max_attempts\" data-error=\"column_not_found\" data-ex=\"wrong\""), html);
        assertTrue(html.contains("refused: <code>SELECT x</code>") && html.contains("column_not_found at static-validate: <code>no column x</code>"));
        assertTrue(html.contains("instructions: only the b part"));
        assertTrue(html.contains("<select name=\"outcome\">") && html.contains("<script>"), "filterable");
    }
}
