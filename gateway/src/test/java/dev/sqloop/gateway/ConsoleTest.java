package dev.sqloop.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.AttemptEvent;
import dev.sqloop.common.message.Candidate;
import dev.sqloop.common.message.Issue;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.gateway.Views.QuestionState;
import dev.sqloop.gateway.console.ConsoleModel;
import gg.jte.ContentType;
import gg.jte.TemplateEngine;
import gg.jte.output.StringOutput;
import java.time.Instant;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The console's pure parts: CSRF tokens, the question table's filters and paging, CSV cells, escaping in templates. */
class ConsoleTest {
    private static final String EVIL = "<script>alert('x')</script><img src=x onerror=alert(1)> & \"quoted\"";

    private static QuestionResult result(String id, String tenant, String status, String reason, ErrorCategory category, int attempts) {
        return new QuestionResult(0, id, tenant, "b1", "demo", "Question " + id + "?", status, reason, category, null,
                "succeeded".equals(status) ? "SELECT 1" : null, "failed".equals(status) ? "SELECT nope" : null, attempts, null, null,
                null, null, null, null, null, 3, 0, null, null, null, null);
    }

    private static List<Map.Entry<String, QuestionResult>> batch(QuestionResult... results) {
        List<Map.Entry<String, QuestionResult>> out = new ArrayList<>();
        for (QuestionResult r : results) out.add(new AbstractMap.SimpleImmutableEntry<>(r.questionId(), r));
        return out;
    }

    @Test
    void shouldDeriveOneCsrfTokenPerKeyAndRefuseAnyOther() {
        ConsoleSession sessions = new ConsoleSession(Map.of("key-a", "tenant-a", "key-b", "tenant-b"));
        var a = new ConsoleSession.Signed("tenant-a", "key-a");
        var b = new ConsoleSession.Signed("tenant-b", "key-b");
        assertEquals(sessions.csrf(a), new ConsoleSession(Map.of("key-a", "tenant-a")).csrf(a), "every instance computes the same token");
        assertNotEquals(sessions.csrf(a), sessions.csrf(b));
        assertTrue(sessions.validCsrf(a, sessions.csrf(a)));
        assertFalse(sessions.validCsrf(a, sessions.csrf(b)), "another key's token");
        assertFalse(sessions.validCsrf(a, null));
        assertFalse(sessions.validCsrf(a, ""));
        assertEquals("tenant-a", sessions.tenantOf(" key-a ").orElseThrow());
        assertTrue(sessions.tenantOf("nope").isEmpty());
    }

    @Test
    void shouldKeepTheKeyInAnHttpOnlyStrictCookieOfTheConsoleOnly() {
        String cookie = ConsoleSession.cookie("abc", ConsoleSession.MAX_AGE_SECONDS, true);
        assertEquals("sqloop_console=abc; Path=/console; Max-Age=28800; HttpOnly; SameSite=Strict; Secure", cookie);
        assertFalse(ConsoleSession.cookie("abc", 0, false).contains("Secure"));
    }

    @Test
    void shouldFilterAndPageTheBatchFromItsCursorReadingAtMostTheScanBound() {
        var rows = batch(result("q1", "t", "succeeded", "first_attempt_success", null, 1),
                result("q2", "t", "failed", "max_attempts", ErrorCategory.COLUMN_NOT_FOUND, 3),
                result("q3", "other", "failed", "max_attempts", ErrorCategory.COLUMN_NOT_FOUND, 3),
                result("q4", "t", "succeeded", "corrected_success", null, 2),
                result("q5", "t", "failed", "unchanged_sql", ErrorCategory.TABLE_NOT_FOUND, 2));
        ConsoleTable all = ConsoleTable.parse(Map.of("limit", List.of("2")), 10);
        ConsoleTable.Page first = all.page(rows.iterator(), "t", 100);
        assertEquals(List.of("q1", "q2"), first.rows().stream().map(QuestionResult::questionId).toList());
        assertEquals("q2", first.nextCursor());
        ConsoleTable.Page second = all.page(rows.subList(2, 5).iterator(), "t", 100);
        assertEquals(List.of("q4", "q5"), second.rows().stream().map(QuestionResult::questionId).toList(), "another tenant's row is never shown");
        assertNull(all.page(rows.subList(4, 5).iterator(), "t", 100).nextCursor(), "the end");

        ConsoleTable failed = ConsoleTable.parse(Map.of("outcome", List.of("failed"), "category", List.of("column_not_found")), 10);
        assertEquals(List.of("q2"), failed.page(rows.iterator(), "t", 100).rows().stream().map(QuestionResult::questionId).toList());
        ConsoleTable reason = ConsoleTable.parse(Map.of("outcome", List.of("corrected_success"), "attempts", List.of("2")), 10);
        assertEquals(List.of("q4"), reason.page(rows.iterator(), "t", 100).rows().stream().map(QuestionResult::questionId).toList());
        assertEquals("outcome=corrected_success&attempts=2", reason.query());

        ConsoleTable.Page cut = failed.page(rows.iterator(), "t", 1);
        assertTrue(cut.scanCut(), "the scan bound ends the page early");
        assertEquals("q1", cut.nextCursor(), "and the next page reads on from where it stopped");
        assertFalse(ConsoleTable.parse(Map.of("outcome", List.of("")), 10).filtered(), "a form's empty choice is no filter");
    }

    @Test
    void shouldRefuseAnUnknownOrMalformedFilterNamingIt() {
        assertEquals("outcom", assertThrows(ApiError.class, () -> ConsoleTable.parse(Map.of("outcom", List.of("failed")), 10)).body().field());
        assertEquals("outcome", assertThrows(ApiError.class, () -> ConsoleTable.parse(Map.of("outcome", List.of("<b>")), 10)).body().field());
        assertEquals("attempts", assertThrows(ApiError.class, () -> ConsoleTable.parse(Map.of("attempts", List.of("11")), 10)).body().field());
        assertEquals("limit", assertThrows(ApiError.class, () -> ConsoleTable.parse(Map.of("limit", List.of("0")), 10)).body().field());
        assertEquals("cursor", assertThrows(ApiError.class, () -> ConsoleTable.parse(Map.of("cursor", List.of("a b")), 10)).body().field());
    }

    @Test
    void shouldWriteCsvThatNoSpreadsheetRunsAsAFormula() {
        assertEquals("plain", ConsoleCsv.cell("plain"));
        assertEquals("\"a,b\"", ConsoleCsv.cell("a,b"));
        assertEquals("\"say \"\"hi\"\"\"", ConsoleCsv.cell("say \"hi\""));
        assertEquals("\"'=HYPERLINK(\"\"x\"\")\"", ConsoleCsv.cell("=HYPERLINK(\"x\")"));
        assertTrue(ConsoleCsv.cell("@SUM(A1)").startsWith("'@"));
        assertEquals("-3", ConsoleCsv.cell(-3L), "a number stays a number");
        String line = ConsoleCsv.line(result("q1", "t", "succeeded", "first_attempt_success", null, 1));
        assertEquals(ConsoleCsv.COLUMNS.size(), line.split(",", -1).length, line);
        assertTrue(line.endsWith("\r\n"));
    }

    @Test
    void shouldShowAQuestionFullOfMarkupAsTextWithItsAttemptsAndDiff() {
        Instant now = Instant.parse("2026-01-01T00:00:00Z");
        QuestionResult r = new QuestionResult(0, "q1", "t", "b1", "demo", EVIL, "succeeded", "corrected_success", null, null,
                "SELECT '" + EVIL + "' FROM t", null, 2, null, new dev.sqloop.common.message.Execution(List.of(EVIL), List.of("VARCHAR"), 1,
                List.of(java.util.Arrays.asList(EVIL)), 3), new dev.sqloop.common.message.TokenUsage(10, 5),
                Map.of("generate", 12L), now, now, null, 3, 0, null, null, null, null);
        List<AttemptEvent> events = List.of(
                new AttemptEvent(0, "q1", 1, "validate", "validation", "SELECT id FROM t", List.of(new Issue("validate",
                        ErrorCategory.COLUMN_NOT_FOUND, EVIL, "id", List.of("product_id"))), "repair", "column_not_found: " + EVIL, null, 2, now, 0),
                new AttemptEvent(0, "q1", 2, "validate", "validation", "SELECT product_id FROM t", List.of(), "pass", null, null, 1, now, 0));
        ConsoleModel.Question model = Console.questionModel(new ConsoleModel.Page("Question", "t", "tok", false, null, null), "q1",
                new QuestionState(null, r, events, 0));
        assertEquals(2, model.trace().size());
        assertEquals(List.of(new ConsoleModel.DiffPart("id", "product_id")), model.trace().get(1).diff(), "attempt 2 against attempt 1");
        StringOutput out = new StringOutput();
        TemplateEngine.createPrecompiled(null, ContentType.Html, Console.class.getClassLoader(), "dev.sqloop.gateway.console")
                .render("question.jte", model, out);
        String html = out.toString();
        assertFalse(html.contains("<script>alert"), "no markup of the question reaches the page as markup");
        assertFalse(html.contains("<img src=x"), html);
        assertTrue(html.contains("&lt;script&gt;alert("), "it is shown as text");
        assertTrue(html.contains("<del>id</del><ins>product_id</ins>"), "the diff between the attempts");
        assertTrue(html.contains("name=\"csrf\" value=\"tok\""), "every form carries the token");
    }

    @Test
    void shouldFilterTheBatchListByStateAndIdAndRenderTheFilters() {
        List<ConsoleModel.BatchRow> rows = List.of(
                new ConsoleModel.BatchRow("aaa-111", "t", 10, 10, 0, 9, 1, 0, 100, true, "—", "—", ""),
                new ConsoleModel.BatchRow("bbb-222", "t", 10, 10, 0, 7, 1, 2, 100, true, "—", "—", ""),
                new ConsoleModel.BatchRow("ccc-333", "t", 10, 4, 6, 4, 0, 0, 40, false, "1.0/s", "6 s", ""));
        java.util.function.BiFunction<String, String, List<String>> ids =
                (state, q) -> Console.filterBatches(rows, state, q).stream().map(ConsoleModel.BatchRow::id).toList();
        assertEquals(List.of("ccc-333"), ids.apply("running", null));
        assertEquals(List.of("aaa-111", "bbb-222"), ids.apply("done", null));
        assertEquals(List.of("bbb-222"), ids.apply("with-failures", null));
        assertEquals(List.of("bbb-222"), ids.apply(null, "B-2"), "part of the id, any case");
        assertEquals(List.of(), ids.apply("running", "aaa"), "filters combine");
        assertEquals(3, ids.apply(null, null).size());
        var model = new ConsoleModel.Batches(new ConsoleModel.Page("Batches", "t", "tok", false, null, null), List.of(), false, null, null,
                List.of(new ConsoleModel.Option("running", "running", true)), EVIL, true, "/console/batches?page=1&state=running");
        StringOutput out = new StringOutput();
        TemplateEngine.createPrecompiled(null, ContentType.Html, Console.class.getClassLoader(), "dev.sqloop.gateway.console")
                .render("batches.jte", model, out);
        String html = out.toString();
        assertTrue(html.contains("id=\"no-batches\""), "a filter that matches nothing says so");
        assertTrue(html.contains("<option value=\"running\" selected"), html);
        assertFalse(html.contains("<script>alert"), "the search text is shown escaped");
    }

    @Test
    void shouldShowEachAttemptsPromptPartsItsOwnTokensAndTheTraceId() {
        Instant now = Instant.parse("2026-01-01T00:00:00Z");
        var usage1 = new dev.sqloop.common.message.TokenUsage(800, 40, 0, 0.0010);
        var usage2 = new dev.sqloop.common.message.TokenUsage(1900, 90, 512, 0.0030);
        var first = new dev.sqloop.common.message.PromptParts(List.of("orders", "customers"), false,
                List.of(new dev.sqloop.common.message.PromptParts.ExampleShown(EVIL, 0.8731, "seed")), usage1);
        var second = new dev.sqloop.common.message.PromptParts(List.of("orders"), true, List.of(), usage2);
        List<AttemptEvent> events = List.of(
                new AttemptEvent(0, "q1", 1, "validate", "validation", "SELECT id FROM t", List.of(), "repair", "x", null, 2, now, 0, Map.of(), first),
                new AttemptEvent(0, "q1", 1, "execute", "execution", "SELECT id FROM t", List.of(), "repair", "x", null, 2, now, 0),
                new AttemptEvent(0, "q1", 2, "validate", "validation", "SELECT product_id FROM t", List.of(), "pass", null, null, 1, now, 0, Map.of(), second));
        QuestionResult r = result("q1", "t", "succeeded", "corrected_success", null, 2);
        var submission = new dev.sqloop.gateway.Views.Submission("q1", "t", "b1", "demo", "q", 3, now, Map.of(), "4bf92f3577b34da6a3ce929d0e0e4736");
        ConsoleModel.Question model = Console.questionModel(new ConsoleModel.Page("Question", "t", "tok", false, null, null), "q1",
                new QuestionState(submission, r, events, 0));
        assertEquals("800 in · 40 out · $0.0010", model.trace().get(0).prompt().spent(), "attempt 1: the running sum itself");
        assertNull(model.trace().get(1).prompt(), "only the validator's event carries the prompt");
        assertEquals("1100 in (512 cached) · 50 out · $0.0020", model.trace().get(2).prompt().spent(), "attempt 2: its own share");
        assertEquals("0.87", model.trace().get(0).prompt().examples().getFirst().score());
        StringOutput out = new StringOutput();
        TemplateEngine.createPrecompiled(null, ContentType.Html, Console.class.getClassLoader(), "dev.sqloop.gateway.console")
                .render("question.jte", model, out);
        String html = out.toString();
        assertTrue(html.contains("<code>orders</code> <code>customers</code>"), "the schema shown");
        assertTrue(html.contains("linked schema, 2 table(s), 1 example(s)"), html);
        assertTrue(html.contains("whole schema, 1 table(s), 0 example(s)"), html);
        assertFalse(html.contains("<script>alert"), "an example's question is text too");
        assertTrue(html.contains("id=\"trace-id\">4bf92f3577b34da6a3ce929d0e0e4736<"), "the trace id");
        assertEquals("", Console.spent(dev.sqloop.common.message.TokenUsage.ZERO), "no tokens: nothing to show");
    }

    @Test
    void shouldCountAQuestionByTheFirstErrorOfItsAttemptOneAtItsStage() {
        Issue hint = Issue.hint("validate", ErrorCategory.TYPE_MISMATCH, "a date compared with text", "d");
        Issue missing = Issue.of("validate", ErrorCategory.COLUMN_NOT_FOUND, "no column o_total");
        Issue engine = Issue.of("execute", ErrorCategory.AGGREGATION_ERROR, "must appear in GROUP BY");
        Instant now = Instant.now();
        QuestionResult repaired = result("q1", "t", "succeeded", "corrected_success", null, 2);
        List<AttemptEvent> trace = List.of(
                new AttemptEvent(0, "q1", 1, "repair", "retry", "SELECT o_total", List.of(hint, missing), "retry", null, null, 1, now, 0),
                new AttemptEvent(0, "q1", 2, "repair", "retry", "SELECT x", List.of(engine), "retry", null, null, 1, now, 0));
        assertEquals("column_not_found@validate", Views.FirstErrors.of(new QuestionState(null, repaired, trace, 0)),
                "attempt 1's first error, not a hint and not a later attempt's");
        assertNull(Views.FirstErrors.of(new QuestionState(null, result("q2", "t", "succeeded", "first_attempt_success", null, 1), List.of(), 0)));
        QuestionResult failed = new QuestionResult(0, "q3", "t", "b1", "demo", "Q?", "failed", "non_retryable", ErrorCategory.AGGREGATION_ERROR,
                "x", null, "SELECT 1", 1, List.of(engine), null, null, null, null, null, null, 3, 0, null, null, null, null);
        assertEquals("aggregation_error@execute", Views.FirstErrors.of(new QuestionState(null, failed, List.of(), 0)),
                "a failure without its repair event: its result's error");
        assertNull(Views.FirstErrors.of(new QuestionState(null, null, trace, 0)), "no result yet");
        Views.FirstErrors counts = Views.FirstErrors.EMPTY.add("column_not_found@validate", 1).add("column_not_found@validate", 1)
                .add("aggregation_error@execute", 1).add("aggregation_error@execute", -1).add("table_not_found@validate", 1);
        assertEquals(Map.of("column_not_found@validate", 2L, "table_not_found@validate", 1L), counts.counts(), "a retried question's count leaves");
        List<ConsoleModel.FirstError> rows = Console.firstErrorRows(counts.counts());
        assertEquals(new ConsoleModel.FirstError("column_not_found", "validate", 2, 67), rows.getFirst());
        assertEquals(List.of(0L, 0L, 5L, 1L), Console.repairs(Map.of("max_attempts", 5L, "non_retryable", 1L, "first_attempt_success", 9L))
                .stream().map(ConsoleModel.Count::count).toList(), "repairs by decision: corrected, unchanged, max attempts, non-retryable");
    }

    @Test
    void shouldShowTheCandidatesSideBySideGroupedByWhatTheyReturned() {
        Instant now = Instant.parse("2026-01-01T00:00:00Z");
        var four = new dev.sqloop.common.message.Execution(List.of("n"), List.of("BIGINT"), 1, List.of(List.<Object>of(4)), 2);
        var five = new dev.sqloop.common.message.Execution(List.of("n"), List.of("BIGINT"), 1, List.of(List.<Object>of(5)), 2);
        List<Candidate> candidates = List.of(
                Candidate.generated(1, "SELECT count(*) AS n FROM t").ran(four, "aaaaaaaaaaaaaaaaaaaa"),
                Candidate.generated(2, "SELECT count(DISTINCT x) AS n FROM t").ran(five, "bbbbbbbbbbbbbbbbbbbb"),
                Candidate.generated(3, "SELECT count(idd) AS n FROM t").failed("column_not_found: idd")
                        .repairedAs(Candidate.generated(3, "SELECT count(id) AS n FROM t")).ran(four, "aaaaaaaaaaaaaaaaaaaa"),
                Candidate.invalid(4, EVIL, "not one read-only query: " + EVIL));
        QuestionResult r = new QuestionResult(0, "q1", "t", "b1", "demo", "How many?", "succeeded", "first_attempt_success", null, null,
                "SELECT count(*) AS n FROM t", null, 1, null, four, null, null, now, now, null, 3, 0, null, null, null, candidates);
        List<ConsoleModel.CandidateRow> rows = Console.candidateRows(r);
        assertEquals(List.of(1, 2, 1, 0), rows.stream().map(ConsoleModel.CandidateRow::group).toList(), "largest group first; 0: did not run");
        assertEquals(List.of(true, false, false, false), rows.stream().map(ConsoleModel.CandidateRow::chosen).toList());
        assertEquals(2, rows.getFirst().groupSize());
        assertEquals(List.of(), Console.candidateRows(result("q2", "t", "succeeded", "first_attempt_success", null, 1)), "one candidate: no section");
        ConsoleModel.Question model = Console.questionModel(new ConsoleModel.Page("Question", "t", "tok", false, null, null), "q1",
                new QuestionState(new dev.sqloop.gateway.Views.Submission("q1", "t", "b1", "demo", "q", 3, now, Map.of(), null), r, List.of(), 0));
        StringOutput out = new StringOutput();
        TemplateEngine.createPrecompiled(null, ContentType.Html, Console.class.getClassLoader(), "dev.sqloop.gateway.console")
                .render("question.jte", model, out);
        String html = out.toString();
        assertTrue(html.contains("id=\"candidates\""), html);
        assertTrue(html.contains("class=\"candidate chosen\" data-candidate=\"1\" data-group=\"1\""), html);
        assertTrue(html.contains("data-candidate=\"4\" data-group=\"0\""), "the one that did not run is shown too");
        assertFalse(html.contains("<script>alert"), "a candidate's text and error are shown escaped");
        assertTrue(html.contains("data-attempt=\"2\">repaired, attempt 2"), "a repaired candidate says so");
        // a majority's winner need not be candidate 1: the first that ran the answer's SQL is marked
        QuestionResult byThird = new QuestionResult(0, "q1", "t", "b1", "demo", "How many?", "succeeded", "first_attempt_success", null, null,
                "SELECT count(id) AS n FROM t", null, 1, null, four, null, null, now, now, null, 3, 0, null, null, null, candidates);
        assertEquals(List.of(false, false, true, false), Console.candidateRows(byThird).stream().map(ConsoleModel.CandidateRow::chosen).toList());
    }
}
