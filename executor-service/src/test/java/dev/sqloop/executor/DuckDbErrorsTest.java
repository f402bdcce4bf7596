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

import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Messages as DuckDB 2.0.0.1 gives them (../shared/facts/engine-errors.md). */
class DuckDbErrorsTest {
    private final ErrorClassifier classifier = new DuckDbErrors();

    private EngineError classify(String message) {
        return classifier.classify(new SQLException(message));
    }

    @Test
    void shouldReadAnUnknownColumnWithItsCandidateBindings() {
        EngineError e = classify("Binder Error: Referenced column \"foo\" not found in FROM clause!\nCandidate bindings: \"comment\"\n\nLINE 1: SELECT foo FROM orders\n               ^");
        assertEquals(COLUMN_NOT_FOUND, e.category());
        assertEquals("foo", e.identifier());
        assertEquals(List.of("comment"), e.candidates());
        assertFalse(e.infrastructure());
        EngineError typo = classify("Binder Error: Referenced column \"orderstat\" not found in FROM clause!\nCandidate bindings: \"orderstatus\", \"orderdate\", \"orderkey\"");
        assertEquals(List.of("orderstatus", "orderdate", "orderkey"), typo.candidates());
    }

    @Test
    void shouldReadAnUnknownTableWithItsSuggestion() {
        EngineError e = classify("Catalog Error: Table with name nosuch does not exist!\nDid you mean \"pg_sequences\"?\n\nLINE 1: SELECT * FROM nosuch");
        assertEquals(TABLE_NOT_FOUND, e.category());
        assertEquals("nosuch", e.identifier());
        assertEquals(List.of("pg_sequences"), e.candidates());
    }

    @Test
    void shouldReadAnUnknownSchemaAsAMissingTable() {
        EngineError e = classify("Catalog Error: Table with name \"nosuch.orders\" does not exist because schema \"nosuch\" does not exist.");
        assertEquals(TABLE_NOT_FOUND, e.category());
        assertEquals("nosuch.orders", e.identifier());
    }

    @Test
    void shouldReadParserErrorsAsSyntax() {
        assertEquals(SYNTAX_ERROR, classify("Parser Error: syntax error at or near \"order\"").category());
        assertEquals(SYNTAX_ERROR, classify("Parser Error: syntax error at or near \"SELEC\"").category());
        assertEquals("WHERE", classify("Parser Error: syntax error at or near \"WHERE\"").identifier());
    }

    @Test
    void shouldReadAMissingGroupBy() {
        EngineError e = classify("Binder Error: column \"orderstatus\" must appear in the GROUP BY clause or must be part of an aggregate function.\nEither add it to the GROUP BY list, or use ANY_VALUE(\"orderstatus\") if the exact value of \"orderstatus\" is not important.");
        assertEquals(AGGREGATION_ERROR, e.category());
        assertEquals("orderstatus", e.identifier());
    }

    @Test
    void shouldReadTypeMismatches() {
        assertEquals(TYPE_MISMATCH, classify("Conversion Error: Unimplemented type for cast (INTEGER -> DATE)").category());
        assertEquals(TYPE_MISMATCH, classify("Binder Error: No function matches the given name and argument types '+(VARCHAR, INTEGER_LITERAL)'. You might need to add explicit type casts.\n\tCandidate functions:\n\t+(TINYINT) -> TINYINT").category());
        assertEquals(TYPE_MISMATCH, classify("Conversion Error: Could not convert string 'abc' to INT32").category());
    }

    @Test
    void shouldReadWrongArgumentTypesAsATypeMismatchOfThatFunction() {
        EngineError e = classify("Binder Error: No function matches the given name and argument types 'date_trunc(STRING_LITERAL, INTEGER_LITERAL)'. You might need to add explicit type casts.\n\tCandidate functions:\n\tdate_trunc(VARCHAR, DATE) -> TIMESTAMP");
        assertEquals(TYPE_MISMATCH, e.category());
        assertEquals("date_trunc", e.identifier());
    }

    @Test
    void shouldReadAnUnknownFunctionWithItsSuggestion() {
        EngineError e = classify("Catalog Error: Scalar Function with name format_datetime does not exist!\nDid you mean \"format_type\"?");
        assertEquals(UNSUPPORTED_FUNCTION, e.category());
        assertEquals("format_datetime", e.identifier());
        assertEquals(List.of("format_type"), e.candidates());
    }

    @Test
    void shouldReadAnAmbiguousColumnAsAJoinErrorWithBothQualifiedNames() {
        EngineError e = classify("Binder Error: Ambiguous reference to column name \"orderkey\" (use: \"o.orderkey\" or \"l.orderkey\")");
        assertEquals(JOIN_ERROR, e.category());
        assertEquals("orderkey", e.identifier());
        EngineError single = classify("Binder Error: Ambiguous reference to column name \"orderkey\" (use: 'o.orderkey' or 'l.orderkey')");
        assertEquals(List.of("o.orderkey", "l.orderkey"), single.candidates());
    }

    @Test
    void shouldReadRuntimeFailuresAsUnknown() {
        assertEquals(UNKNOWN, classify("Invalid Input Error: Division by zero in expression (1 // 0). Use TRY(...) to return NULL").category());
    }

    @Test
    void shouldReadTimeoutsPermissionsAndReadOnly() {
        assertEquals(TIMEOUT, classifier.classify(new SQLTimeoutException("INTERRUPT Error: Interrupted!")).category());
        assertEquals(TIMEOUT, classify("INTERRUPT Error: Interrupted!").category());
        assertEquals(PERMISSION_DENIED, classify("Permission Error: Cannot access file \"/etc/passwd\" - file system operations are disabled by configuration").category());
        assertEquals(READ_ONLY_VIOLATION, classify("Invalid Input Error: Cannot change configuration option \"\"enable_external_access\"\" - the configuration has been locked").category());
        assertEquals(READ_ONLY_VIOLATION, classify("Invalid Input Error: Cannot execute statement of type \"CREATE\" on database \"demo\" which is attached in read-only mode!").category());
    }

    @Test
    void shouldTreatAnUnopenableDatabaseAsInfrastructure() {
        EngineError e = classify("IO Error: Could not set lock on file \"/data/demo.duckdb\": Conflicting lock is held");
        assertTrue(e.infrastructure());
        assertTrue(classify("Connection Error: Connection was closed").infrastructure());
    }
}
