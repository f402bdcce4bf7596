package dev.sqloop.gateway;

import dev.sqloop.common.error.Outcomes;
import dev.sqloop.common.message.Issue;
import dev.sqloop.common.message.QuestionResult;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiFunction;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * The console's review queue: the finished questions a reviewer should look at, newest batch first and in question id
 * order within a batch, paged on the server from a cursor ({@code batchId/questionId}). A question is in the queue for
 * each of its {@link #FLAGS}: it failed (a cancellation is not a finding), repair changed its result, a hint rode along,
 * it ran and returned no rows, or its success was auto-captured into the example memory (so it feeds later prompts).
 * Like {@link ConsoleTable}, a page reads at most {@link ConsoleTable#MAX_SCAN} results and then ends with a cursor,
 * so a quiet 100,000-question batch costs one bounded page, never a whole scan.
 *
 * @param why only questions with this flag (null: any flag)
 * @param batch only this batch (null: every batch of the tenant)
 * @param cursor {@code batchId/questionId} the previous page ended on
 */
record ReviewQueue(String why, String batch, int limit, String cursor) {
    static final String FAILED = "failed";
    static final String REPAIRED = "repaired";
    static final String HINT = "hint";
    static final String NO_ROWS = "no_rows";
    static final String CAPTURED = "captured";
    /** Why a question is in the queue, in the order a row shows them. */
    static final List<String> FLAGS = List.of(FAILED, REPAIRED, HINT, NO_ROWS, CAPTURED);
    static final Set<String> PARAMETERS = Set.of("why", "batch", "limit", "cursor", "done");
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9._:-]{1,200}");
    private static final Pattern NUMBER = Pattern.compile("[0-9]{1,4}");

    /** One question of the queue and why it is there. */
    record Item(QuestionResult result, List<String> flags) {}

    /** One page: its items, how many results were read for it, and where the next page starts (null at the end). */
    record Page(List<Item> items, long scanned, boolean scanCut, String nextCursor) {}

    static ReviewQueue parse(Map<String, List<String>> params) {
        Map<String, String> given = new LinkedHashMap<>();
        params.forEach((name, values) -> {
            if (!PARAMETERS.contains(name)) throw ApiError.badRequest("unknown filter '" + name + "'; known: " + new TreeSet<>(PARAMETERS), name);
            if (values.size() > 1) throw ApiError.badRequest(name + " is given more than once", name);
            if (!values.isEmpty() && !values.getFirst().isBlank()) given.put(name, values.getFirst().strip());
        });
        String why = given.get("why");
        if (why != null && !FLAGS.contains(why)) throw ApiError.badRequest("why must be one of " + FLAGS, "why");
        String batch = given.get("batch");
        if (batch != null && !ID.matcher(batch).matches()) throw ApiError.badRequest("batch is not a batch id", "batch");
        int limit = ConsoleTable.DEFAULT_LIMIT;
        if (given.containsKey("limit")) {
            String l = given.get("limit");
            limit = NUMBER.matcher(l).matches() ? Integer.parseInt(l) : -1;
            if (limit < 1 || limit > ConsoleTable.MAX_LIMIT) {
                throw ApiError.badRequest("limit must be an integer between 1 and " + ConsoleTable.MAX_LIMIT, "limit");
            }
        }
        String cursor = given.get("cursor");
        if (cursor != null) {
            int slash = cursor.indexOf('/');
            if (slash < 0 || !ID.matcher(cursor.substring(0, slash)).matches() || !ID.matcher(cursor.substring(slash + 1)).matches()) {
                throw ApiError.badRequest("cursor is not a position of this queue", "cursor");
            }
        }
        return new ReviewQueue(why, batch, limit, cursor);
    }

    /**
     * Why {@code r} needs a look, in {@link #FLAGS} order (empty: it does not). {@code captured} says whether the
     * question's success is the tenant's auto-captured example now.
     */
    static List<String> flags(QuestionResult r, Predicate<QuestionResult> captured) {
        List<String> out = new ArrayList<>(2);
        if (!r.succeeded()) {
            if (!Outcomes.CANCELLED.equals(r.reason())) out.add(FAILED);
        } else if (Outcomes.CORRECTED_SUCCESS.equals(r.reason())) {
            out.add(REPAIRED);
        }
        if (r.issues().stream().anyMatch(Issue::hint)) out.add(HINT);
        // no rows, not "one row": every aggregate answers one row, and most questions of a batch are aggregates
        if (r.succeeded() && r.execution() != null && r.execution().rowCount() == 0) out.add(NO_ROWS);
        if (r.succeeded() && captured.test(r)) out.add(CAPTURED);
        return out;
    }

    boolean filtered() {
        return why != null || batch != null;
    }

    /**
     * The next page: {@code batchesNewestFirst} are the tenant's batch ids in queue order; {@code results} opens a
     * batch's results (question id → result, in id order) from just after a question id (from its first when null).
     * An iterator that is {@link AutoCloseable} is closed once read.
     */
    Page page(List<String> batchesNewestFirst, BiFunction<String, String, Iterator<Map.Entry<String, QuestionResult>>> results,
              String tenant, Predicate<QuestionResult> captured, int maxScan) {
        List<String> batches = batch == null ? batchesNewestFirst : batchesNewestFirst.stream().filter(batch::equals).toList();
        int from = 0;
        String after = null;
        if (cursor != null) {
            int slash = cursor.indexOf('/');
            from = batches.indexOf(cursor.substring(0, slash));
            if (from < 0) throw ApiError.badRequest("cursor names no batch of this queue", "cursor");
            after = cursor.substring(slash + 1);
        }
        List<Item> items = new ArrayList<>();
        long scanned = 0;
        // the last position read: the next page starts just after it (in the next batch once this one is read out)
        String lastBatch = null;
        String lastKey = null;
        for (int b = from; b < batches.size(); b++) {
            if (items.size() == limit || scanned == maxScan) return new Page(items, scanned, items.size() < limit, lastBatch + "/" + lastKey);
            String batchId = batches.get(b);
            Iterator<Map.Entry<String, QuestionResult>> it = results.apply(batchId, b == from ? after : null);
            try {
                while (it.hasNext()) {
                    if (items.size() == limit || scanned == maxScan) {
                        return new Page(items, scanned, items.size() < limit, lastBatch + "/" + lastKey);
                    }
                    Map.Entry<String, QuestionResult> e = it.next();
                    scanned++;
                    lastBatch = batchId;
                    lastKey = e.getKey();
                    QuestionResult r = e.getValue();
                    if (r == null || !tenant.equals(r.tenant())) continue;
                    List<String> flags = flags(r, captured);
                    if (!flags.isEmpty() && (why == null || flags.contains(why))) items.add(new Item(r, flags));
                }
            } finally {
                if (it instanceof AutoCloseable c) {
                    try {
                        c.close();
                    } catch (Exception ignored) {
                        // a store iterator's close does not fail; nothing to undo if it did
                    }
                }
            }
        }
        return new Page(items, scanned, false, null);
    }

    /** The query string of these filters (no cursor), for links that keep them. */
    String query() {
        StringBuilder b = new StringBuilder();
        if (why != null) b.append("&why=").append(why);
        if (batch != null) b.append("&batch=").append(batch);
        if (limit != ConsoleTable.DEFAULT_LIMIT) b.append("&limit=").append(limit);
        return b.isEmpty() ? "" : b.substring(1);
    }

    /** {@link #query()} with the cursor: the page itself, for returning to it after an action. */
    String queryWithCursor() {
        String q = query();
        if (cursor == null) return q;
        String c = "cursor=" + java.net.URLEncoder.encode(cursor, java.nio.charset.StandardCharsets.UTF_8);
        return q.isEmpty() ? c : q + "&" + c;
    }
}
