package dev.sqloop.validator;

import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.error.Outcomes;
import dev.sqloop.common.message.AttemptEvent;
import dev.sqloop.common.message.Candidate;
import dev.sqloop.common.message.PromptParts;
import dev.sqloop.common.message.Issue;
import dev.sqloop.common.message.Message;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.runtime.Outcome;
import dev.sqloop.common.runtime.AbstractStage;
import dev.sqloop.validator.check.SchemaCheck;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@code static-validate} stage: parses the attempt's SQL with the datasource's dialect parser, checks
 * it is one read-only query, that its tables, columns, functions and filter values exist, and that it meets
 * the question's constraints. Pass → {@code execute}; issues → {@code repair-feedback}; each decision also
 * goes to {@code events} as an {@link AttemptEvent}.
 */
public final class StaticValidateStage extends AbstractStage<QuestionTask> {
    public static final String NAME = SchemaCheck.STAGE;

    private final DatasourceCatalogs datasources;
    private final Clock clock;

    public StaticValidateStage(DatasourceCatalogs datasources, Clock clock) {
        super(NAME, QuestionTask.class);
        this.datasources = Objects.requireNonNull(datasources, "datasources");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    @Override
    public Outcome process(QuestionTask task) {
        Instant started = clock.instant();
        // the catalog is this service's; the dialect is the one the gateway resolved (older tasks: this service's)
        Optional<ValidationTarget> target = datasources.find(task.datasource())
                .map(t -> task.dialect() == null ? t : new ValidationTarget(task.dialect(), t.catalog()));
        if (target.isEmpty()) {
            String message = "unknown datasource '" + task.datasource() + "'";
            return Outcome.finish(QuestionResult.failed(task, Outcomes.UNKNOWN_DATASOURCE, null,
                    message, clock.instant())).and(Topics.EVENTS, event(task, List.of(), "final", message, started));
        }
        List<Issue> issues = task.sql() == null || task.sql().isBlank()
                ? List.of(Issue.of(NAME, ErrorCategory.LLM_OUTPUT_INVALID, "the attempt carries no SQL"))
                : StaticValidator.validate(task.sql(), target.get(), task.constraints());
        long millis = Math.max(0, clock.millis() - started.toEpochMilli());
        QuestionTask timed = task.withTiming(NAME, millis);
        if (!StaticValidator.hasErrors(issues)) {
            // Hints (NL-intent heuristics, values the data does not hold) never fail a query: it runs, the doubt is traced.
            return Outcome.forward(Topics.EXECUTE, timed).and(Topics.EVENTS, issues.isEmpty()
                    ? event(task, issues, "pass", null, started)
                    : event(task, issues, "pass-with-hints", issues.size() + " hint(s), no error", started));
        }
        String reason = issues.getFirst().category().wireName() + ": " + issues.getFirst().message();
        if (task.candidates().stream().anyMatch(c -> Candidate.GENERATED.equals(c.status()) || c.votes())) {
            // Other candidates may answer (issue 50): the executor runs them, never this SQL (its issues say it was
            // refused), and decides whether this one is worth repairing.
            return Outcome.forward(Topics.EXECUTE, timed.withIssues(issues))
                    .and(Topics.EVENTS, event(task, issues, "refused", reason + "; the other candidates run", started));
        }
        return Outcome.repair(timed.withIssues(issues)).and(Topics.EVENTS, event(task, issues, "repair", reason, started));
    }

    private AttemptEvent event(QuestionTask task, List<Issue> issues, String decision, String reason, Instant started) {
        Instant now = clock.instant();
        return new AttemptEvent(0, task.questionId(), task.attempt(), NAME, "validation", task.sql(), issues, decision,
                reason, null, Math.max(0, now.toEpochMilli() - started.toEpochMilli()), now, task.round(), task.retries(),
                PromptParts.of(task));
    }
}
