package dev.sqloop.gateway;

import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.QuestionResult;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The console's question table of one batch: its filters (outcome, error category, attempts, datasource), validated like the API's
 * query parameters (an unknown or malformed one is a 400 naming it, never silently ignored), and one page read on from
 * a cursor. A page reads at most {@link #MAX_SCAN} results, so a selective filter over a 100,000-question batch answers
 * in bounded time: the page then ends early with a cursor to read on from, and says so.
 *
 * @param outcome a status ({@code succeeded}, {@code failed}) or a reason ({@code corrected_success}, {@code max_attempts}, …)
 * @param category a failure's error category (wire name)
 * @param attempts the number of attempts
 * @param datasource the question's datasource
 * @param cursor the question id the previous page ended on
 */
record ConsoleTable(String outcome, String category, Integer attempts, String datasource, int limit, String cursor) {
    static final int DEFAULT_LIMIT = 50;
    static final int MAX_LIMIT = 200;
    static final int MAX_SCAN = 20_000;
    static final Set<String> PARAMETERS = Set.of("outcome", "category", "attempts", "datasource", "limit", "cursor", "done");
    /** Question ids are UUIDs or derived from one; anything else is no cursor this console wrote. */
    private static final Pattern CURSOR = Pattern.compile("[A-Za-z0-9._:-]{1,200}");
    private static final Pattern NUMBER = Pattern.compile("[0-9]{1,4}");

    /** One page: its rows, how many results were read for it, and where the next page starts (null at the end). */
    record Page(List<QuestionResult> rows, long scanned, boolean scanCut, String nextCursor) {}

    /** Every outcome a filter may name: the statuses, then the reasons. */
    static List<String> outcomes() {
        List<String> out = new ArrayList<>(List.of(QuestionResult.SUCCEEDED, QuestionResult.FAILED));
        out.add(dev.sqloop.common.error.Outcomes.FIRST_ATTEMPT_SUCCESS);
        out.add(dev.sqloop.common.error.Outcomes.CORRECTED_SUCCESS);
        out.addAll(new TreeSet<>(QuestionMetrics.FAILURE_REASONS));
        out.add(dev.sqloop.common.error.Outcomes.UNCERTAIN); // issue 50: candidates that did not agree, for review
        return out;
    }

    static List<String> categories() {
        return java.util.Arrays.stream(ErrorCategory.values()).map(ErrorCategory::wireName).toList();
    }

    /** The filters of a query string; an empty value (a form's "any") is no filter. */
    static ConsoleTable parse(Map<String, List<String>> params, int maxAttempts) {
        return parse(params, maxAttempts, null);
    }

    /** @param datasources the configured datasources a {@code datasource} filter may name (null: any name) */
    static ConsoleTable parse(Map<String, List<String>> params, int maxAttempts, Set<String> datasources) {
        Map<String, String> given = new LinkedHashMap<>();
        params.forEach((name, values) -> {
            if (!PARAMETERS.contains(name)) throw ApiError.badRequest("unknown filter '" + name + "'; known: " + new TreeSet<>(PARAMETERS), name);
            if (values.size() > 1) throw ApiError.badRequest(name + " is given more than once", name);
            if (!values.isEmpty() && !values.getFirst().isBlank()) given.put(name, values.getFirst().strip());
        });
        String outcome = given.get("outcome");
        if (outcome != null && !outcomes().contains(outcome)) throw ApiError.badRequest("outcome must be one of " + outcomes(), "outcome");
        String category = given.get("category");
        if (category != null && !categories().contains(category)) throw ApiError.badRequest("category must be one of " + categories(), "category");
        Integer attempts = null;
        if (given.containsKey("attempts")) {
            String a = given.get("attempts");
            attempts = NUMBER.matcher(a).matches() ? Integer.parseInt(a) : -1;
            if (attempts < 1 || attempts > maxAttempts) throw ApiError.badRequest("attempts must be an integer between 1 and " + maxAttempts, "attempts");
        }
        String datasource = given.get("datasource");
        if (datasource != null && (datasources == null ? !CURSOR.matcher(datasource).matches() : !datasources.contains(datasource))) {
            throw ApiError.badRequest("datasource must be one of " + (datasources == null ? "the configured datasources" : new TreeSet<>(datasources)),
                    "datasource");
        }
        int limit = DEFAULT_LIMIT;
        if (given.containsKey("limit")) {
            String l = given.get("limit");
            limit = NUMBER.matcher(l).matches() ? Integer.parseInt(l) : -1;
            if (limit < 1 || limit > MAX_LIMIT) throw ApiError.badRequest("limit must be an integer between 1 and " + MAX_LIMIT, "limit");
        }
        String cursor = given.get("cursor");
        if (cursor != null && !CURSOR.matcher(cursor).matches()) throw ApiError.badRequest("cursor is not a question id of this batch", "cursor");
        return new ConsoleTable(outcome, category, attempts, datasource, limit, cursor);
    }

    boolean filtered() {
        return outcome != null || category != null || attempts != null || datasource != null;
    }

    boolean matches(QuestionResult r) {
        if (outcome != null && !outcome.equals(r.status()) && !outcome.equals(r.reason())) return false;
        if (category != null && (r.errorCategory() == null || !category.equals(r.errorCategory().wireName()))) return false;
        if (datasource != null && !datasource.equals(r.datasource())) return false;
        return attempts == null || attempts == r.attempts();
    }

    /**
     * The next page from {@code afterCursor} (the batch's question ids and results in id order, from just after the
     * cursor; a null result is a retried question's reopened row), showing only {@code tenant}'s, reading at most
     * {@code maxScan}.
     */
    Page page(Iterator<Map.Entry<String, QuestionResult>> afterCursor, String tenant, int maxScan) {
        List<QuestionResult> rows = new ArrayList<>();
        long scanned = 0;
        String last = null;
        while (afterCursor.hasNext()) {
            if (rows.size() == limit) return new Page(rows, scanned, false, last);
            if (scanned == maxScan) return new Page(rows, scanned, true, last);
            Map.Entry<String, QuestionResult> e = afterCursor.next();
            scanned++;
            last = e.getKey();
            QuestionResult r = e.getValue();
            if (r != null && tenant.equals(r.tenant()) && matches(r)) rows.add(r);
        }
        return new Page(rows, scanned, false, null);
    }

    /** The query string of these filters (no cursor), for links that keep them. */
    String query() {
        StringBuilder b = new StringBuilder();
        if (outcome != null) b.append("&outcome=").append(outcome);
        if (category != null) b.append("&category=").append(category);
        if (attempts != null) b.append("&attempts=").append(attempts);
        if (datasource != null) b.append("&datasource=").append(java.net.URLEncoder.encode(datasource, java.nio.charset.StandardCharsets.UTF_8));
        if (limit != DEFAULT_LIMIT) b.append("&limit=").append(limit);
        return b.isEmpty() ? "" : b.substring(1);
    }
}
