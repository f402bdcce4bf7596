package dev.sqloop.common.message;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.error.ErrorCategory;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class EmptyAnswerTest {
    private static Execution rows(long count, List<Object>... preview) {
        return new Execution(List.of("a", "b"), List.of("INTEGER", "INTEGER"), count, List.of(preview), 1);
    }

    @Test
    @SuppressWarnings("unchecked")
    void shouldTakeNoRowsOrOneRowOfNullsForEmpty() {
        assertTrue(EmptyAnswer.empty(rows(0)));
        assertTrue(EmptyAnswer.empty(rows(1, Arrays.asList(null, null))), "an aggregate over no rows");
        assertFalse(EmptyAnswer.empty(rows(1, Arrays.asList(null, 3))));
        assertFalse(EmptyAnswer.empty(rows(1, List.of(0L))), "a count of 0 is an answer");
        assertFalse(EmptyAnswer.empty(rows(2, Arrays.asList(null, null), Arrays.asList(null, null))));
        assertFalse(EmptyAnswer.empty(rows(1)), "a row the preview does not show is not known to be NULL");
        assertFalse(EmptyAnswer.empty(null));
    }

    @Test
    void shouldAskForRowsUnlessTheQuestionIsYesOrNo() {
        assertTrue(EmptyAnswer.asksForRows("Which customers bought more than 5 tickers?"));
        assertTrue(EmptyAnswer.asksForRows("How many papers were published in 2020?"));
        assertTrue(EmptyAnswer.asksForRows("List the top 3 restaurants by rating"));
        assertTrue(EmptyAnswer.asksForRows("  \"What is the average price?\""));
        assertFalse(EmptyAnswer.asksForRows("Is there any customer from Peru?"));
        assertFalse(EmptyAnswer.asksForRows("Does any flight leave before 6am?"));
    }

    @Test
    void shouldRecogniseItsFindings() {
        assertTrue(EmptyAnswer.isFinding(Issue.hint("execute", ErrorCategory.JOIN_ERROR, EmptyAnswer.NO_ROWS + " for a question", null)));
        assertTrue(EmptyAnswer.anyFinding(List.of(Issue.of("x", ErrorCategory.UNKNOWN, "other"),
                Issue.hint("execute", ErrorCategory.CONSTRAINT_VIOLATION, EmptyAnswer.NULL_ROW + " …", null))));
        assertFalse(EmptyAnswer.anyFinding(List.of(Issue.of("x", ErrorCategory.UNKNOWN, "no rows"))));
    }
}
