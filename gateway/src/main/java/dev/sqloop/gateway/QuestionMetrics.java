package dev.sqloop.gateway;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.error.Outcomes;
import dev.sqloop.common.message.AttemptEvent;
import dev.sqloop.common.message.Candidate;
import dev.sqloop.common.message.Issue;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.metrics.Metrics;
import dev.sqloop.gateway.Views.QuestionState;
import dev.sqloop.gateway.Views.Update;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The per-question and per-attempt metrics ({@code helm/sqloop/files/METRICS.md}), counted in one place: where the
 * gateway's results view folds a question's updates into its state ({@link ResultsView}'s {@code questions} store).
 *
 * <p><b>Why each question counts once.</b> Every update of a question (its final result, each attempt event) is
 * keyed by the question id, so one stream task on one gateway instance owns the question; {@link #observe} compares
 * the update with the state the store already holds, and counts a result only when the question had none, an event
 * only when its (attempt, stage, kind) is not yet in the trace. A redelivered record (a stage retried a produce, a
 * worker crashed before committing) finds its first copy in the state and counts nothing. A moved partition or a
 * restarted instance restores the store from its changelog without replaying the fold, so nothing is counted again.
 * What is lost is what every counter loses: increments of a crashed process, which Prometheus' {@code rate} and
 * {@code increase} treat as a counter reset.
 *
 * <p>Labels are bounded: a datasource the gateway is not configured with becomes {@code unknown}, as does its dialect;
 * repair decisions outside the known set become {@code other}. Question ids, SQL and tenants never become labels.
 */
final class QuestionMetrics {
    static final String UNKNOWN = "unknown";
    static final String FAILED = "failed";
    /** Issue 50: candidates that did not agree. A failed result by status, an outcome of its own here. */
    static final String UNCERTAIN = Outcomes.UNCERTAIN;
    /** Why a question may fail: pre-registered at zero so the first failure of a kind shows in {@code increase()}. */
    static final List<String> FAILURE_REASONS = List.of(Outcomes.MAX_ATTEMPTS, Outcomes.UNCHANGED_SQL, Outcomes.NON_RETRYABLE,
            Outcomes.UNKNOWN_DATASOURCE, Outcomes.LLM_UNAVAILABLE, Outcomes.WAREHOUSE_UNAVAILABLE, Outcomes.DEADLINE_EXCEEDED,
            Outcomes.INFRASTRUCTURE_ERROR, Outcomes.INTERNAL_ERROR, Outcomes.CANCELLED);
    private static final Set<String> STOP_DECISIONS = Set.of(Outcomes.MAX_ATTEMPTS, Outcomes.UNCHANGED_SQL,
            Outcomes.NON_RETRYABLE, Outcomes.UNKNOWN_DATASOURCE);
    static final String RETRY = "retry";
    /** The repair worker's event kind, and the validator's. */
    static final String REPAIR_EVENT = "repair-decision";
    static final String VALIDATION_EVENT = "validation";
    /**
     * The event when the executor chose among a question's candidates (issue 50), or the generator broke their tie by a
     * pairwise comparison ({@code pairwise}; its failure is {@code uncertain}): one per question.
     */
    static final String SELECTION_EVENT = "selection";
    /** The executor's decision on a {@link AttemptEvent#CANDIDATE_REPAIR} event (its issues: one per candidate sent). */
    static final String REPAIR_CANDIDATES = "repair-candidates";
    static final List<String> SELECTION_DECISIONS = List.of("unanimous", "majority", "sole", "pairwise", "uncertain");

    private static final double[] ATTEMPT_BUCKETS = {1, 2, 3, 4, 5, 6, 8, 10};
    private static final Duration[] END_TO_END_BUCKETS = seconds(0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600);

    private final MeterRegistry registry;
    private final Map<String, Dialect> datasources;

    QuestionMetrics(MeterRegistry registry, Map<String, Dialect> datasources) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.datasources = Map.copyOf(datasources);
        for (Map.Entry<String, Dialect> ds : this.datasources.entrySet()) {
            String dialect = ds.getValue().wireName();
            questions(Outcomes.FIRST_ATTEMPT_SUCCESS, "", ds.getKey(), dialect);
            questions(Outcomes.CORRECTED_SUCCESS, "", ds.getKey(), dialect);
            for (String reason : FAILURE_REASONS) questions(FAILED, reason, ds.getKey(), dialect);
            questions(UNCERTAIN, UNCERTAIN, ds.getKey(), dialect);
        }
        // hints are rare; at zero from the start, a dashboard shows "none" rather than "no data"
        for (ErrorCategory c : ErrorCategory.values()) hints(c.wireName());
        for (String d : SELECTION_DECISIONS) selections(d);
    }

    /** Counts what {@code update} adds to a question whose stored state is {@code before}; nothing for a repeat. */
    void observe(QuestionState before, Update update) {
        switch (update) {
            case Update.Finished f -> {
                if (before.newResult(f)) finished(f.result());
            }
            case Update.Event e -> {
                if (!before.seen(e.event())) attempt(e.event());
            }
            case Update.Submitted s -> {
                // submissions are counted by the gateway's HTTP endpoints
            }
        }
    }

    void finished(QuestionResult r) {
        String datasource = datasources.containsKey(r.datasource()) ? r.datasource() : UNKNOWN;
        String dialect = datasources.containsKey(r.datasource()) ? datasources.get(r.datasource()).wireName() : UNKNOWN;
        String outcome = r.succeeded() ? r.reason() : UNCERTAIN.equals(r.reason()) ? UNCERTAIN : FAILED;
        questions(outcome, r.succeeded() ? "" : r.reason(), datasource, dialect).increment();
        DistributionSummary.builder(Metrics.ATTEMPTS).description("Attempts used per finished question (1 = first attempt)")
                .serviceLevelObjectives(ATTEMPT_BUCKETS).tags("datasource", datasource, "dialect", dialect)
                .register(registry).record(r.attempts());
        if (r.submittedAt() != null && r.completedAt() != null && !r.completedAt().isBefore(r.submittedAt())) {
            Timer.builder(Metrics.END_TO_END).description("Submission to final result")
                    .serviceLevelObjectives(END_TO_END_BUCKETS).tags("datasource", datasource, "dialect", dialect, "outcome", outcome)
                    .register(registry).record(Duration.between(r.submittedAt(), r.completedAt()));
        }
        DistributionSummary.builder(Metrics.QUESTION_TOKENS).description("LLM tokens (input + output) spent on one question")
                .tags("datasource", datasource, "dialect", dialect)
                .register(registry).record(r.usage().inputTokens() + r.usage().outputTokens());
        DistributionSummary.builder(Metrics.QUESTION_COST).baseUnit(Metrics.USD)
                .description("What one question's LLM calls cost, all attempts, at the generator's price table")
                .tags("datasource", datasource, "dialect", dialect, "outcome", outcome)
                .register(registry).record(r.usage().cost());
        if (!r.candidates().isEmpty()) {
            DistributionSummary.builder(Metrics.QUESTION_CANDIDATES).description("Candidates a question was answered from")
                    .tags("datasource", datasource, "dialect", dialect).register(registry).record(r.candidates().size());
            agreement(r.candidates()).ifPresent(share -> DistributionSummary.builder(Metrics.CANDIDATE_AGREEMENT)
                    .description("The largest agreeing group's share of the candidates that ran")
                    .tags("datasource", datasource, "dialect", dialect).register(registry).record(share));
        }
    }

    /** The largest group of equal result fingerprints over the candidates that ran; empty when none ran. */
    static java.util.OptionalDouble agreement(List<Candidate> candidates) {
        Map<String, Long> groups = candidates.stream().filter(c -> Candidate.RAN.equals(c.status()) && c.fingerprint() != null)
                .collect(java.util.stream.Collectors.groupingBy(Candidate::fingerprint, java.util.stream.Collectors.counting()));
        long ran = groups.values().stream().mapToLong(Long::longValue).sum();
        if (ran == 0) return java.util.OptionalDouble.empty();
        return java.util.OptionalDouble.of((double) groups.values().stream().mapToLong(Long::longValue).max().orElse(0) / ran);
    }

    /** One attempt's errors and repair decision (the repair worker's event), or its hints (the validator's). */
    void attempt(AttemptEvent e) {
        if (REPAIR_EVENT.equals(e.kind())) {
            Set<List<String>> errors = new LinkedHashSet<>();
            for (Issue i : e.issues()) {
                if (i.error()) errors.add(List.of(i.stage() == null ? UNKNOWN : i.stage(), i.category().wireName()));
            }
            for (List<String> se : errors) {
                Counter.builder(Metrics.ERRORS).description("Blocking errors of an attempt, by the stage that found them")
                        .tags("stage", se.get(0), "category", se.get(1)).register(registry).increment();
            }
            String category = e.issues().stream().filter(Issue::error).findFirst().map(i -> i.category().wireName()).orElse(UNKNOWN);
            Counter.builder(Metrics.REPAIRS).description("The repair worker's decision for one failed attempt")
                    .tags("category", category, "decision", decision(e)).register(registry).increment();
        } else if (AttemptEvent.CANDIDATE_REPAIR.equals(e.kind()) && REPAIR_CANDIDATES.equals(e.decision())) {
            for (Issue i : e.issues()) {
                Counter.builder(Metrics.CANDIDATE_REPAIRS).description("Failed candidates sent to repair, by their failure's category")
                        .tags("category", i.category().wireName()).register(registry).increment();
            }
        } else if (SELECTION_EVENT.equals(e.kind())) {
            selections(SELECTION_DECISIONS.contains(e.decision()) ? e.decision() : "other").increment();
        } else if (VALIDATION_EVENT.equals(e.kind())) {
            for (Issue i : e.issues()) {
                if (i.hint()) hints(i.category().wireName()).increment();
            }
        }
    }

    /** {@code retry}, or why the question stopped (the event's reason starts with it), bounded to the known set. */
    static String decision(AttemptEvent e) {
        if (RETRY.equals(e.decision())) return RETRY;
        String reason = e.reason() == null ? "" : e.reason();
        int colon = reason.indexOf(':');
        String head = (colon < 0 ? reason : reason.substring(0, colon)).strip();
        return STOP_DECISIONS.contains(head) ? head : "other";
    }

    private Counter selections(String decision) {
        return Counter.builder(Metrics.CANDIDATE_SELECTIONS).description("How a question's answer was chosen among its candidates")
                .tags("decision", decision).register(registry);
    }

    private Counter hints(String category) {
        return Counter.builder(Metrics.HINTS).description("Non-blocking hints passed on with an attempt")
                .tags("category", category).register(registry);
    }

    private Counter questions(String outcome, String reason, String datasource, String dialect) {
        return Counter.builder(Metrics.QUESTIONS).description("Final results, once per question")
                .tags("outcome", outcome, "reason", reason, "datasource", datasource, "dialect", dialect).register(registry);
    }

    private static Duration[] seconds(double... values) {
        Duration[] out = new Duration[values.length];
        for (int i = 0; i < values.length; i++) out[i] = Duration.ofNanos((long) (values[i] * 1e9));
        return out;
    }
}
