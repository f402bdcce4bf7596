package dev.sqloop.executor;

import static dev.sqloop.common.error.ErrorCategory.AGGREGATION_ERROR;
import static dev.sqloop.common.error.ErrorCategory.COLUMN_NOT_FOUND;
import static dev.sqloop.common.error.ErrorCategory.JOIN_ERROR;
import static dev.sqloop.common.error.ErrorCategory.PERMISSION_DENIED;
import static dev.sqloop.common.error.ErrorCategory.READ_ONLY_VIOLATION;
import static dev.sqloop.common.error.ErrorCategory.SYNTAX_ERROR;
import static dev.sqloop.common.error.ErrorCategory.TABLE_NOT_FOUND;
import static dev.sqloop.common.error.ErrorCategory.TIMEOUT;
import static dev.sqloop.common.error.ErrorCategory.TYPE_MISMATCH;
import static dev.sqloop.common.error.ErrorCategory.UNKNOWN;
import static dev.sqloop.common.error.ErrorCategory.UNSUPPORTED_FUNCTION;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.error.ErrorCategory;
import java.net.ConnectException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** PostgreSQL messages as pgjdbc renders them (message, then Hint and Position lines) with their SQLSTATE. */
class PostgresErrorsTest {
    private final ErrorClassifier classifier = new PostgresErrors();

    private EngineError classify(String message, String state) {
        return classifier.classify(new SQLException(message, state));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "42703|ERROR: column \"foo\" does not exist|COLUMN_NOT_FOUND",
            "42P01|ERROR: relation \"nosuch\" does not exist|TABLE_NOT_FOUND",
            "3F000|ERROR: schema \"nosuch\" does not exist|TABLE_NOT_FOUND",
            "42803|ERROR: column \"author.name\" must appear in the GROUP BY clause or be used in an aggregate function|AGGREGATION_ERROR",
            "42883|ERROR: function strftime(date, unknown) does not exist|UNSUPPORTED_FUNCTION",
            "42883|ERROR: operator does not exist: date = integer|TYPE_MISMATCH",
            "42804|ERROR: argument of WHERE must be type boolean, not type integer|TYPE_MISMATCH",
            "22P02|ERROR: invalid input syntax for type integer: \"abc\"|TYPE_MISMATCH",
            "22007|ERROR: invalid input syntax for type date: \"x\"|TYPE_MISMATCH",
            "42601|ERROR: syntax error at or near \"SELEC\"|SYNTAX_ERROR",
            "42702|ERROR: column reference \"aid\" is ambiguous|JOIN_ERROR",
            "57014|ERROR: canceling statement due to user request|TIMEOUT",
            "57014|ERROR: canceling statement due to statement timeout|TIMEOUT",
            "42501|ERROR: permission denied for table author|PERMISSION_DENIED",
            "25006|ERROR: cannot execute INSERT in a read-only transaction|READ_ONLY_VIOLATION",
            "22012|ERROR: division by zero|UNKNOWN",
            "42P10|ERROR: ORDER BY position 5 is not in select list|SYNTAX_ERROR",
            "21000|ERROR: more than one row returned by a subquery used as an expression|UNKNOWN"})
    void shouldClassifyBySqlState(String state, String message, ErrorCategory expected) {
        EngineError e = classify(message, state);
        assertEquals(expected, e.category(), message);
        assertFalse(e.infrastructure());
    }

    @Test
    void shouldKeepTheHintAsCandidates() {
        EngineError e = classify("ERROR: column a.nme does not exist\n  Hint: Perhaps you meant to reference the column \"a.name\".\n  Position: 8", "42703");
        assertEquals(COLUMN_NOT_FOUND, e.category());
        assertEquals("a.nme", e.identifier());
        assertEquals(List.of("a.name"), e.candidates());
        assertTrue(e.message().contains("Perhaps you meant"));
        EngineError two = classify("ERROR: column \"id\" does not exist\n  Hint: Perhaps you meant to reference the column \"a.aid\" or the column \"p.pid\".", "42703");
        assertEquals(List.of("a.aid", "p.pid"), two.candidates());
        assertEquals("id", two.identifier());
    }

    @Test
    void shouldNameTheMissingTableAndFunction() {
        assertEquals("nosuch", classify("ERROR: relation \"nosuch\" does not exist\n  Position: 15", "42P01").identifier());
        assertEquals("strftime", classify("ERROR: function strftime(date, unknown) does not exist\n  Hint: No function matches the given name and argument types. You might need to add explicit type casts.", "42883").identifier());
        assertEquals("author.name", classify("ERROR: column \"author.name\" must appear in the GROUP BY clause or be used in an aggregate function", "42803").identifier());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "08001|Connection to 127.0.0.1:1 refused.",
            "08006|An I/O error occurred while sending to the backend.",
            "57P01|ERROR: terminating connection due to administrator command",
            "53300|FATAL: sorry, too many clients already",
            "28P01|FATAL: password authentication failed for user \"x\"",
            "3D000|FATAL: database \"nope\" does not exist"})
    void shouldTreatAnUnreachableServerAsInfrastructure(String state, String message) {
        EngineError e = classify(message, state);
        assertTrue(e.infrastructure(), message);
        assertEquals(ErrorCategory.CONNECTION_ERROR, e.category());
    }

    @Test
    void shouldTreatAnExhaustedPoolAndARefusedSocketAsInfrastructure() {
        assertTrue(classifier.classify(new SQLTransientConnectionException("sqloop-pg - Connection is not available, request timed out after 1000ms")).infrastructure());
        assertTrue(classifier.classify(new SQLException("wrapped", null, new ConnectException("Connection refused"))).infrastructure());
    }
}
