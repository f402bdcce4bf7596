package dev.sqloop.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.error.Outcomes;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.message.TokenUsage;
import dev.sqloop.common.runtime.Outcome;
import dev.sqloop.common.runtime.StageMetrics;
import dev.sqloop.common.topic.Topics;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What an ended provider batch does to each question of its window. */
class BatchOutcomesTest {
    private static final Instant NOW = Instant.parse("2026-12-02T06:00:00Z");
    private static final LlmPrices PRICES = new LlmPrices(0.40, 0.10, 1.60, 0.5);
    private final GenerateStage stage = new GenerateStage(p -> {
        throw new AssertionError("batch mode makes no online call");
    }, DialectLookup.of(Map.of("demo", Dialect.DUCKDB)), new PromptBuilder(true), StageMetrics.NONE, Clock.systemUTC());

    private static QuestionTask task(String id) {
        return QuestionTask.create(id, "t", "demo", "How many orders?", 3, NOW.minusSeconds(3600));
    }

    private final ProviderBatch window = ProviderBatch.sealed("w-1", NOW.minusSeconds(600), List.of(task("q0"), task("q1"), task("q2"), task("q3")))
            .submitted("batch_1", "file-1");

    private static QuestionResult result(BatchOutcomes.Decided d) {
        Outcome.Send send = assertInstanceOf(Outcome.Send.class, d.outcome());
        assertEquals(Topics.RESULTS.name(), send.emissions().getFirst().topic());
        return (QuestionResult) send.emissions().getFirst().message();
    }

    @Test
    void shouldForwardAnswersAtTheBatchDiscountAndFailWhatTheProviderDidNotAnswer() {
        TokenUsage used = new TokenUsage(1_000_000, 100_000, 400_000, 0);
        Map<String, BatchLines.LineResult> lines = Map.of(
                "0:q0", new BatchLines.Answer("{\"sql\":\"SELECT count(*) FROM orders\"}", used),
                "1:q1", new BatchLines.Answer("I cannot answer that", used),
                "2:q2", new BatchLines.LineError("batch_expired", "not executed in time"));
        List<BatchOutcomes.Decided> decided = BatchOutcomes.of(window, "expired", null, lines,
                t -> false, stage, PRICES, NOW);
        assertEquals(4, decided.size());

        Outcome.Send valid = assertInstanceOf(Outcome.Send.class, decided.get(0).outcome());
        assertEquals(Topics.STATIC_VALIDATE.name(), valid.emissions().getFirst().topic());
        QuestionTask answered = (QuestionTask) valid.emissions().getFirst().message();
        assertEquals("SELECT count(*) FROM orders", answered.sql());
        // (600k × 0.40 + 400k × 0.10 + 100k × 1.60) / 1M = 0.44 USD online, half through the batch
        assertEquals(0.22, answered.usage().cost(), 1e-12);
        assertEquals(0.22, decided.get(0).usage().cost(), 1e-12);

        Outcome.Send invalid = assertInstanceOf(Outcome.Send.class, decided.get(1).outcome());
        assertEquals(Topics.REPAIR_FEEDBACK.name(), invalid.emissions().getFirst().topic(), "not SQL: repaired as online");

        QuestionResult expired = result(decided.get(2));
        assertEquals(Outcomes.LLM_UNAVAILABLE, expired.reason());
        assertTrue(expired.errorMessage().contains("batch_1") && expired.errorMessage().contains("batch_expired"), expired.errorMessage());

        QuestionResult missing = result(decided.get(3));
        assertEquals(Outcomes.LLM_UNAVAILABLE, missing.reason());
        assertTrue(missing.errorMessage().contains("ended expired without answering"), missing.errorMessage());
    }

    @Test
    void shouldEndCancelledQuestionsCancelledAndAFailedBatchWithTheProvidersErrors() {
        List<BatchOutcomes.Decided> decided = BatchOutcomes.of(window, "failed", "token_limit_exceeded: too many tokens", Map.of(),
                t -> t.questionId().equals("q1"), stage, PRICES, NOW);
        assertEquals(Outcomes.CANCELLED, result(decided.get(1)).reason());
        QuestionResult failed = result(decided.get(0));
        assertEquals(Outcomes.LLM_UNAVAILABLE, failed.reason());
        assertTrue(failed.errorMessage().contains("ended failed") && failed.errorMessage().contains("token_limit_exceeded"), failed.errorMessage());
        assertEquals(TokenUsage.ZERO, decided.get(0).usage());
    }
}
