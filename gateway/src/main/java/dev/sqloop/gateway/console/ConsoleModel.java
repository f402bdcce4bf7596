package dev.sqloop.gateway.console;

import java.util.List;

/**
 * What the review console's pages show, one record per page or row: plain values the gateway reads from its results
 * view, and the jte templates of {@code src/main/jte} (compiled into this package at build time) render, escaping every
 * text for where it stands. Nothing here reads a store or decides access; {@code dev.sqloop.gateway.Console} does.
 */
public final class ConsoleModel {
    private ConsoleModel() {}

    /**
     * Every page's frame: its title, the signed-in tenant, the CSRF token its forms carry, and a notice (an action done)
     * or an error (an action refused, with the API's own message).
     */
    public record Page(String title, String tenant, String csrf, boolean authOff, String notice, String error) {}

    /** One bar of a split: a name, its count and its share of the whole in percent (for a meter). */
    public record Count(String name, long count, int percent) {}

    /** A link choice of a filter (a select option). */
    public record Option(String value, String label, boolean selected) {}

    /**
     * A batch as the list and its page show it, with the counts of {@code GET /v1/batches/{id}}; {@code rate} and
     * {@code eta} are estimated from the questions finished since it was created.
     */
    public record BatchRow(String id, String createdAt, int total, long finished, long pending, long firstAttempt, long corrected,
                           long failed, int percent, boolean done, String rate, String eta, String spent) {}

    /** The batch list: {@code state} (running, done, with-failures) and {@code q} (part of a batch id) filter it. */
    public record Batches(Page page, List<BatchRow> rows, boolean live, String olderUrl, String newerUrl, List<Option> stateOptions,
                          String q, boolean filtered, String self) {}

    /** One question of a batch's table. */
    public record QuestionRow(String id, String status, String reason, int attempts, String category, String datasource,
                              String question, int round) {}

    /**
     * A batch's page: its counts and splits, and one page of its questions read on from a cursor with the filters
     * applied; {@code scanned} results were read for it, {@code scanCut} when the scan stopped before filling the page.
     */
    public record Batch(Page page, BatchRow batch, List<Count> outcomes, List<Count> categories, List<Count> attempts,
                        List<QuestionRow> rows, List<Option> outcomeOptions, List<Option> categoryOptions,
                        List<Option> attemptOptions, int limit, String filterQuery, String nextUrl, long scanned, boolean scanCut,
                        boolean filtered, List<Count> repairs, List<FirstError> firstErrors, List<Option> datasourceOptions) {}

    /** Questions whose attempt 1 failed first with this error category at this stage; {@code percent} of all such. */
    public record FirstError(String category, String stage, long count, int percent) {}

    /** An issue a stage found: an error fails the attempt, a hint rides along. */
    public record IssueView(String stage, String category, String message, String identifier, List<String> candidates,
                            boolean hint) {}

    /** One edit between two attempts' SQL: tokens removed, tokens added. */
    public record DiffPart(String removed, String added) {}

    /**
     * One entry of a question's trace: what a stage did with an attempt, the repair decision and its reason, and the
     * edits from the attempt before it.
     */
    public record Attempt(int round, int attempt, String stage, String kind, String sql, List<IssueView> issues, String decision,
                          String reason, String compactDiff, List<DiffPart> diff, long durationMillis, String at, PromptView prompt) {}

    /**
     * What an attempt's prompt held: the schema's tables ({@code whole}: all of them, it fit), the examples with their
     * retrieval scores, and the attempt's own tokens and cost ({@code spent}, empty when none were reported).
     */
    public record PromptView(List<String> tables, boolean whole, List<ExampleShown> examples, String spent) {}

    /** An example a prompt used: its question, the retrieval score (0-1, formatted) and its source. */
    public record ExampleShown(String question, String score, String source) {}

    /** A question's page: its status, every attempt in order, the final SQL and what running it returned. */
    public record Question(Page page, String id, String batchId, String datasource, String question, String status, String reason,
                           String errorCategory, String errorMessage, int attempts, int maxAttempts, int round, String finalSql,
                           String lastRejectedSql, List<Attempt> trace, List<String> columns, List<List<String>> preview,
                           long rowCount, List<Count> timings, long inputTokens, long outputTokens, String submittedAt,
                           String completedAt, boolean finished, boolean canRetry, String editableSql, String spent,
                           String traceId, List<CandidateRow> candidates) {}

    /**
     * One candidate of a question asked with several, side by side with the others: {@code group} numbers the
     * candidates whose results agree (1: the largest group), 0 for one that did not run; {@code chosen} is the answer;
     * {@code attempt} above 1 for a candidate that failed and was repaired.
     */
    public record CandidateRow(int index, String status, String sql, String error, long rowCount, List<String> columns,
                               List<List<String>> preview, String fingerprint, int group, int groupSize, boolean chosen, int attempt) {}

    /** An example with where it came from. */
    /** @param owner the tenant that created it; null for a seed */
    public record ExampleRow(String id, String datasource, String question, String sql, String source, boolean shared,
                             String createdAt, boolean deletable, String batchId, String questionId, String owner) {}

    public record Examples(Page page, List<ExampleRow> rows, List<Option> sourceOptions, List<Option> datasourceOptions,
                           String q, String batch, String nextUrl, String owner) {}

    /**
     * A question of the review queue: why it is there ({@code flags}), what it returned ({@code rowCount}, -1 when it did
     * not run) and the SQL it ended with (final, or the last refused).
     */
    public record QueueRow(String id, String question, String datasource, String status, String reason, String category,
                           int attempts, long rowCount, List<String> flags, String sql, boolean canRetry, boolean canSave) {}

    /** The queue's questions of one batch, under the batch's own actions. */
    public record QueueBatch(String id, String createdAt, boolean done, long failed, List<QueueRow> rows) {}

    /**
     * The review queue's page: its questions grouped by batch (newest batch first), the filters, and {@code self} (this
     * page's query, which its forms carry to come back to it).
     */
    public record Queue(Page page, List<QueueBatch> batches, List<Option> whyOptions, String batch, int limit, String self,
                        String nextUrl, long scanned, boolean scanCut, boolean filtered) {}

    public record Login(String error) {}

    public record Failure(Page page, int status, String message) {}
}
