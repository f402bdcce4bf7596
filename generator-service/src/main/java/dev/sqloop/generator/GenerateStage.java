package dev.sqloop.generator;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.error.Outcomes;
import dev.sqloop.common.message.Issue;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.runtime.InfrastructureException;
import dev.sqloop.common.runtime.AbstractStage;
import dev.sqloop.common.runtime.Outcome;
import dev.sqloop.common.runtime.Stage;
import dev.sqloop.common.runtime.StageMetrics;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import dev.sqloop.common.message.Candidate;
import dev.sqloop.common.message.TokenUsage;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;


/**
 * The {@code generate} worker: one LLM call per message. Valid SQL goes on to {@code static-validate};
 * an answer that is not one SQL statement goes to {@code repair-feedback} as {@code llm_output_invalid},
 * costing an attempt like any other wrong SQL. LLM outages are thrown as {@link InfrastructureException}
 * for the runner to retry, and end the question {@code llm_unavailable} once its budget is spent.
 */
public final class GenerateStage extends AbstractStage<QuestionTask> {
    public static final String NAME = "generate";

    private final LlmClient llm;
    private final DialectLookup dialects;
    private final PromptBuilder prompts;
    private final ProjectionContract projection;
    private final StageMetrics metrics;
    private final Clock clock;
    private final BatchWindows windows;
    private final Map<String, Integer> candidates;
    private final CorrectionPromptBuilder corrections;

    public GenerateStage(LlmClient llm, DialectLookup dialects, PromptBuilder prompts, StageMetrics metrics, Clock clock) {
        this(llm, dialects, prompts, ProjectionContract.OFF, metrics, clock);
    }

    public GenerateStage(LlmClient llm, DialectLookup dialects, PromptBuilder prompts, ProjectionContract projection,
                         StageMetrics metrics, Clock clock) {
        this(llm, dialects, prompts, projection, metrics, clock, null);
    }

    /**
     * @param windows provider batch mode ({@code SQLOOP_LLM_MODE=batch}): each request joins a window that the
     *     {@link ProviderBatchPoller} sends as one provider batch, and whose answers it
     *     forwards through {@link #answered}; null: one online call per request
     */
    public GenerateStage(LlmClient llm, DialectLookup dialects, PromptBuilder prompts, ProjectionContract projection,
                         StageMetrics metrics, Clock clock, BatchWindows windows) {
        this(llm, dialects, prompts, projection, metrics, clock, windows, Map.of(),
                new CorrectionPromptBuilder(ErrorPatternRegistry.load(), PastFixes.NONE, CorrectionPromptBuilder.Evidence.INCLUDED));
    }

    private GenerateStage(LlmClient llm, DialectLookup dialects, PromptBuilder prompts, ProjectionContract projection,
                          StageMetrics metrics, Clock clock, BatchWindows windows,
                          Map<String, Integer> candidates, CorrectionPromptBuilder corrections) {
        super(NAME, QuestionTask.class);
        this.windows = windows;
        this.candidates = Map.copyOf(candidates);
        this.corrections = corrections;
        this.llm = llm;
        this.dialects = dialects;
        this.prompts = prompts;
        this.projection = projection;
        this.metrics = metrics;
        this.clock = clock;
    }

    /**
     * The same stage asking for several candidates on a question's first attempt (issue 50): datasource (lower case) → N,
     * 1 (or absent) being one candidate, as before. Online calls only: a provider batch's line is one candidate.
     */
    public GenerateStage withCandidates(Map<String, Integer> byDatasource) {
        return new GenerateStage(llm, dialects, prompts, projection, metrics, clock, windows, byDatasource, corrections);
    }

    /**
     * The same stage writing its failed candidates' correction prompts with {@code corrections} (the repair worker's,
     * with its past fixes, where both run in one process); by default the error patterns without past fixes.
     */
    public GenerateStage withCorrections(CorrectionPromptBuilder corrections) {
        return new GenerateStage(llm, dialects, prompts, projection, metrics, clock, windows, candidates, corrections);
    }

    @Override
    public Outcome process(QuestionTask task) {
        Optional<Dialect> dialect = dialects.dialectOf(task);
        if (dialect.isEmpty()) {
            return Outcome.finish(QuestionResult.failed(task, Outcomes.UNKNOWN_DATASOURCE, null,
                    "unknown datasource '" + task.datasource() + "'", clock.instant()));
        }
        // the executor's candidates tie and it asks for a pairwise decision: always an online call, even in batch mode
        if (task.awaitsCandidateRepair()) return repairCandidates(task, dialect.get());
        if (task.awaitsTieBreak()) return tieBreak(task, dialect.get());
        if (windows != null) {
            // acknowledged once its window is recorded: from there the window's provider batch answers it
            try {
                windows.enqueue(task);
            } catch (InterruptedException e) {
                // the runner is stopping: the task is in no window, and its input stays uncommitted
                Thread.currentThread().interrupt();
                throw new InfrastructureException("stopped before the provider batch window was recorded", e);
            }
            return new Outcome.Send("batched", List.of());
        }
        LlmClient.Prompt prompt = prompts.build(task, dialect.get());
        Instant start = clock.instant();
        LlmClient.Reply reply;
        try {
            reply = complete(prompt);
        } catch (LlmRejectedException e) {
            return Outcome.finish(QuestionResult.failed(task, Outcomes.LLM_UNAVAILABLE, ErrorCategory.CONNECTION_ERROR,
                    e.getMessage(), clock.instant()));
        }
        long millis = Math.max(0, clock.millis() - start.toEpochMilli());
        return answered(task, reply, millis, prompt, start);
    }

    /** The prompt of {@code task} as this stage sends it: for the provider batch, whose lines are the same requests. */
    public Optional<LlmClient.Prompt> promptOf(QuestionTask task) {
        return dialects.dialectOf(task).map(d -> prompts.build(task, d));
    }

    /**
     * Where an answer sends its question: valid SQL on to {@code static-validate}, anything else to repair as
     * {@code llm_output_invalid}. The same for an online reply and a provider batch's line.
     */
    public Outcome answered(QuestionTask task, LlmClient.Reply reply, long millis) {
        return answered(task, reply, millis, null, null);
    }

    /** @param prompt the online call's prompt, which further candidates reuse; null: one candidate (a batch line) */
    private Outcome answered(QuestionTask task, LlmClient.Reply reply, long millis, LlmClient.Prompt prompt, Instant start) {
        return switch (OutputGuardrails.check(reply.text())) {
            case OutputGuardrails.Valid v -> {
                QuestionTask answered = task.withSql(projection.enforce(v.sql(), task.question()), reply.usage());
                int n = prompt == null ? 1 : wanted(task);
                if (n <= 1) yield Outcome.forward(Topics.STATIC_VALIDATE, answered.withTiming(NAME, millis));
                answered = withOtherCandidates(answered, prompt, n);
                yield Outcome.forward(Topics.STATIC_VALIDATE, answered.withTiming(NAME, Math.max(0, clock.millis() - start.toEpochMilli())));
            }
            case OutputGuardrails.Invalid inv -> Outcome.repair(task.withSql(inv.text(), reply.usage())
                    .withIssues(List.of(Issue.of(NAME, ErrorCategory.LLM_OUTPUT_INVALID, inv.reason())))
                    .withTiming(NAME, millis));
        };
    }

    /**
     * Candidates asked for: on the question's first attempt only (a correction repairs the question's own SQL, and the
     * others, already asked for, ride along): as many as its submitter asked for, else its datasource's setting.
     */
    private int wanted(QuestionTask task) {
        if (task.attempt() != 1 || task.correctionPrompt() != null || !task.candidates().isEmpty()) return 1;
        if (task.candidatesWanted() != null) return task.candidatesWanted(); // the submitter's number wins (the gateway bounded it)
        return candidates.getOrDefault(task.datasource().toLowerCase(Locale.ROOT), 1);
    }

    /**
     * Candidates 2..n: the same prompt, its user part naming the candidate, so each call is a separate sample (a provider
     * caches the shared prefix; the simulated LLM answers per candidate). An answer that is not SQL is kept, marked
     * invalid, and does not vote; an LLM outage throws, and the runner retries the step.
     */
    private QuestionTask withOtherCandidates(QuestionTask answered, LlmClient.Prompt prompt, int n) {
        List<Candidate> others = new ArrayList<>();
        TokenUsage spent = TokenUsage.ZERO;
        // Cheap candidates first: once a majority of the N wrote the same SQL (spacing aside), the same text runs to the
        // same result and no remaining candidate can outvote it, so the rest are not asked for.
        Map<String, Integer> sameText = new java.util.HashMap<>();
        sameText.merge(sameTextKey(answered.sql()), 1, Integer::sum);
        int majority = n / 2 + 1;
        for (int k = 2; k <= n; k++) {
            if (sameText.values().stream().anyMatch(c -> c >= majority)) break;
            LlmClient.Prompt variant = new LlmClient.Prompt(prompt.prefix(), prompt.context(), prompt.user() + "\n\n" + candidateLine(k, n),
                    false);
            LlmClient.Reply reply = complete(variant);
            spent = spent.plus(reply.usage());
            Candidate c = switch (OutputGuardrails.check(reply.text())) {
                case OutputGuardrails.Valid v -> Candidate.generated(k, projection.enforce(v.sql(), answered.question()));
                case OutputGuardrails.Invalid inv -> Candidate.invalid(k, inv.text(), inv.reason());
            };
            others.add(c);
            if (!Candidate.INVALID.equals(c.status())) sameText.merge(sameTextKey(c.sql()), 1, Integer::sum);
        }
        return answered.withSql(answered.sql(), spent).withCandidates(others);
    }

    /**
     * Issue 50: the executor's failed candidates that could still change the choice, corrected as a question's attempt is
     * (the same correction prompt: the failed SQL, the engine's error, the pattern's guidance), one online call each; back
     * to the executor, which runs the corrected ones (the question's own result is kept) and chooses again. Each
     * candidate's attempts count against the question's budget, so this ends.
     */
    private Outcome repairCandidates(QuestionTask task, Dialect dialect) {
        Instant start = clock.instant();
        TokenUsage spent = TokenUsage.ZERO;
        List<Candidate> next = new ArrayList<>();
        List<String> repaired = new ArrayList<>();
        for (Candidate c : task.candidates()) {
            if (!Candidate.REPAIR.equals(c.status())) {
                next.add(c);
                continue;
            }
            QuestionTask failed = task.withSql(c.sql(), null).withIssues(List.of(c.issue() != null ? c.issue()
                    : Issue.of(NAME, ErrorCategory.UNKNOWN, c.error())));
            QuestionTask asked = failed.nextAttempt(corrections.build(failed, dialect));
            // an outage throws: the runner retries the step; past its budget the question ends llm_unavailable
            LlmClient.Reply reply = complete(prompts.build(asked, dialect));
            spent = spent.plus(reply.usage());
            Candidate answer = switch (OutputGuardrails.check(reply.text())) {
                case OutputGuardrails.Valid v -> Candidate.generated(c.index(), projection.enforce(v.sql(), task.question()));
                case OutputGuardrails.Invalid inv -> Candidate.invalid(c.index(), inv.text(), inv.reason());
            };
            Candidate corrected = c.repairedAs(answer);
            next.add(corrected);
            repaired.add("candidate " + c.index() + " attempt " + corrected.attempt() + (Candidate.INVALID.equals(corrected.status())
                    ? ": not SQL again" : ": corrected"));
        }
        QuestionTask out = task.withSql(task.sql(), spent).withIssues(task.issues()).withExecution(task.execution())
                .withCandidates(next).withTiming(NAME, Math.max(0, clock.millis() - start.toEpochMilli()));
        return Outcome.send("candidate-repair", Topics.EXECUTE, out).and(Topics.EVENTS, new dev.sqloop.common.message.AttemptEvent(0,
                out.questionId(), out.attempt(), NAME, dev.sqloop.common.message.AttemptEvent.CANDIDATE_REPAIR, out.sql(), List.of(),
                "candidates-repaired", String.join("; ", repaired), null, out.timings().getOrDefault(NAME, 0L), clock.instant(),
                out.round(), out.retries()));
    }

    /**
     * Issue 50's tie-break: the executor ran every candidate and no group of agreeing results was larger than every other.
     * The tied candidates (one per group) meet in a pairwise tournament, one LLM call per pair (CHASE-SQL's selector); the
     * winner's SQL and result end the question, with the verdicts in the trace. It is not sent to {@code success}: an
     * answer the results did not agree on is never captured as an example. When a call fails or its reply names neither
     * candidate, the question ends {@code uncertain}, as without a tie-break.
     */
    private Outcome tieBreak(QuestionTask task, Dialect dialect) {
        Instant start = clock.instant();
        List<Candidate> contenders = PairwiseTieBreak.contenders(task.candidates());
        String tally = task.candidates().size() + " candidates, " + contenders.size() + " tied";
        if (contenders.size() < 2) return undecided(task, tally, "fewer than two tied results to compare", start);
        Candidate champion = contenders.getFirst();
        TokenUsage spent = TokenUsage.ZERO;
        List<String> verdicts = new ArrayList<>();
        for (Candidate challenger : contenders.subList(1, contenders.size())) {
            LlmClient.Reply reply;
            try {
                reply = complete(PairwiseTieBreak.prompt(task, dialect, champion, challenger));
            } catch (dev.sqloop.common.runtime.Cancellations.Cancelled c) {
                throw c;
            } catch (RuntimeException e) {
                return undecided(task.withSql(task.sql(), spent).withExecution(task.execution()), tally,
                        "the comparison call failed: " + Stage.describe(e), start);
            }
            spent = spent.plus(reply.usage());
            Optional<PairwiseTieBreak.Verdict> v = PairwiseTieBreak.parse(reply.text());
            if (v.isEmpty()) {
                return undecided(task.withSql(task.sql(), spent).withExecution(task.execution()), tally,
                        "the comparison of candidates " + champion.index() + " and " + challenger.index() + " named neither", start);
            }
            Candidate winner = v.get().chooseA() ? champion : challenger;
            Candidate loser = v.get().chooseA() ? challenger : champion;
            verdicts.add("candidate " + winner.index() + " over " + loser.index() + " (" + v.get().reason() + ")");
            champion = winner;
        }
        String reason = "pairwise: " + tally + "; " + String.join("; ", verdicts) + "; candidate " + champion.index() + " chosen";
        QuestionTask answer = task.withSql(champion.sql(), spent).withIssues(task.issues()).withExecution(champion.execution())
                .withTiming(NAME, Math.max(0, clock.millis() - start.toEpochMilli()));
        return Outcome.finish(QuestionResult.succeeded(answer, clock.instant()))
                .and(Topics.EVENTS, selectionEvent(answer, "pairwise", reason));
    }

    private Outcome undecided(QuestionTask task, String tally, String why, Instant start) {
        QuestionTask timed = task.withTiming(NAME, Math.max(0, clock.millis() - start.toEpochMilli()));
        String reason = "no agreement: " + tally + "; tie-break failed: " + why;
        return Outcome.finish(QuestionResult.uncertain(timed, reason, clock.instant()))
                .and(Topics.EVENTS, selectionEvent(timed, "uncertain", reason));
    }

    private dev.sqloop.common.message.AttemptEvent selectionEvent(QuestionTask task, String decision, String reason) {
        return new dev.sqloop.common.message.AttemptEvent(0, task.questionId(), task.attempt(), NAME, "selection", task.sql(),
                List.of(), decision, reason, null, task.timings().getOrDefault(NAME, 0L), clock.instant(), task.round(), task.retries());
    }

    /** SQL compared as text for the early stop: whitespace runs and a trailing semicolon do not make two answers differ. */
    static String sameTextKey(String sql) {
        String s = sql == null ? "" : sql.strip().replaceAll("\\s+", " ");
        return s.endsWith(";") ? s.substring(0, s.length() - 1).stripTrailing() : s;
    }

    /** The line that makes a candidate's prompt its own: "Candidate 2 of 3: …". */
    public static String candidateLine(int k, int n) {
        return "Candidate " + k + " of " + n + ": write the query independently; check the join keys, the filters and the date bounds.";
    }

    /**
     * One LLM call, counted as the metrics read it: its duration and error type (recorded before the runner retries a
     * failure: each try is one call), and its tokens. A cancellation while waiting for a slot made no call: not counted.
     */
    private LlmClient.Reply complete(LlmClient.Prompt prompt) {
        long start = System.nanoTime();
        LlmClient.Reply reply;
        try {
            reply = llm.complete(prompt);
        } catch (dev.sqloop.common.runtime.Cancellations.Cancelled c) {
            throw c;
        } catch (RuntimeException e) {
            llmCall(LlmErrorType.of(e), start);
            throw e;
        }
        llmCall("", start);
        metrics.llmTokens(llm.provider(), llm.model(), reply.usage());
        return reply;
    }

    private void llmCall(String errorType, long startNanos) {
        metrics.llmCall(llm.provider(), llm.model(), errorType, Duration.ofNanos(System.nanoTime() - startNanos));
    }

    /** An LLM that stays down past the runner's budget ends the question with a clear reason, not "in progress". */
    @Override
    public Outcome onGiveUp(QuestionTask task, Exception cause, boolean infrastructure, Instant now) {
        if (!infrastructure) return super.onGiveUp(task, cause, false, now);
        return Outcome.finish(QuestionResult.failed(task, Outcomes.LLM_UNAVAILABLE, ErrorCategory.CONNECTION_ERROR,
                "LLM endpoint unavailable after retries: " + Stage.describe(cause), now));
    }
}
