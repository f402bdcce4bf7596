package dev.sqloop.embedded.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.datasource.Datasources;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;

/** The report's aggregates and its HTML: a self-contained page whose charts are well-formed SVG. */
class EvalReportTest {
    private static final EvalCase A = new EvalCase("a", "q a", "SELECT 1", "dw", "join");
    private static final EvalCase B = new EvalCase("b", "q b", "SELECT 2", "dw", "group_by");

    private static Eval.Row row(EvalCase c, int max, String reason, int attempts, boolean ex, String firstError) {
        boolean ok = reason.endsWith("success");
        return new Eval.Row(c, max, ok ? "succeeded" : "failed", reason, attempts, ok ? c.gold() : null, firstError, 100,
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
    void shouldWriteASelfContainedPageWithWellFormedCharts() throws Exception {
        String html = report().html();
        assertTrue(html.startsWith("<!DOCTYPE html>"));
        assertTrue(!html.contains("<script") && !html.contains("http://") || html.contains("http://www.w3.org/2000/svg"),
                "no script, no external resource");
        Matcher svg = Pattern.compile("<svg.*?</svg>", Pattern.DOTALL).matcher(html);
        int charts = 0;
        while (svg.find()) {
            DocumentBuilderFactory.newInstance().newDocumentBuilder()
                    .parse(new ByteArrayInputStream(svg.group().getBytes(StandardCharsets.UTF_8)));
            charts++;
        }
        assertEquals(4, charts, "success by attempt, first errors, EX by category, retry vs no retry");
        assertTrue(html.contains("column_not_found") && html.contains("group_by"), "the categories are labelled");
    }
}
