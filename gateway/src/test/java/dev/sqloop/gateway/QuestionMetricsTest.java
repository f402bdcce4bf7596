package dev.sqloop.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.error.Outcomes;
import dev.sqloop.common.message.AttemptEvent;
import dev.sqloop.common.message.Issue;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.message.TokenUsage;
import dev.sqloop.common.metrics.Metrics;
import dev.sqloop.gateway.Views.QuestionState;
import dev.sqloop.gateway.Views.Update;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class QuestionMetricsTest {
    private static final Instant T0 = Instant.parse("2026-11-23T10:00:00Z");
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final QuestionMetrics metrics = new QuestionMetrics(registry, Map.of("sales", Dialect.TRINO));

    /** Folds updates the way the results view does: observe against the stored state, then apply. */
    private QuestionState fold(QuestionState state, Update... updates) {
        for (Update u : updates) {
            metrics.observe(state, u);
            state = state.apply(u);
        }
        return state;
    }

    private static QuestionTask task(String id, String datasource) {
        return QuestionTask.create(id, "t", datasource, "how many orders?", 3, T0);
    }

    private static QuestionResult corrected(String id) {
        QuestionTask t = task(id, "sales").withSql("SELECT 1", new TokenUsage(100, 20, 0, 0.25)).nextAttempt("fix it")
                .withSql("SELECT 2", new TokenUsage(150, 30, 0, 0.5));
        return QuestionResult.succeeded(t, T0.plusSeconds(3));
    }

    private double questions(String outcome, String reason) {
        return registry.get(Metrics.QUESTIONS).tags("outcome", outcome, "reason", reason, "datasource", "sales", "dialect", "trino")
                .counter().count();
    }

    private static AttemptEvent repairEvent(String id, int attempt, String decision, String reason, Issue... issues) {
        return new AttemptEvent(0, id, attempt, "repair", QuestionMetrics.REPAIR_EVENT, "SELECT x", List.of(issues), decision,
                reason, null, 1, T0, 0);
    }

    @Test
    void shouldCountAnUncertainQuestionAsAnOutcomeOfItsOwnNotAsAFailure() {
        assertEquals(0.0, questions(Outcomes.UNCERTAIN, Outcomes.UNCERTAIN), "registered at zero");
        QuestionResult r = QuestionResult.uncertain(task("q-u", "sales").withSql("SELECT 1", TokenUsage.ZERO),
                "no agreement: 3 candidates", T0.plusSeconds(2));
        assertFalse(r.succeeded());
        metrics.finished(r);
        assertEquals(1.0, questions(Outcomes.UNCERTAIN, Outcomes.UNCERTAIN));
        assertEquals(0.0, registry.find(Metrics.QUESTIONS).tag("outcome", QuestionMetrics.FAILED).counters().stream()
                .mapToDouble(io.micrometer.core.instrument.Counter::count).sum(), "not counted as failed too");
    }

    @Test
    void shouldMeasureCandidatesTheirAgreementAndTheSelectorsDecisions() {
        for (String d : QuestionMetrics.SELECTION_DECISIONS) {
            assertEquals(0.0, registry.get(Metrics.CANDIDATE_SELECTIONS).tag("decision", d).counter().count(), d + " at zero");
        }
        var ran = new dev.sqloop.common.message.Execution(List.of("n"), List.of("BIGINT"), 1, List.of(List.of(1)), 1);
        List<dev.sqloop.common.message.Candidate> five = List.of(
                dev.sqloop.common.message.Candidate.generated(1, "SELECT 1").ran(ran, "a"),
                dev.sqloop.common.message.Candidate.generated(2, "SELECT 1").ran(ran, "a"),
                dev.sqloop.common.message.Candidate.generated(3, "SELECT 2").ran(ran, "b"),
                dev.sqloop.common.message.Candidate.generated(4, "SELECT 1").ran(ran, "a"),
                dev.sqloop.common.message.Candidate.invalid(5, "no idea", "not SQL"));
        QuestionTask t = task("q-c", "sales").withSql("SELECT 1", TokenUsage.ZERO).withCandidates(five);
        metrics.finished(QuestionResult.succeeded(t, T0.plusSeconds(1)));
        assertEquals(5.0, registry.get(Metrics.QUESTION_CANDIDATES).summary().totalAmount(), "every candidate asked for");
        assertEquals(0.75, registry.get(Metrics.CANDIDATE_AGREEMENT).summary().totalAmount(), 1e-9,
                "3 of the 4 that ran agree; the invalid one did not run");
        metrics.attempt(new AttemptEvent(0, "q-c", 1, "execute", QuestionMetrics.SELECTION_EVENT, "SELECT 1", List.of(), "majority",
                "3 of 4 agree", null, 1, T0, 0));
        assertEquals(1.0, registry.get(Metrics.CANDIDATE_SELECTIONS).tag("decision", "majority").counter().count());
        metrics.finished(corrected("q-one"));
        assertEquals(1, registry.get(Metrics.QUESTION_CANDIDATES).summary().count(), "one candidate: not counted");
    }

    @Test
    void shouldCountAResultOnceWhenItsRecordIsRedelivered() {
        QuestionResult r = corrected("q1");
        fold(QuestionState.EMPTY, new Update.Finished(r), new Update.Finished(r), new Update.Finished(r));
        assertEquals(1.0, questions(Outcomes.CORRECTED_SUCCESS, ""));
        assertEquals(0.0, questions(Outcomes.FIRST_ATTEMPT_SUCCESS, ""), "pre-registered at zero, never incremented");
        assertEquals(1, registry.get(Metrics.ATTEMPTS).summary().count());
        assertEquals(2.0, registry.get(Metrics.ATTEMPTS).summary().totalAmount(), "the corrected question took two attempts");
        assertEquals(3.0, registry.get(Metrics.END_TO_END).tag("outcome", Outcomes.CORRECTED_SUCCESS).timer()
                .totalTime(java.util.concurrent.TimeUnit.SECONDS), 1e-9);
        assertEquals(300.0, registry.get(Metrics.QUESTION_TOKENS).summary().totalAmount(), "input + output of both attempts");
        assertEquals(0.75, registry.get(Metrics.QUESTION_COST).tag("outcome", Outcomes.CORRECTED_SUCCESS).summary().totalAmount(),
                "the cost of both attempts, once");
        assertEquals(1, registry.get(Metrics.QUESTION_COST).summary().count());
    }

    @Test
    void shouldCountAFailureWithItsReasonAndBoundUnknownDatasources() {
        QuestionTask t = task("q2", "sales").withSql("SELECT broken", TokenUsage.ZERO);
        fold(QuestionState.EMPTY, new Update.Finished(QuestionResult.failed(t, Outcomes.MAX_ATTEMPTS, ErrorCategory.COLUMN_NOT_FOUND, "x", T0)));
        assertEquals(1.0, questions(QuestionMetrics.FAILED, Outcomes.MAX_ATTEMPTS));
        assertEquals(0.0, questions(QuestionMetrics.FAILED, Outcomes.LLM_UNAVAILABLE), "every failure reason exists from the start");

        QuestionTask stray = task("q3", "someone-elses-db").withSql("SELECT 1", TokenUsage.ZERO);
        fold(QuestionState.EMPTY, new Update.Finished(QuestionResult.succeeded(stray, T0)));
        assertEquals(1.0, registry.get(Metrics.QUESTIONS).tags("datasource", "unknown", "dialect", "unknown").counter().count());
        assertFalse(registry.scrape().contains("someone-elses-db"), "a datasource name from a record never becomes a label");
    }

    @Test
    void shouldCountEachAttemptsErrorsAndDecisionOnceAndHintsFromTheValidator() {
        Issue column = new Issue("static-validate", ErrorCategory.COLUMN_NOT_FOUND, "no column x", "x", List.of());
        Issue column2 = new Issue("static-validate", ErrorCategory.COLUMN_NOT_FOUND, "no column y", "y", List.of());
        Issue hint = Issue.hint("static-validate", ErrorCategory.CONSTRAINT_VIOLATION, "'book' is not a value", "book");
        AttemptEvent validation = new AttemptEvent(0, "q4", 1, "static-validate", QuestionMetrics.VALIDATION_EVENT, "SELECT x",
                List.of(column, column2, hint), "repair", "column_not_found: no column x", null, 1, T0, 0);
        AttemptEvent retry = repairEvent("q4", 1, "retry", "retry: attempt 2 of 3", column, column2, hint);
        AttemptEvent stop = repairEvent("q4", 2, "final", "unchanged_sql: attempt 2 repeated the previous SQL",
                Issue.of("execute", ErrorCategory.TYPE_MISMATCH, "cannot compare"));
        QuestionState s = fold(QuestionState.EMPTY, new Update.Event(validation), new Update.Event(retry), new Update.Event(retry),
                new Update.Event(stop), new Update.Event(validation), new Update.Event(stop));
        assertEquals(3, s.events().size(), "a redelivered event is neither traced nor counted twice");

        assertEquals(1.0, registry.get(Metrics.ERRORS).tags("stage", "static-validate", "category", "column_not_found").counter().count(),
                "two missing columns in one attempt are one error of that kind");
        assertEquals(1.0, registry.get(Metrics.ERRORS).tags("stage", "execute", "category", "type_mismatch").counter().count());
        assertEquals(1.0, registry.get(Metrics.REPAIRS).tags("category", "column_not_found", "decision", "retry").counter().count());
        assertEquals(1.0, registry.get(Metrics.REPAIRS).tags("category", "type_mismatch", "decision", Outcomes.UNCHANGED_SQL).counter().count());
        assertEquals(1.0, registry.get(Metrics.HINTS).tags("category", "constraint_violation").counter().count(),
                "a hint counts once, from the validator's event, not again from the repair event that carries it");
    }

    @Test
    void shouldTraceEachRoundOfACandidatesRepairOnceAndCountTheCandidatesSent() {
        Issue missing = new Issue("execute", ErrorCategory.COLUMN_NOT_FOUND, "no column nam", "nam", List.of());
        AttemptEvent first = new AttemptEvent(0, "q7", 1, "execute", AttemptEvent.CANDIDATE_REPAIR, "SELECT 1", List.of(missing),
                QuestionMetrics.REPAIR_CANDIDATES, "sole: …; repairing candidate 2 (attempt 1, column_not_found: no column nam)", null, 1, T0, 0);
        AttemptEvent second = new AttemptEvent(0, "q7", 1, "execute", AttemptEvent.CANDIDATE_REPAIR, "SELECT 1", List.of(missing),
                QuestionMetrics.REPAIR_CANDIDATES, "sole: …; repairing candidate 2 (attempt 2, column_not_found: no column nam)", null, 1, T0, 0);
        AttemptEvent chosen = new AttemptEvent(0, "q7", 1, "execute", QuestionMetrics.SELECTION_EVENT, "SELECT 1", List.of(),
                "majority", "majority: …", null, 1, T0, 0);
        QuestionState s = fold(QuestionState.EMPTY, new Update.Event(first), new Update.Event(first), new Update.Event(second),
                new Update.Event(chosen), new Update.Event(chosen));
        assertEquals(List.of(first, second, chosen), s.events(), "two rounds of one attempt traced, each redelivery once");
        assertEquals(2.0, registry.get(Metrics.CANDIDATE_REPAIRS).tag("category", "column_not_found").counter().count());
        assertEquals(1.0, registry.get(Metrics.CANDIDATE_SELECTIONS).tag("decision", "majority").counter().count(),
                "a candidates' repair is not a selection");
    }

    @Test
    void shouldBoundRepairDecisionsToTheKnownSet() {
        assertEquals("max_attempts", QuestionMetrics.decision(repairEvent("q", 3, "final", "max_attempts: attempt 3 of 3 failed")));
        assertEquals("other", QuestionMetrics.decision(repairEvent("q", 3, "final", "SELECT * FROM secrets: whatever")));
        assertEquals("retry", QuestionMetrics.decision(repairEvent("q", 1, "retry", null)));
    }

    @Test
    void shouldExportThePrometheusNamesOfTheContract() {
        fold(QuestionState.EMPTY, new Update.Finished(corrected("q5")));
        String text = registry.scrape();
        for (String name : List.of("sqloop_questions_total{datasource=\"sales\",dialect=\"trino\",outcome=\"corrected_success\",reason=\"\"} 1.0",
                "sqloop_attempts_bucket{datasource=\"sales\",dialect=\"trino\",le=\"2.0\"} 1",
                "sqloop_end_to_end_seconds_bucket{datasource=\"sales\",dialect=\"trino\",outcome=\"corrected_success\",le=\"5.0\"} 1",
                "sqloop_question_tokens_sum{datasource=\"sales\",dialect=\"trino\"} 300.0")) {
            assertTrue(text.contains(name), name + " missing from\n" + text);
        }
    }
}
