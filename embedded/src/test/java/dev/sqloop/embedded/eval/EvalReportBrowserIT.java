package dev.sqloop.embedded.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.datasource.Datasources;
import dev.sqloop.testkit.HeadlessBrowser;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * report.html in a real browser (Debian's Chromium, headless): it renders — a screenshot of the window size, not
 * blank, with the charts' bars drawn in both configurations' colours — the page logs nothing to the console, and its
 * filter shows exactly the rows asked for.
 */
class EvalReportBrowserIT {
    private static final int WIDTH = 1000;
    private static final int HEIGHT = 2600;

    private static EvalReport report() {
        List<EvalCase> cases = new ArrayList<>();
        List<Eval.Row> rows = new ArrayList<>();
        String[] categories = {"join", "group_by", "order_by", "date_functions"};
        String[] errors = {"column_not_found", "syntax_error", "table_not_found", null};
        for (int i = 0; i < 12; i++) {
            EvalCase c = new EvalCase("q" + i, "question <" + i + "> & co", "SELECT " + i, "dw", categories[i % 4]);
            cases.add(c);
            String error = errors[i % 4];
            Eval.FirstError first = error == null ? null : new Eval.FirstError(error, "execute", "Binder Error: <" + error + ">");
            rows.add(new Eval.Row(c, 1, error == null ? "succeeded" : "failed", error == null ? "first_attempt_success" : "max_attempts",
                    1, error == null ? c.gold() : null, error == null ? null : "SELECT broken " + i, first, 500,
                    new Scorer.Score(error == null, error == null, error == null, error == null, null, 3)));
            boolean fixed = i % 5 != 0;
            rows.add(new Eval.Row(c, 3, fixed || error == null ? "succeeded" : "failed",
                    error == null ? "first_attempt_success" : fixed ? "corrected_success" : "max_attempts", error == null ? 1 : fixed ? 2 : 3,
                    fixed || error == null ? c.gold() : null, fixed || error == null ? null : "SELECT still broken " + i, first, 900,
                    new Scorer.Score(fixed || error == null, fixed || error == null, fixed || error == null, fixed || error == null, null, 3)));
        }
        return new EvalReport(cases, List.of(1, 3), rows, Map.of(1, 4.0, 3, 7.5),
                Datasources.of(DatasourceConfig.of("dw", Dialect.DUCKDB, "jdbc:duckdb:", null, null)), Map.of());
    }

    private static int pixels(BufferedImage image, int rgb) {
        int n = 0;
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) if ((image.getRGB(x, y) & 0xffffff) == rgb) n++;
        }
        return n;
    }

    @Test
    void shouldRenderTheReportWithItsChartsAndNoConsoleErrors(@TempDir Path dir) throws Exception {
        report().write(dir);
        HeadlessBrowser.Render render = HeadlessBrowser.render(dir.resolve("report.html"), WIDTH, HEIGHT);
        assertEquals(List.of(), render.console(), "the page logs nothing: no error, no uncaught exception");
        BufferedImage image = ImageIO.read(render.screenshot().toFile());
        assertEquals(List.of(WIDTH, HEIGHT), List.of(image.getWidth(), image.getHeight()));
        int white = pixels(image, 0xffffff);
        long total = (long) WIDTH * HEIGHT;
        System.out.printf("screenshot %dx%d, %d bytes, %.1f %% non-white%n", image.getWidth(), image.getHeight(),
                Files.size(render.screenshot()), 100.0 * (total - white) / total);
        assertTrue(total - white > total / 50, "not blank: " + (total - white) + " non-white pixels");
        // the bars of the two series (Charts' first two colours), several charts' worth
        assertTrue(pixels(image, 0x4e79a7) > 2000, "max 1 bars drawn: " + pixels(image, 0x4e79a7));
        assertTrue(pixels(image, 0xf28e2b) > 2000, "max 3 bars drawn: " + pixels(image, 0xf28e2b));
        Files.deleteIfExists(render.screenshot());
    }

    /**
     * The per-question rows' filter, run by Chromium: a filter in the address ({@code #config=1&outcome=max_attempts})
     * leaves exactly the matching rows shown and says how many; an unfiltered page shows every row.
     */
    @Test
    void shouldFilterTheQuestionRowsInTheBrowser(@TempDir Path dir) throws Exception {
        EvalReport report = report();
        report.write(dir);
        long expected = report.rows().stream().filter(r -> r.maxAttempts() == 1 && r.reason().equals("max_attempts")).count();
        assertTrue(expected > 0 && expected < report.rows().size());
        java.net.URI page = dir.resolve("report.html").toUri();
        String filtered = HeadlessBrowser.dom(java.net.URI.create(page + "#config=1&outcome=max_attempts"));
        java.util.regex.Matcher row = java.util.regex.Pattern.compile("<tr data-config=\"(\\d+)\" data-outcome=\"([a-z_]+)\"[^>]*?( hidden=\"\")?>")
                .matcher(filtered);
        int shown = 0;
        int rows = 0;
        while (row.find()) {
            rows++;
            if (row.group(3) == null) {
                shown++;
                assertEquals(List.of("1", "max_attempts"), List.of(row.group(1), row.group(2)), "only matching rows are shown");
            }
        }
        assertEquals(report.rows().size(), rows, "every row is on the page");
        assertEquals(expected, shown);
        assertTrue(filtered.contains("<span id=\"shown\">" + expected + "</span>"), "the count of shown rows");
        String all = HeadlessBrowser.dom(page);
        assertTrue(all.contains("<span id=\"shown\">" + report.rows().size() + "</span>") && !all.contains("hidden=\"\""), "unfiltered: all shown");
    }

    /** The console check is not blind: a page with a script error and a console.error is caught. */
    @Test
    void shouldSeeConsoleErrorsOfABrokenPage(@TempDir Path dir) throws Exception {
        Path page = Files.writeString(dir.resolve("broken.html"), "<!DOCTYPE html><html><body><p>x</p>"
                + "<script>console.error('report-check'); notDefined();</script></body></html>");
        HeadlessBrowser.Render render = HeadlessBrowser.render(page, 400, 300);
        assertEquals(2, render.console().size(), render.log());
        assertTrue(render.console().getFirst().contains("report-check"), render.console().toString());
        assertTrue(render.console().get(1).contains("Uncaught ReferenceError: notDefined is not defined"), render.console().toString());
        Files.deleteIfExists(render.screenshot());
    }
}
