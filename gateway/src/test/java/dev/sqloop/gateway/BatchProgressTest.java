package dev.sqloop.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.error.Outcomes;
import dev.sqloop.common.message.BatchManifest;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.message.TokenUsage;
import dev.sqloop.gateway.Views.BatchProgress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** A batch's status sums the tokens and cost of its finished questions, as the results table changes under it. */
class BatchProgressTest {
    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    private static QuestionResult result(String id, TokenUsage usage, boolean ok) {
        QuestionTask t = QuestionTask.create(id, "t", "demo", "q " + id, 3, NOW).withSql("SELECT 1", usage);
        return ok ? QuestionResult.succeeded(t, NOW) : QuestionResult.failed(t, Outcomes.MAX_ATTEMPTS, null, "x", NOW);
    }

    @Test
    void shouldSumTheUsageOfFinishedQuestionsAndRetractAReplacedResult() {
        QuestionResult a = result("a", new TokenUsage(1500, 20, 1152, 0.25), true);
        QuestionResult b = result("b", new TokenUsage(3000, 60, 2304, 0.5), false);
        BatchProgress p = BatchProgress.EMPTY.add(a, 1).add(b, 1);
        assertEquals(new TokenUsage(4500, 80, 3456, 0.75), p.usage());
        // a retried question's old result leaves the sum when its row is replaced
        assertEquals(new TokenUsage(1500, 20, 1152, 0.25), p.add(b, -1).usage());

        Answers.BatchReport report = StatusView.ofBatch(new Views.BatchStatus(new BatchManifest(1, "b1", "t", 2, NOW), p));
        assertEquals(p.usage(), report.usage());
        assertEquals(1L, report.byStatus().get("succeeded"));
    }

    @Test
    void shouldReadAProgressStoredBeforeUsageWasSummed() throws Exception {
        String old = "{\"byStatus\":{\"succeeded\":3},\"byReason\":{\"first_attempt_success\":3},\"byRound\":{}}";
        BatchProgress p = JsonCodec.decode(old.getBytes(StandardCharsets.UTF_8), BatchProgress.class);
        assertEquals(TokenUsage.ZERO, p.usage());
        assertEquals(3, p.finished());
    }
}
