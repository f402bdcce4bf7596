package dev.sqloop.generator;

import static dev.sqloop.generator.Tasks.failed;
import static dev.sqloop.generator.Tasks.issue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.error.Outcomes;
import dev.sqloop.common.message.AttemptEvent;
import dev.sqloop.common.message.Issue;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.runtime.Outcome;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RepairStageTest {
    private final RepairStage stage = new RepairStage(Tasks.DIALECTS,
            new CorrectionPromptBuilder(ErrorPatternRegistry.load(), PastFixes.NONE, CorrectionPromptBuilder.Evidence.INCLUDED),
            Clock.systemUTC());

    @Test
    void shouldSendARetryToGenerateWithTheNextAttemptAndAnEvent() {
        QuestionTask in = failed(1, null, "SELECT strftime(dt, '%Y') FROM sales",
                issue(ErrorCategory.UNSUPPORTED_FUNCTION, "line 1:8: Function 'strftime' not registered"));
        Outcome.Send out = assertInstanceOf(Outcome.Send.class, stage.process(in));
        assertEquals(2, out.emissions().size());
        assertEquals(Topics.REGENERATE.name(), out.emissions().get(0).topic(), "corrections go to the generator's priority lane");
        QuestionTask next = (QuestionTask) out.emissions().get(0).message();
        assertEquals(2, next.attempt());
        assertEquals("SELECT strftime(dt, '%Y') FROM sales", next.previousSql());
        assertEquals("SELECT strftime(dt, '%Y') FROM sales", next.headers().get("sqloop-previous-sql"));
        assertTrue(next.correctionPrompt().contains("format_datetime"), next.correctionPrompt());

        assertEquals(Topics.EVENTS.name(), out.emissions().get(1).topic());
        AttemptEvent e = (AttemptEvent) out.emissions().get(1).message();
        assertEquals("retry", e.decision());
        assertTrue(e.reason().startsWith("retry"), e.reason());
        assertEquals(1, e.attempt());
        assertEquals(ErrorCategory.UNSUPPORTED_FUNCTION, e.issues().getFirst().category());
    }

    @Test
    void shouldFinishWithTheReasonAndTheDiffWhenSqlIsUnchanged() {
        QuestionTask in = failed(2, "SELECT id FROM products", "select id from products",
                issue(ErrorCategory.COLUMN_NOT_FOUND, "no id"));
        Outcome.Send out = assertInstanceOf(Outcome.Send.class, stage.process(in));
        assertEquals("final", out.kind());
        QuestionResult r = (QuestionResult) out.emissions().get(0).message();
        assertEquals(Topics.RESULTS.name(), out.emissions().get(0).topic());
        assertEquals(Outcomes.UNCHANGED_SQL, r.reason());
        assertEquals(2, r.attempts());
        assertEquals(ErrorCategory.COLUMN_NOT_FOUND, r.errorCategory());
        AttemptEvent e = (AttemptEvent) out.emissions().get(1).message();
        assertEquals("final", e.decision());
        assertEquals("unchanged", e.sqlDiff());
    }

    @Test
    void shouldLogTheTokenDiffAgainstThePreviousAttempt() {
        QuestionTask in = failed(2, "SELECT id FROM products", "SELECT product_id FROM products",
                issue(ErrorCategory.COLUMN_NOT_FOUND, "no product_id"));
        Outcome.Send out = assertInstanceOf(Outcome.Send.class, stage.process(in));
        assertEquals("changed 'id' → 'product_id'", ((AttemptEvent) out.emissions().get(1).message()).sqlDiff());
    }

    @Test
    void shouldFinishAtMaxAttemptsAndOnNonRetryableErrors() {
        Outcome.Send max = (Outcome.Send) stage.process(failed(3, "SELECT a", "SELECT b", issue(ErrorCategory.SYNTAX_ERROR, "x")));
        assertEquals(Outcomes.MAX_ATTEMPTS, ((QuestionResult) max.emissions().get(0).message()).reason());
        assertEquals(3, ((QuestionResult) max.emissions().get(0).message()).attempts());
        Outcome.Send denied = (Outcome.Send) stage.process(failed(1, null, "SELECT a", issue(ErrorCategory.PERMISSION_DENIED, "Access Denied")));
        assertEquals(Outcomes.NON_RETRYABLE, ((QuestionResult) denied.emissions().get(0).message()).reason());
    }

    @Test
    void shouldTraceThePromptOfAnAnswerThatNeverReachedTheValidator() {
        // the generator sends prose straight here: without this, that attempt has no prompt in the trace
        QuestionTask prose = failed(1, null, "I cannot answer that.",
                Issue.of(GenerateStage.NAME, ErrorCategory.LLM_OUTPUT_INVALID, "no SQL in the answer"));
        AttemptEvent fromGenerate = (AttemptEvent) ((Outcome.Send) stage.process(prose)).emissions().get(1).message();
        assertNotNull(fromGenerate.prompt(), "the repair decision carries the prompt the validator never saw");
        // an attempt the validator saw has its prompt on the validator's event: not twice
        AttemptEvent fromValidator = (AttemptEvent) ((Outcome.Send) stage.process(
                failed(1, null, "SELECT a", issue(ErrorCategory.SYNTAX_ERROR, "x")))).emissions().get(1).message();
        assertNull(fromValidator.prompt());
    }
}
