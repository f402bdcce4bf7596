package dev.sqloop.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.error.ErrorCategory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A strategy fits the fault it names: an aggregate or a window function in WHERE is not a missing GROUP BY column
 * (the outside run's 21 aggregate-in-WHERE faults were all told "only add the missing columns to GROUP BY"). The
 * messages are the validator's own and each engine's; EngineAdviceIT checks the engines' live wording.
 */
class CorrectionStrategyFitTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "AGGREGATION_ERROR|aggregate function in WHERE: count(*) — WHERE filters rows before they are grouped|AGGREGATE_IN_WHERE",
            "AGGREGATION_ERROR|ERROR: aggregate functions are not allowed in WHERE|AGGREGATE_IN_WHERE",
            "AGGREGATION_ERROR|Binder Error: WHERE clause cannot contain aggregates!|AGGREGATE_IN_WHERE",
            "AGGREGATION_ERROR|line 1:43: WHERE clause cannot contain aggregations, window functions or grouping operations: [count(*)]|AGGREGATE_IN_WHERE",
            "UNKNOWN|[INVALID_WHERE_CONDITION] The WHERE condition \"(count(1) > 2)\" contains invalid expressions: count(1).|AGGREGATE_IN_WHERE",
            "SYNTAX_ERROR|FAILED: SemanticException [Error 10128]: Line 1:48 Not yet supported place for UDAF 'count'|AGGREGATE_IN_WHERE",
            "AGGREGATION_ERROR|window function in WHERE: row_number() OVER (…)|WINDOW_IN_WHERE",
            "AGGREGATION_ERROR|ERROR: window functions are not allowed in WHERE|WINDOW_IN_WHERE",
            "AGGREGATION_ERROR|Binder Error: WHERE clause cannot contain window functions!|WINDOW_IN_WHERE",
            "AGGREGATION_ERROR|line 1:30: WHERE clause cannot contain aggregations, window functions or grouping operations: [row_number() OVER (ORDER BY amount DESC)]|WINDOW_IN_WHERE",
            "AGGREGATION_ERROR|ERROR: aggregate function calls cannot be nested|NESTED_AGGREGATE",
            "AGGREGATION_ERROR|column status must appear in the GROUP BY clause or be used in an aggregate function|AGGREGATION",
            "JOIN_ERROR|the query returned no rows for a question that asks for rows; the join compares id column t.sbtxcustid with c.sbcustname|EMPTY_ANSWER",
            "CONSTRAINT_VIOLATION|the query returned only NULLs for a question that asks for rows; check each join's keys|EMPTY_ANSWER"})
    void shouldPickTheStrategyTheFaultNeeds(ErrorCategory category, String message, CorrectionStrategy expected) {
        CorrectionStrategy s = CorrectionStrategy.forIssue(category, message);
        assertEquals(expected, s, message);
        String advice = s.guidance(Dialect.POSTGRES, emptyTask());
        switch (expected) {
            case AGGREGATE_IN_WHERE -> assertTrue(advice.contains("HAVING") && !advice.contains("add the missing columns"), advice);
            case WINDOW_IN_WHERE -> assertTrue(advice.contains("subquery") && !advice.contains("GROUP BY"), advice);
            case AGGREGATION -> assertTrue(advice.contains("GROUP BY"), advice);
            case EMPTY_ANSWER -> assertTrue(advice.contains("returned nothing") && advice.contains("join each id"), advice);
            default -> assertFalse(advice.isBlank());
        }
    }

    private static dev.sqloop.common.message.QuestionTask emptyTask() {
        return dev.sqloop.common.message.QuestionTask.create("q", "t", "d", "how many regions have more than two sales?", 3,
                java.time.Instant.now());
    }
}
