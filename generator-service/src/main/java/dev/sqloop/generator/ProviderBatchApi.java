package dev.sqloop.generator;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A provider's batch API as the {@link ProviderBatchPoller} drives it: OpenAI's Batch API ({@link OpenAiBatchClient}) or
 * Anthropic's Message Batches ({@link AnthropicBatchClient}). Like {@link LlmClient}, implementations never retry: 429,
 * 5xx and I/O failures are {@link dev.sqloop.common.runtime.InfrastructureException}, other 4xx {@link LlmRejectedException}.
 */
public interface ProviderBatchApi {
    /** One request of a window: its custom id ({@link ProviderBatch#customId}) and its prompt. */
    record Request(String customId, LlmClient.Prompt prompt) {}

    /** A submitted batch: the provider's id and, where the provider takes a file, the input file's id (else null). */
    record Submission(String batchId, String inputFileId) {}

    /**
     * A batch as retrieved: its status in the provider's words, whether the provider will do no more work on it, the
     * provider's errors for the whole batch (null if none) and where its results are (file ids, a results URL).
     */
    record State(String id, String status, boolean ended, String errors, List<String> results) {
        public State {
            results = results == null ? List.of() : List.copyOf(results);
        }
    }

    /** The batch a window was submitted as before a restart, if the provider can tell (OpenAI by its metadata). */
    Optional<String> submittedAs(String windowId);

    Submission submit(String windowId, List<Request> requests, BatchLines.RequestSettings settings);

    State state(String batchId);

    /**
     * An ended batch's answers and refusals by the custom id it was sent with (a provider that restricts custom ids gets
     * them rewritten, their leading window index kept: {@link ProviderBatch#indexOf} reads it). A request without a line
     * was not answered.
     */
    Map<String, BatchLines.LineResult> results(State ended);

    /** Asks the provider to stop the batch; answers already given are still in its results. */
    void stop(String batchId);
}
