package dev.sqloop.executor;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.datasource.Datasources;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.error.Outcomes;
import dev.sqloop.common.message.AttemptEvent;
import dev.sqloop.common.message.Candidate;
import dev.sqloop.common.message.EmptyAnswer;
import dev.sqloop.common.message.Execution;
import dev.sqloop.common.message.Issue;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.runtime.AbstractStage;
import dev.sqloop.common.runtime.Outcome;
import dev.sqloop.common.runtime.InfrastructureException;
import dev.sqloop.common.runtime.Stage;
import dev.sqloop.common.runtime.StageMetrics;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The {@code execute} step: runs the attempt's SQL read-only on the question's datasource. A result goes to
 * {@code success}; an engine error (including {@code permission_denied}, which the repair worker does not
 * retry) goes to {@code repair-feedback} as an issue; an unreachable warehouse is retried by the runner and,
 * once its budget is spent, ends the question as {@code warehouse_unavailable}. Every statement an engine saw is
 * one {@code db.client.operation.duration} record; one refused before reaching it is none.
 */
public final class ExecuteStage extends AbstractStage<QuestionTask> {
    public static final String NAME = "execute";

    private final Datasources datasources;
    private final QueryRunner executor;
    private final StageMetrics metrics;
    private final Clock clock;

    private final Set<String> emptyAnswerRepair;
    private final Set<String> tieBreak;

    public ExecuteStage(Datasources datasources, QueryRunner executor, StageMetrics metrics, Clock clock) {
        this(datasources, executor, metrics, clock, Set.of());
    }

    /**
     * @param emptyAnswerRepair datasources ({@code SQLOOP_DATASOURCE_<NAME>_EMPTY_ANSWER_REPAIR=true}) where an empty answer
     *     to a question that asks for rows gets one repair round with the finding as evidence, while attempts remain
     */
    public ExecuteStage(Datasources datasources, QueryRunner executor, StageMetrics metrics, Clock clock, Set<String> emptyAnswerRepair) {
        this(datasources, executor, metrics, clock, emptyAnswerRepair, Set.of());
    }

    private ExecuteStage(Datasources datasources, QueryRunner executor, StageMetrics metrics, Clock clock, Set<String> emptyAnswerRepair,
                         Set<String> tieBreak) {
        super(NAME, QuestionTask.class);
        this.tieBreak = Set.copyOf(tieBreak);
        this.datasources = datasources;
        this.executor = executor;
        this.metrics = metrics;
        this.clock = clock;
        this.emptyAnswerRepair = Set.copyOf(emptyAnswerRepair);
    }

    /**
     * The same stage sending a question whose candidates' results tie to the generator for a pairwise LLM comparison
     * ({@code SQLOOP_DATASOURCE_<NAME>_TIE_BREAK=true}, names in lower case) instead of ending it {@code uncertain}.
     */
    public ExecuteStage withTieBreak(Set<String> datasources) {
        return new ExecuteStage(this.datasources, executor, metrics, clock, emptyAnswerRepair, datasources);
    }

    @Override
    public Outcome process(QuestionTask task) {
        Optional<DatasourceConfig> ds = datasources.find(task.datasource());
        if (ds.isEmpty()) {
            return Outcome.finish(QuestionResult.failed(task, Outcomes.UNKNOWN_DATASOURCE, null,
                    "unknown datasource '" + task.datasource() + "' (known: " + datasources.names() + ")", clock.instant()));
        }
        if (task.dialect() != null && task.dialect() != ds.get().dialect()) {
            // The connection decides the engine; a question resolved to another dialect was written for another engine.
            return Outcome.finish(QuestionResult.failed(task, Outcomes.UNKNOWN_DATASOURCE, null, "datasource '" + task.datasource()
                    + "' is " + ds.get().dialect().wireName() + " here but the question was submitted for "
                    + task.dialect().wireName() + ": SQLOOP_DATASOURCE_<NAME>_DIALECT differs between services", clock.instant()));
        }
        if (task.sql() == null || task.sql().isBlank()) {
            return Outcome.repair(task.withIssues(List.of(Issue.of(NAME, ErrorCategory.LLM_OUTPUT_INVALID, "no SQL to execute"))));
        }
        List<Issue> refused = task.issues().stream().filter(Issue::error).toList();
        if (!refused.isEmpty()) {
            // the validator refused the question's own SQL and passed it on for its other candidates: never run it
            return task.candidates().isEmpty() ? Outcome.repair(task) : ownFailed(ds.get(), task, task.issues());
        }
        long start = System.nanoTime();
        String system = dbSystem(ds.get().dialect());
        QueryRunner.Result result;
        Optional<Execution> ownKept = ownResultKept(task);
        if (ownKept.isPresent()) {
            // back from its candidates' repair: the question's own SQL ran already, only the repaired candidates run
            result = new QueryRunner.Succeeded(ownKept.get());
        } else {
            try {
                result = executor.run(ds.get(), task.sql());
            } catch (RuntimeException e) {
                ErrorCategory category = e instanceof InfrastructureException ? ErrorCategory.CONNECTION_ERROR : ErrorCategory.UNKNOWN;
                metrics.dbCall(system, category.wireName(), Duration.ofNanos(System.nanoTime() - start));
                throw e;
            }
            switch (result) {
                case QueryRunner.Succeeded s -> metrics.dbCall(system, "", Duration.ofNanos(System.nanoTime() - start));
                case QueryRunner.Failed f when f.sent() ->
                        metrics.dbCall(system, f.error().category().wireName(), Duration.ofNanos(System.nanoTime() - start));
                case QueryRunner.Failed f -> {
                    // refused by the guard or an allow-list: no engine saw it
                }
            }
        }
        QuestionTask timed = task.withTiming(NAME, (System.nanoTime() - start) / 1_000_000);
        return switch (result) {
            case QueryRunner.Succeeded first when !timed.candidates().isEmpty() -> {
                // several candidates (issue 50): run the others, then the answer is the one their results agree on
                Chosen chosen = select(ds.get(), timed,
                        Candidate.generated(1, timed.sql()).ran(first.execution(), ResultFingerprint.of(timed.sql(), first.execution())));
                List<Candidate> kept = chosen.candidates();
                List<Candidate> toRepair = worthRepairing(chosen, timed.maxAttempts());
                if (!toRepair.isEmpty()) {
                    // failed candidates that could still change the choice go through repair, as a question's attempt
                    // would; the generator corrects them and they run and vote here again
                    List<Candidate> marked = kept.stream().map(c -> toRepair.contains(c) ? c.toRepair() : c).toList();
                    yield Outcome.send("candidate-repair", Topics.REGENERATE, timed.withExecution(first.execution()).withCandidates(marked))
                            .and(Topics.EVENTS, candidateRepairEvent(timed, chosen.selection(), toRepair));
                }
                yield decide(ds.get(), timed, chosen, first.execution());
            }
            case QueryRunner.Failed f when !timed.candidates().isEmpty() -> ownFailed(ds.get(), timed, List.of(toIssue(f.error())));
            case QueryRunner.Succeeded s -> succeeded(timed, s.execution(), ds.get());
            case QueryRunner.Failed f -> Outcome.repair(timed.withExecution(null).withIssues(List.of(toIssue(f.error()))));
        };
    }

    /**
     * The question's own SQL failed (here, or refused by the validator, which then passes it on): the other candidates run
     * now, their results kept (never run again). Where the own SQL's repair could still change the choice it is repaired
     * as before; where it cannot (its attempts are spent, its error is not one a correction fixes, or the others agree too
     * widely) they decide; where none of them ran either, the repair worker ends it as without candidates.
     *
     * @param issues the own SQL's issues, errors first among them
     */
    private Outcome ownFailed(DatasourceConfig ds, QuestionTask timed, List<Issue> issues) {
        Issue own = issues.stream().filter(Issue::error).findFirst().orElse(issues.getFirst());
        // candidate 1 at the question's own attempt, so its repair is bounded by the same budget
        Candidate failedOwn = new Candidate(1, timed.sql(), Candidate.GENERATED, null, null, null, timed.attempt(), null).failed(own);
        Chosen chosen = select(ds, timed, failedOwn);
        boolean nothingRan = chosen.selection().groups().isEmpty();
        if (nothingRan || failedOwn.repairable(timed.maxAttempts())
                && couldChange(chosen.selection(), 1 + repairableOthers(chosen, timed.maxAttempts()).size())) {
            List<Candidate> others = chosen.candidates().stream().filter(c -> c.index() > 1).toList();
            return Outcome.repair(timed.withExecution(null).withIssues(issues).withCandidates(others));
        }
        Execution any = chosen.candidates().stream().filter(Candidate::votes).findFirst().map(Candidate::execution).orElseThrow();
        return decide(ds, timed.withIssues(List.of()), chosen, any);
    }

    /**
     * The answer the candidates' results chose: the winner succeeds; a tie goes to the generator's pairwise comparison
     * where the datasource asks for it, else ends {@code uncertain}.
     *
     * @param execution a result that ran (the question's own where it did), which the tie-break's task carries
     */
    private Outcome decide(DatasourceConfig ds, QuestionTask timed, Chosen chosen, Execution execution) {
        List<Candidate> kept = chosen.candidates();
        AttemptEvent selection = selectionEvent(timed, chosen.selection());
        if (chosen.selection().winner() == null && chosen.selection().groups().size() >= 2
                && tieBreak.contains(timed.datasource().toLowerCase(java.util.Locale.ROOT))) {
            // Only the generator holds the LLM client: the question goes to its priority lane with every result, and
            // the generator compares the tied candidates pairwise and ends the question (see QuestionTask#awaitsTieBreak).
            return Outcome.send("tie-break", Topics.REGENERATE, timed.withExecution(execution).withCandidates(kept));
        }
        if (chosen.selection().winner() == null) {
            return Outcome.finish(QuestionResult.uncertain(timed.withExecution(execution).withCandidates(kept),
                    chosen.selection().reason(), clock.instant())).and(Topics.EVENTS, selection);
        }
        Candidate w = chosen.selection().winner();
        QuestionTask answer = (w.index() == 1 ? timed : timed.withSql(w.sql(), null).withIssues(timed.issues()))
                .withCandidates(kept);
        return succeeded(answer, w.execution(), ds).and(Topics.EVENTS, selection);
    }

    /** A result: to {@code success} and {@code results}, or one repair round for an empty answer (issue 46). */
    private Outcome.Send succeeded(QuestionTask timed, Execution execution, DatasourceConfig ds) {
        // an empty answer to a question that asks for rows: a hint on the result and in the trace (issue 46)
        Optional<Issue> empty = EmptyAnswerFinding.of(timed, ds.dialect(), execution);
        if (empty.isPresent() && repairsEmptyAnswer(timed)) {
            Issue finding = EmptyAnswerFinding.asError(empty.get());
            return Outcome.repair(timed.withExecution(execution).withIssues(List.of(finding)))
                    .and(Topics.EVENTS, event(timed, List.of(finding), "repair", "empty answer: one repair round with the finding"));
        }
        // success feeds auto-capture (what it reads, no more); the final result goes straight to results so
        // capture never delays it
        QuestionTask done = timed.withIssues(empty.map(List::of).orElse(List.of())).withExecution(execution);
        Outcome.Send success = Outcome.forward(Topics.SUCCESS, done.forCapture()).and(Topics.RESULTS, QuestionResult.succeeded(done, clock.instant()));
        if (empty.isPresent()) return success.and(Topics.EVENTS, event(timed, List.of(empty.get()), "pass-with-hints", "empty answer"));
        // the trace says when this stage waited for the warehouse (the result counts it too)
        return timed.retries().containsKey(NAME) ? success.and(Topics.EVENTS, event(timed, List.of(), "pass", null)) : success;
    }

    record Chosen(CandidateSelector.Selection selection, List<Candidate> candidates) {}

    /**
     * Runs the candidates not run yet, each as the executor runs any SQL (read-only guard, allow-lists, cost guard, row
     * limit, timeout); one the engine or a safeguard refuses does not vote until it is repaired. An unreachable warehouse
     * throws, so the runner retries the whole step.
     *
     * @param own the question's own SQL as it ran (or failed) in this step: candidate 1
     */
    private Chosen select(DatasourceConfig ds, QuestionTask task, Candidate own) {
        List<Candidate> all = new ArrayList<>();
        all.add(own);
        String system = dbSystem(ds.dialect());
        for (Candidate c : task.candidates()) {
            if (c.index() == 1) continue; // a result kept from an earlier step: the question's own attempt is run above
            if (!Candidate.GENERATED.equals(c.status())) {
                all.add(c);
                continue;
            }
            long start = System.nanoTime();
            QueryRunner.Result r = executor.run(ds, c.sql());
            switch (r) {
                case QueryRunner.Succeeded s -> {
                    metrics.dbCall(system, "", Duration.ofNanos(System.nanoTime() - start));
                    all.add(c.ran(s.execution(), ResultFingerprint.of(c.sql(), s.execution())));
                }
                case QueryRunner.Failed f -> {
                    if (f.sent()) metrics.dbCall(system, f.error().category().wireName(), Duration.ofNanos(System.nanoTime() - start));
                    all.add(c.failed(toIssue(f.error())));
                }
            }
        }
        return new Chosen(CandidateSelector.select(all), List.copyOf(all));
    }

    /**
     * The question's own result when it came back from its candidates' repair with the same SQL: that candidate ran
     * already (its result kept at index 1) and is not run again.
     */
    private static Optional<Execution> ownResultKept(QuestionTask task) {
        return task.candidates().stream()
                .filter(c -> c.index() == 1 && c.votes() && c.execution() != null && java.util.Objects.equals(c.sql(), task.sql()))
                .map(Candidate::execution).findFirst();
    }

    /**
     * The failed candidates to repair: those with an attempt left and a retryable failure, when their votes could still
     * change the choice (they could outnumber or tie the winning group with the runner-up's votes); none when the
     * winner stands whatever they return, so no LLM call is spent on them.
     */
    static List<Candidate> worthRepairing(Chosen chosen, int maxAttempts) {
        List<Candidate> repairable = repairableOthers(chosen, maxAttempts);
        return !repairable.isEmpty() && couldChange(chosen.selection(), repairable.size()) ? repairable : List.of();
    }

    private static List<Candidate> repairableOthers(Chosen chosen, int maxAttempts) {
        return chosen.candidates().stream().filter(c -> c.index() > 1 && c.repairable(maxAttempts)).toList();
    }

    /**
     * Whether {@code votes} more results could change the selection: there is no answer yet, or they could join the
     * runner-up group (or form one) and outnumber or tie the winning one.
     */
    static boolean couldChange(CandidateSelector.Selection s, int votes) {
        List<Integer> groups = s.groups();
        int top = groups.isEmpty() ? 0 : groups.getFirst();
        int second = groups.size() < 2 ? 0 : groups.get(1);
        return s.winner() == null || second + votes >= top;
    }

    private AttemptEvent candidateRepairEvent(QuestionTask task, CandidateSelector.Selection s, List<Candidate> toRepair) {
        String which = toRepair.stream().map(c -> "candidate " + c.index() + " (attempt " + c.attempt() + ", " + c.error() + ")")
                .collect(java.util.stream.Collectors.joining("; "));
        return new AttemptEvent(0, task.questionId(), task.attempt(), NAME, AttemptEvent.CANDIDATE_REPAIR, task.sql(),
                toRepair.stream().map(Candidate::issue).filter(java.util.Objects::nonNull).toList(), "repair-candidates",
                s.reason() + "; repairing " + which, null, task.timings().getOrDefault(NAME, 0L), clock.instant(), task.round(),
                task.retries());
    }

    private AttemptEvent selectionEvent(QuestionTask task, CandidateSelector.Selection s) {
        return new AttemptEvent(0, task.questionId(), task.attempt(), NAME, "selection", task.sql(), List.of(),
                s.decision().wireName(), s.reason(), null, task.timings().getOrDefault(NAME, 0L), clock.instant(), task.round(),
                task.retries());
    }

    /**
     * One repair round per question for an empty answer, where its datasource asks for it and an attempt remains; never
     * again once a round was spent on it (a query that legitimately returns nothing then succeeds with the hint).
     */
    private boolean repairsEmptyAnswer(QuestionTask task) {
        return emptyAnswerRepair.contains(task.datasource().toLowerCase(java.util.Locale.ROOT)) && task.attempt() < task.maxAttempts()
                && !EmptyAnswer.anyFinding(task.previousIssues());
    }

    private AttemptEvent event(QuestionTask task, List<Issue> issues, String decision, String reason) {
        Instant now = clock.instant();
        return new AttemptEvent(0, task.questionId(), task.attempt(), NAME, "execution", task.sql(), issues, decision, reason, null,
                task.timings().getOrDefault(NAME, 0L), now, task.round(), task.retries());
    }

    /** The OTel {@code db.system.name} of the engine a dialect runs on. */
    static String dbSystem(Dialect dialect) {
        return switch (dialect) {
            case TRINO -> "trino";
            case PRESTO -> "presto";
            case HIVE -> "hive";
            case SPARKSQL -> "spark";
            case POSTGRES -> "postgresql";
            case DUCKDB -> "duckdb";
            case CLICKHOUSE -> "clickhouse";
        };
    }

    static Issue toIssue(EngineError e) {
        return new Issue(NAME, e.category(), e.message(), e.identifier(), e.candidates(), false, e.overBudget());
    }

    /** An exhausted infrastructure budget means the warehouse stayed unreachable: say so, never "in progress". */
    @Override
    public Outcome onGiveUp(QuestionTask task, Exception cause, boolean infrastructure, Instant now) {
        if (!infrastructure) return super.onGiveUp(task, cause, false, now);
        return Outcome.finish(QuestionResult.failed(task.withIssues(List.of(Issue.of(NAME, ErrorCategory.CONNECTION_ERROR,
                        Stage.describe(cause)))), Outcomes.WAREHOUSE_UNAVAILABLE, ErrorCategory.CONNECTION_ERROR,
                Stage.describe(cause), now));
    }
}
