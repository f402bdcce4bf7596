package dev.sqloop.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.Execution;
import dev.sqloop.common.message.Issue;
import dev.sqloop.common.message.QuestionResult;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The review queue's picks (why a question needs a look), its order across batches, its cursor and its scan bound. */
class ReviewQueueTest {
    private static QuestionResult result(String batch, String id, String tenant, String status, String reason, List<Issue> issues,
                                         long rows) {
        boolean ok = "succeeded".equals(status);
        Execution x = ok ? new Execution(List.of("n"), List.of("BIGINT"), rows, List.of(), 1) : null;
        return new QuestionResult(0, id, tenant, batch, "demo", "Question " + id + "?", status, reason,
                ok ? null : ErrorCategory.COLUMN_NOT_FOUND, null, ok ? "SELECT 1" : null, ok ? null : "SELECT nope", ok ? 1 : 3, issues, x,
                null, null, null, null, null, 3, 0, null, null, null, null);
    }

    private static QuestionResult ok(String batch, String id, long rows) {
        return result(batch, id, "t", "succeeded", "first_attempt_success", List.of(), rows);
    }

    /** Batches in store order (question id order), as the results-by-batch store answers a read from a cursor. */
    private static final class Store {
        final Map<String, List<QuestionResult>> batches = new LinkedHashMap<>();
        final List<String> opened = new ArrayList<>();
        int closed;

        Store add(QuestionResult... rs) {
            for (QuestionResult r : rs) batches.computeIfAbsent(r.batchId(), b -> new ArrayList<>()).add(r);
            return this;
        }

        Iterator<Map.Entry<String, QuestionResult>> open(String batch, String after) {
            opened.add(batch + "/" + after);
            Iterator<Map.Entry<String, QuestionResult>> it = batches.getOrDefault(batch, List.of()).stream()
                    .filter(r -> after == null || r.questionId().compareTo(after) > 0)
                    .map(r -> (Map.Entry<String, QuestionResult>) new AbstractMap.SimpleImmutableEntry<>(r.questionId(), r))
                    .iterator();
            return new Closing(it);
        }

        final class Closing implements Iterator<Map.Entry<String, QuestionResult>>, AutoCloseable {
            final Iterator<Map.Entry<String, QuestionResult>> it;

            Closing(Iterator<Map.Entry<String, QuestionResult>> it) {
                this.it = it;
            }

            public boolean hasNext() {
                return it.hasNext();
            }

            public Map.Entry<String, QuestionResult> next() {
                return it.next();
            }

            public void close() {
                closed++;
            }
        }
    }

    @Test
    void shouldFlagFailuresRepairsHintsEmptyAnswersAndCapturesButNotCancellationsOrPlainSuccesses() {
        Issue hint = Issue.hint("validate", ErrorCategory.TYPE_MISMATCH, "no such value 'Brazl'", "Brazl");
        assertEquals(List.of(), ReviewQueue.flags(ok("b", "q", 3), r -> false), "a plain success with rows");
        assertEquals(List.of("failed"), ReviewQueue.flags(result("b", "q", "t", "failed", "max_attempts", List.of(), 0), r -> true));
        assertEquals(List.of(), ReviewQueue.flags(result("b", "q", "t", "failed", "cancelled", List.of(), 0), r -> false),
                "a cancellation is the tenant's own doing, not a finding");
        assertEquals(List.of("repaired", "captured"),
                ReviewQueue.flags(result("b", "q", "t", "succeeded", "corrected_success", List.of(), 5), r -> true));
        assertEquals(List.of("hint", "no_rows"), ReviewQueue.flags(result("b", "q", "t", "succeeded", "first_attempt_success", List.of(hint), 0),
                r -> false));
        assertEquals(List.of(), ReviewQueue.flags(ok("b", "q", 1), r -> false), "one row is an aggregate's answer, not a finding");
    }

    @Test
    void shouldListNewestBatchFirstAndPageFromItsCursorAcrossBatches() {
        Store store = new Store().add(
                ok("old", "a1", 0), ok("old", "a2", 5), result("old", "a3", "t", "failed", "max_attempts", List.of(), 0),
                ok("new", "b1", 5), result("new", "b2", "t", "failed", "unchanged_sql", List.of(), 0),
                result("new", "b3", "other", "failed", "max_attempts", List.of(), 0), ok("new", "b4", 0));
        ReviewQueue q = ReviewQueue.parse(Map.of("limit", List.of("2")));
        ReviewQueue.Page first = q.page(List.of("new", "old"), store::open, "t", r -> false, 100);
        assertEquals(List.of("b2", "b4"), first.items().stream().map(i -> i.result().questionId()).toList(),
                "the newest batch first; another tenant's failure is not shown");
        assertEquals("new/b4", first.nextCursor());
        ReviewQueue.Page second = ReviewQueue.parse(Map.of("limit", List.of("2"), "cursor", List.of(first.nextCursor())))
                .page(List.of("new", "old"), store::open, "t", r -> false, 100);
        assertEquals(List.of("a1", "a3"), second.items().stream().map(i -> i.result().questionId()).toList(), "on into the older batch");
        assertNull(second.nextCursor(), "the end of the queue");
        assertEquals(List.of("new/null", "new/b4", "old/null"), store.opened, "each read starts where the last page ended");
        assertEquals(store.opened.size(), store.closed, "every store iterator is closed");

        ReviewQueue failed = ReviewQueue.parse(Map.of("why", List.of("failed"), "batch", List.of("old")));
        assertEquals(List.of("a3"), failed.page(List.of("new", "old"), store::open, "t", r -> false, 100).items().stream()
                .map(i -> i.result().questionId()).toList());
    }

    @Test
    void shouldStopAtTheScanBoundWithACursorToReadOnFrom() {
        Store store = new Store();
        for (int i = 0; i < 1000; i++) store.add(ok("b", String.format("q%04d", i), 7));
        store.add(result("b", "q9999", "t", "failed", "max_attempts", List.of(), 0));
        ReviewQueue q = ReviewQueue.parse(Map.of());
        ReviewQueue.Page cut = q.page(List.of("b"), store::open, "t", r -> false, 300);
        assertTrue(cut.items().isEmpty());
        assertTrue(cut.scanCut());
        assertEquals(300, cut.scanned());
        assertEquals("b/q0299", cut.nextCursor());
        ReviewQueue.Page last = ReviewQueue.parse(Map.of("cursor", List.of("b/q0899"))).page(List.of("b"), store::open, "t", r -> false, 300);
        assertEquals(List.of("q9999"), last.items().stream().map(i -> i.result().questionId()).toList());
        assertFalse(last.scanCut());
    }

    @Test
    void shouldRefuseUnknownOrMalformedParametersNamingThem() {
        assertEquals("why", assertThrows(ApiError.class, () -> ReviewQueue.parse(Map.of("why", List.of("<b>")))).body().field());
        assertEquals("wy", assertThrows(ApiError.class, () -> ReviewQueue.parse(Map.of("wy", List.of("failed")))).body().field());
        assertEquals("cursor", assertThrows(ApiError.class, () -> ReviewQueue.parse(Map.of("cursor", List.of("nobatch")))).body().field());
        assertEquals("cursor", assertThrows(ApiError.class, () -> ReviewQueue.parse(Map.of("cursor", List.of("gone/q1")))
                .page(List.of("b"), new Store()::open, "t", r -> false, 10)).body().field(), "a batch no longer listed");
        assertEquals("limit", assertThrows(ApiError.class, () -> ReviewQueue.parse(Map.of("limit", List.of("201")))).body().field());
        assertEquals("why=hint&batch=b1&cursor=b1%2Fq2",
                ReviewQueue.parse(Map.of("why", List.of("hint"), "batch", List.of("b1"), "cursor", List.of("b1/q2"))).queryWithCursor());
        assertFalse(ReviewQueue.parse(Map.of("why", List.of(""))).filtered(), "a form's empty choice is no filter");
        assertTrue(Set.copyOf(ReviewQueue.FLAGS).containsAll(List.of("failed", "repaired", "hint", "no_rows", "captured")));
    }
}
