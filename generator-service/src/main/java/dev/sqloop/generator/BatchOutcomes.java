package dev.sqloop.generator;

import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.error.Outcomes;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.message.TokenUsage;
import dev.sqloop.common.runtime.Outcome;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * What an ended provider batch means for each question of its window, as the online path would decide it: an answer
 * goes where {@link GenerateStage#answered} sends an online reply, priced with the batch discount; a request the
 * provider refused, or left unanswered (the batch expired, failed or was cancelled), ends its question
 * {@code llm_unavailable} with the provider's reason, never left in progress. Pure: no HTTP, no Kafka.
 */
public final class BatchOutcomes {
    private BatchOutcomes() {}

    /** One question's outcome, with the usage its answer spent (zero without one). */
    public record Decided(QuestionTask task, Outcome outcome, TokenUsage usage) {}

    public static List<Decided> of(ProviderBatch window, String status, String providerErrors, Map<String, BatchLines.LineResult> lines,
                                   Predicate<QuestionTask> cancelled, GenerateStage stage, LlmPrices prices, Instant now) {
        List<Decided> out = new ArrayList<>(window.tasks().size());
        long millis = window.sealedAt() == null ? 0 : Math.max(0, Duration.between(window.sealedAt(), now).toMillis());
        for (int i = 0; i < window.tasks().size(); i++) {
            QuestionTask task = window.tasks().get(i);
            if (cancelled.test(task)) {
                out.add(new Decided(task, Outcome.finish(QuestionResult.failed(task, Outcomes.CANCELLED, null,
                        "cancelled while in provider batch " + window.providerBatchId(), now)), TokenUsage.ZERO));
                continue;
            }
            BatchLines.LineResult line = lines.get(ProviderBatch.customId(i, task));
            if (line instanceof BatchLines.Answer a) {
                TokenUsage usage = a.usage().withCost(prices.cost(a.usage(), a.cacheWriteTokens(), true));
                out.add(new Decided(task, stage.answered(task, new LlmClient.Reply(a.text(), usage), millis), usage));
            } else if (line instanceof BatchLines.LineError e) {
                out.add(failed(task, "provider batch " + window.providerBatchId() + " refused this request (" + e.code() + "): "
                        + e.message(), now));
            } else {
                out.add(failed(task, "provider batch " + window.providerBatchId() + " ended " + status
                        + " without answering this question" + (providerErrors == null ? "" : ": " + providerErrors), now));
            }
        }
        return out;
    }

    /** Every question of the window ended failed for one reason (the provider refused the batch, or it never ended). */
    public static List<Decided> allFailed(ProviderBatch window, String message, Instant now) {
        return window.tasks().stream().map(t -> failed(t, message, now)).toList();
    }

    private static Decided failed(QuestionTask task, String message, Instant now) {
        return new Decided(task, Outcome.finish(QuestionResult.failed(task, Outcomes.LLM_UNAVAILABLE, ErrorCategory.CONNECTION_ERROR,
                message, now)), TokenUsage.ZERO);
    }
}
