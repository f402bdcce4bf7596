package dev.sqloop.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.message.BatchManifest;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.testkit.ManualClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class RecentSubmissionsTest {
    private final ManualClock clock = new ManualClock("2026-11-24T10:00:00Z");
    private final RecentSubmissions recent = new RecentSubmissions(clock);

    private static QuestionTask task(String id, String tenant) {
        return QuestionTask.create(id, tenant, "demo", "How many orders?", 3, Instant.parse("2026-11-24T10:00:00Z"));
    }

    @Test
    void shouldAnswerQueuedForItsOwnTenantUntilSeenOrExpired() {
        recent.question(task("q1", "a"));
        Answers.QuestionStatus shown = recent.question("q1", "a").orElseThrow();
        assertEquals("queued", shown.status());
        assertEquals("demo", shown.datasource());
        assertEquals("How many orders?", shown.question());
        assertTrue(recent.question("q1", "b").isEmpty(), "another tenant's question is unknown");
        assertEquals("queued", recent.question("q1", "a", java.util.Optional::empty).orElseThrow().status(), "the view does not have it yet");
        Answers.QuestionStatus inProgress = new Answers.QuestionStatus("q1", "in_progress", "generate", 1, null, null, "demo",
                "How many orders?", null, null, null, null, null, null, null, null, null, null, null, null, null, null);
        assertEquals("in_progress", recent.question("q1", "a", () -> java.util.Optional.of(inProgress)).orElseThrow().status(),
                "the view's answer once it has one");
        assertTrue(recent.question("q1", "a").isEmpty(), "and then it is forgotten here");

        recent.question(task("q2", "a"));
        clock.advance(RecentSubmissions.TTL.plusSeconds(1));
        assertTrue(recent.question("q2", "a").isEmpty(), "forgotten after the TTL");
        assertEquals(0, recent.size());
    }

    @Test
    void shouldShowANewBatchWithNothingFinished() {
        recent.batch(new BatchManifest(0, "b1", "a", 3, clock.instant()));
        Answers.BatchReport shown = recent.batch("b1", "a").orElseThrow();
        assertEquals(3, shown.total());
        assertEquals(3L, shown.pending());
        assertFalse(shown.done());
        assertTrue(recent.batch("b1", "b").isEmpty());
    }

    @Test
    void shouldHoldABoundedNumberOldestFirst() {
        for (int i = 0; i <= RecentSubmissions.MAX_ENTRIES; i++) {
            recent.question(task("q" + i, "a"));
            clock.advance(Duration.ofMillis(1));
        }
        assertEquals(RecentSubmissions.MAX_ENTRIES, recent.size());
        assertTrue(recent.question("q0", "a").isEmpty(), "the oldest went first");
        assertTrue(recent.question("q" + RecentSubmissions.MAX_ENTRIES, "a").isPresent());
    }
}
