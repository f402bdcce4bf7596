package dev.sqloop.common.message;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.SqloopHeaders;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The working state of one question as it moves through the stages. Each stage fills its part
 * (examples and linked schema once; SQL, issues and execution per attempt) and passes it on.
 *
 * @param attempt 1-based; only the repair worker increments it
 * @param timings milliseconds spent per stage, summed over attempts
 * @param dialect the datasource's SQL dialect, resolved once by the gateway at submission; null in a task from a
 *                producer older than this field, for which a stage falls back to its own datasource settings
 * @param previousIssues what was wrong with the previous attempt's SQL ({@code previousSql}): kept so that a success
 *                       after a repair still tells which error it fixed (the error→fix memory learns from it)
 * @param round 0 for the question as submitted; a retry of the failed question (after an LLM or warehouse outage)
 *              runs it again from attempt 1 at a higher round, and the gateway keeps only the newest round's result
 * @param instructions what the asker says with the question (defog's "filter names using ILIKE", which tables to
 *                     join): part of the question, shown to the LLM beside it; null when none
 * @param capture false when the success must not be captured into the example memory (an evaluation, which must
 *                leave the memory as it found it); null or true: captured as usual
 * @param retries infrastructure retries per stage (an LLM endpoint's 429 or 5xx, a warehouse connection lost), summed over
 *                attempts: they spend no attempt and change no SQL, and the question's result and trace show them
 * @param candidates the other SQL answers the generator asked for beside {@code sql} (issue 50: {@code _CANDIDATES} above 1),
 *                   index 2 on, and once the executor ran them, what each returned; empty with one candidate (the default)
 * @param candidatesWanted how many candidates its submitter asked for ({@code candidates} of a question or batch element),
 *                         overriding the datasource's {@code _CANDIDATES}; null: the datasource's setting
 */
public record QuestionTask(
        int schemaVersion,
        String questionId,
        String tenant,
        String batchId,
        String datasource,
        String question,
        int attempt,
        int maxAttempts,
        Instant submittedAt,
        Instant deadline,
        List<Example> examples,
        LinkedSchema linkedSchema,
        NlConstraints constraints,
        String sql,
        String previousSql,
        List<Issue> issues,
        String correctionPrompt,
        Execution execution,
        TokenUsage usage,
        Map<String, Long> timings,
        Map<String, String> metadata,
        List<Issue> previousIssues,
        Dialect dialect,
        int round,
        String instructions,
        Boolean capture,
        Map<String, Integer> retries,
        List<Candidate> candidates,
        Integer candidatesWanted) implements Message {

    public static final int DEFAULT_MAX_ATTEMPTS = 3;

    public QuestionTask {
        requireText(questionId, "questionId");
        requireText(datasource, "datasource");
        Objects.requireNonNull(question, "question");
        if (attempt < 1) throw new IllegalArgumentException("attempt must be >= 1, was " + attempt);
        if (maxAttempts < 1) throw new IllegalArgumentException("maxAttempts must be >= 1, was " + maxAttempts);
        if (round < 0) throw new IllegalArgumentException("round must be >= 0, was " + round);
        schemaVersion = schemaVersion <= 0 ? CURRENT_SCHEMA_VERSION : schemaVersion;
        tenant = tenant == null ? "default" : tenant;
        examples = examples == null ? List.of() : List.copyOf(examples);
        issues = issues == null ? List.of() : List.copyOf(issues);
        usage = usage == null ? TokenUsage.ZERO : usage;
        timings = timings == null ? Map.of() : Map.copyOf(timings);
        metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
        previousIssues = previousIssues == null ? List.of() : List.copyOf(previousIssues);
        instructions = instructions == null || instructions.isBlank() ? null : instructions;
        retries = retries == null ? Map.of() : Map.copyOf(retries);
        candidates = candidates == null ? List.of() : List.copyOf(candidates);
        if (candidatesWanted != null && candidatesWanted < 1) {
            throw new IllegalArgumentException("candidatesWanted must be >= 1, was " + candidatesWanted);
        }
    }

    private static void requireText(String value, String name) {
        if (value == null || value.isBlank()) throw new IllegalArgumentException(name + " is required");
    }

    /** A new question at attempt 1. */
    public static QuestionTask create(String questionId, String tenant, String datasource, String question,
                                      int maxAttempts, Instant submittedAt) {
        return new QuestionTask(CURRENT_SCHEMA_VERSION, questionId, tenant, null, datasource, question, 1, maxAttempts,
                submittedAt, null, null, null, null, null, null, null, null, null, null, null, null, null, null, 0, null, null, null, null, null);
    }

    @Override
    public String key() {
        return questionId;
    }

    @Override
    public Map<String, String> headers() {
        Map<String, String> h = new LinkedHashMap<>();
        h.put(SqloopHeaders.QUESTION_ID, questionId);
        h.put(SqloopHeaders.ATTEMPT, Integer.toString(attempt));
        h.put(SqloopHeaders.MAX_ATTEMPTS, Integer.toString(maxAttempts));
        h.put(SqloopHeaders.DATASOURCE, datasource);
        h.put(SqloopHeaders.TENANT, tenant);
        if (batchId != null) h.put(SqloopHeaders.BATCH_ID, batchId);
        if (deadline != null) h.put(SqloopHeaders.DEADLINE, Long.toString(deadline.toEpochMilli()));
        if (previousSql != null) h.put(SqloopHeaders.PREVIOUS_SQL, previousSql);
        if (round > 0) h.put(SqloopHeaders.ROUND, Integer.toString(round));
        return h;
    }

    /**
     * The task as the pipeline starts it at {@code now}: its deadline moves by the time since submission, so the
     * question's time budget (deadline − submission) counts from here. Unchanged without a deadline or a submission
     * time, or when {@code now} is not after the submission.
     */
    public QuestionTask started(Instant now) {
        if (deadline == null || submittedAt == null || !now.isAfter(submittedAt)) return this;
        return new QuestionTask(schemaVersion, questionId, tenant, batchId, datasource, question, attempt, maxAttempts,
                submittedAt, deadline.plus(java.time.Duration.between(submittedAt, now)), examples, linkedSchema,
                constraints, sql, previousSql, issues, correctionPrompt, execution, usage, timings, metadata,
                previousIssues, dialect, round, instructions, capture, retries, candidates, candidatesWanted);
    }

    /** The same question at retry round {@code round}. */
    public QuestionTask withRound(int round) {
        return new QuestionTask(schemaVersion, questionId, tenant, batchId, datasource, question, attempt, maxAttempts,
                submittedAt, deadline, examples, linkedSchema, constraints, sql, previousSql, issues, correctionPrompt,
                execution, usage, timings, metadata, previousIssues, dialect, round, instructions, capture, retries, candidates, candidatesWanted);
    }

    /** The question with the instructions its asker gave (null: none). */
    public QuestionTask withInstructions(String instructions) {
        return new QuestionTask(schemaVersion, questionId, tenant, batchId, datasource, question, attempt, maxAttempts,
                submittedAt, deadline, examples, linkedSchema, constraints, sql, previousSql, issues, correctionPrompt,
                execution, usage, timings, metadata, previousIssues, dialect, round, instructions, capture, retries, candidates, candidatesWanted);
    }

    /** The question with capture into the example memory allowed or not (null: as usual). */
    public QuestionTask withCapture(Boolean capture) {
        return new QuestionTask(schemaVersion, questionId, tenant, batchId, datasource, question, attempt, maxAttempts,
                submittedAt, deadline, examples, linkedSchema, constraints, sql, previousSql, issues, correctionPrompt,
                execution, usage, timings, metadata, previousIssues, dialect, round, instructions, capture, retries, candidates, candidatesWanted);
    }

    /** Whether a success of this question may be captured into the example memory. */
    public boolean capturable() {
        return !Boolean.FALSE.equals(capture);
    }

    /** The datasource's dialect, as the gateway resolved it. */
    public QuestionTask withDialect(Dialect dialect) {
        return new QuestionTask(schemaVersion, questionId, tenant, batchId, datasource, question, attempt, maxAttempts,
                submittedAt, deadline, examples, linkedSchema, constraints, sql, previousSql, issues, correctionPrompt,
                execution, usage, timings, metadata, previousIssues, dialect, round, instructions, capture, retries, candidates, candidatesWanted);
    }

    public QuestionTask withBatch(String batchId, Instant deadline, Map<String, String> metadata) {
        return new QuestionTask(schemaVersion, questionId, tenant, batchId, datasource, question, attempt, maxAttempts,
                submittedAt, deadline, examples, linkedSchema, constraints, sql, previousSql, issues, correctionPrompt,
                execution, usage, timings, metadata, previousIssues, dialect, round, instructions, capture, retries, candidates, candidatesWanted);
    }

    public QuestionTask withContext(List<Example> examples, LinkedSchema linkedSchema, NlConstraints constraints) {
        return new QuestionTask(schemaVersion, questionId, tenant, batchId, datasource, question, attempt, maxAttempts,
                submittedAt, deadline, examples, linkedSchema, constraints, sql, previousSql, issues, correctionPrompt,
                execution, usage, timings, metadata, previousIssues, dialect, round, instructions, capture, retries, candidates, candidatesWanted);
    }

    /**
     * The SQL of this attempt (from the LLM or a stored example), clearing the previous attempt's findings and the
     * correction prompt it answered (only the generator reads it; a next repair writes a new one), so that the later
     * hops do not carry it.
     */
    public QuestionTask withSql(String sql, TokenUsage spent) {
        return new QuestionTask(schemaVersion, questionId, tenant, batchId, datasource, question, attempt, maxAttempts,
                submittedAt, deadline, examples, linkedSchema, constraints, sql, previousSql, List.of(), null,
                null, usage.plus(spent), timings, metadata, previousIssues, dialect, round, instructions, capture, retries, candidates, candidatesWanted);
    }

    public QuestionTask withIssues(List<Issue> issues) {
        return new QuestionTask(schemaVersion, questionId, tenant, batchId, datasource, question, attempt, maxAttempts,
                submittedAt, deadline, examples, linkedSchema, constraints, sql, previousSql, issues, correctionPrompt,
                execution, usage, timings, metadata, previousIssues, dialect, round, instructions, capture, retries, candidates, candidatesWanted);
    }

    public QuestionTask withExecution(Execution execution) {
        return new QuestionTask(schemaVersion, questionId, tenant, batchId, datasource, question, attempt, maxAttempts,
                submittedAt, deadline, examples, linkedSchema, constraints, sql, previousSql, issues, correctionPrompt,
                execution, usage, timings, metadata, previousIssues, dialect, round, instructions, capture, retries, candidates, candidatesWanted);
    }

    /** The next attempt: attempt+1, the failed SQL becomes {@code previousSql}, the correction prompt is set. */
    public QuestionTask nextAttempt(String correctionPrompt) {
        return new QuestionTask(schemaVersion, questionId, tenant, batchId, datasource, question, attempt + 1, maxAttempts,
                submittedAt, deadline, examples, linkedSchema, constraints, null, sql, List.of(), correctionPrompt,
                null, usage, timings, metadata, issues, dialect, round, instructions, capture, retries, candidates, candidatesWanted);
    }

    /**
     * The task as {@code success} carries it to auto-capture: the question, the SQL that ran, its row count and what
     * it fixed (previous SQL and issues). Not the prompt's context (examples, linked schema, constraints) nor the
     * result's rows: capture reads none of them, and the final result on {@code results} carries the rows. With them
     * a success record was ~40 % of the bytes the executor read and wrote per question (1,787 bytes as stored; 538
     * without).
     */
    public QuestionTask forCapture() {
        Execution counted = execution == null ? null
                : new Execution(execution.columns(), execution.types(), execution.rowCount(), List.of(), execution.durationMillis());
        return new QuestionTask(schemaVersion, questionId, tenant, batchId, datasource, question, attempt, maxAttempts,
                submittedAt, deadline, null, null, null, sql, previousSql, issues, null,
                counted, usage, timings, metadata, previousIssues, dialect, round, instructions, capture, retries, null, candidatesWanted);
    }

    /** The task with the other candidates of its first attempt (or what running them gave). */
    public QuestionTask withCandidates(List<Candidate> candidates) {
        return new QuestionTask(schemaVersion, questionId, tenant, batchId, datasource, question, attempt, maxAttempts,
                submittedAt, deadline, examples, linkedSchema, constraints, sql, previousSql, issues, correctionPrompt,
                execution, usage, timings, metadata, previousIssues, dialect, round, instructions, capture, retries, candidates, candidatesWanted);
    }

    /** The task asking for {@code wanted} candidates whatever its datasource's default (null: the default). */
    public QuestionTask withCandidatesWanted(Integer wanted) {
        return new QuestionTask(schemaVersion, questionId, tenant, batchId, datasource, question, attempt, maxAttempts,
                submittedAt, deadline, examples, linkedSchema, constraints, sql, previousSql, issues, correctionPrompt,
                execution, usage, timings, metadata, previousIssues, dialect, round, instructions, capture, retries, candidates, wanted);
    }

    /**
     * Whether the executor sent this task back for a pairwise tie-break (issue 50): it carries a result and every candidate,
     * the question's own (index 1) among them, has run or failed. A task to generate never does: a new attempt clears the
     * result ({@link #nextAttempt}), and the generator's own candidates start at index 2, not run yet.
     */
    public boolean awaitsTieBreak() {
        return execution != null && candidates.stream().anyMatch(c -> c.index() == 1)
                && candidates.stream().noneMatch(c -> Candidate.GENERATED.equals(c.status()) || Candidate.REPAIR.equals(c.status()));
    }

    /**
     * Whether the executor sent this task for its failed candidates' repair (issue 50): some are marked
     * {@link Candidate#REPAIR}, and the generator asks for their corrected versions before they run and vote again.
     */
    public boolean awaitsCandidateRepair() {
        return candidates.stream().anyMatch(c -> Candidate.REPAIR.equals(c.status()));
    }

    /** One more infrastructure retry in {@code stage} (no attempt spent). */
    public QuestionTask withRetry(String stage) {
        Map<String, Integer> r = new LinkedHashMap<>(retries);
        r.merge(stage, 1, Integer::sum);
        return new QuestionTask(schemaVersion, questionId, tenant, batchId, datasource, question, attempt, maxAttempts,
                submittedAt, deadline, examples, linkedSchema, constraints, sql, previousSql, issues, correctionPrompt,
                execution, usage, timings, metadata, previousIssues, dialect, round, instructions, capture, r, candidates, candidatesWanted);
    }

    /** Adds time spent in a stage (summed over attempts). */
    public QuestionTask withTiming(String stage, long millis) {
        Map<String, Long> t = new LinkedHashMap<>(timings);
        t.merge(stage, millis, Long::sum);
        return new QuestionTask(schemaVersion, questionId, tenant, batchId, datasource, question, attempt, maxAttempts,
                submittedAt, deadline, examples, linkedSchema, constraints, sql, previousSql, issues, correctionPrompt,
                execution, usage, t, metadata, previousIssues, dialect, round, instructions, capture, retries, candidates, candidatesWanted);
    }
}
