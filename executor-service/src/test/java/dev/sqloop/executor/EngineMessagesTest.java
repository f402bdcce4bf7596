package dev.sqloop.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class EngineMessagesTest {
    private static final String WRAPPER = "SELECT * FROM (\n";

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "spark | [UNRESOLVED_COLUMN.WITH_SUGGESTION] A column with name `nme` cannot be resolved.; line 2 pos 7 | [UNRESOLVED_COLUMN.WITH_SUGGESTION] A column with name `nme` cannot be resolved.; line 1 pos 7",
            "spark parse | [PARSE_SYNTAX_ERROR] Syntax error at or near 'FORM'.(line 2, pos 9) | [PARSE_SYNTAX_ERROR] Syntax error at or near 'FORM'.(line 1, pos 9)",
            "hive | FAILED: SemanticException [Error 10004]: Line 2:7 Invalid table alias or column reference 'nme' | FAILED: SemanticException [Error 10004]: Line 1:7 Invalid table alias or column reference 'nme'",
            "duckdb | Binder Error: Referenced column \"nme\" not found in FROM clause! LINE 2: SELECT nme FROM author | Binder Error: Referenced column \"nme\" not found in FROM clause! LINE 1: SELECT nme FROM author",
            "postgres | ERROR: column \"nme\" does not exist  Position: 24 | ERROR: column \"nme\" does not exist  Position: 8",
            "later line | line 3:1: mismatched input | line 2:1: mismatched input",
            "trino | line 2:8: Column 'nme' cannot be resolved | line 1:8: Column 'nme' cannot be resolved",
            "no position | Division by zero | Division by zero",
    })
    void shouldReportPositionsInTheAuthorsSqlNotInTheWrappedText(String engine, String ran, String reported) {
        assertEquals(reported, EngineMessages.positionsBefore(ran, WRAPPER), engine);
    }

    /** Trino's EXPLAIN prefix stands on the author's first line: columns there move left, later lines keep theirs. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "first line | line 1:32: Column 'nope' cannot be resolved | line 1:8: Column 'nope' cannot be resolved",
            "later line | line 2:3: mismatched input 'FORM' | line 2:3: mismatched input 'FORM'",
            "spark pos | (line 1, pos 31) | (line 1, pos 7)",
            "postgres | Position: 32 | Position: 8",
    })
    void shouldMoveColumnsOnTheFirstLineLeftByAPrefixOnTheSameLine(String what, String ran, String reported) {
        assertEquals(reported, EngineMessages.positionsBefore(ran, "EXPLAIN (TYPE VALIDATE) "), what);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"line 2:8: Column 'x' cannot be resolved", "Position: 12"})
    void shouldLeaveMessagesAloneWhenNothingWasPrefixed(String message) {
        assertEquals(message, EngineMessages.positionsBefore(message, ""));
    }
}
