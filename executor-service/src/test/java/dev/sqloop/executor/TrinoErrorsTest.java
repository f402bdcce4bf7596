package dev.sqloop.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.error.ErrorCategory;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Trino failures as trino-jdbc 483 reports them: SQLSTATE null, Trino's numeric code, "Query failed (#id): …". */
class TrinoErrorsTest {
    private final ErrorClassifier classifier = new TrinoErrors();

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "47|line 1:8: Column 'foo' cannot be resolved|COLUMN_NOT_FOUND|foo",
            "46|line 1:15: Table 'tpch.tiny.nosuch' does not exist|TABLE_NOT_FOUND|tpch.tiny.nosuch",
            "45|line 1:15: Schema 'nosuch' does not exist|TABLE_NOT_FOUND|nosuch",
            "44|line 1:15: Catalog 'nosuch' not found|TABLE_NOT_FOUND|nosuch",
            "73|line 1:8: 'orderstatus' must be an aggregate expression or appear in GROUP BY clause|AGGREGATION_ERROR|orderstatus",
            "58|line 1:48: Cannot apply operator: date = integer|TYPE_MISMATCH|",
            "58|line 1:20: Cannot apply operator: varchar(1) + integer|TYPE_MISMATCH|",
            "6|line 1:8: Function 'strftime' not registered|UNSUPPORTED_FUNCTION|strftime",
            "6|line 1:8: Unexpected parameters (varchar(5), integer) for function date_trunc. Expected: date_trunc(varchar(x), date)|TYPE_MISMATCH|",
            "1|line 1:1: mismatched input 'SELEC'. Expecting: 'ALTER', 'ANALYZE', 'CALL', 'WITH', <query>|SYNTAX_ERROR|SELEC",
            "1|line 1:37: mismatched input '<EOF>'. Expecting: <expression>|SYNTAX_ERROR|<EOF>",
            "62|line 1:8: Column 'orderkey' is ambiguous|JOIN_ERROR|orderkey",
            "8|Division by zero|UNKNOWN|",
            "9|Cannot cast 'abc' to INT|TYPE_MISMATCH|abc",
            "131075|Query exceeded maximum time limit of 3.00s|TIMEOUT|",
            "4|Access Denied: Cannot create table memory.default.ro_test|PERMISSION_DENIED|"})
    void shouldClassifyByErrorCode(int code, String message, ErrorCategory expected, String identifier) {
        EngineError e = classifier.classify(new SQLException("Query failed (#20261122_094512_00007_abcde): " + message, null, code));
        assertEquals(expected, e.category(), message);
        assertFalse(e.infrastructure());
        assertFalse(e.message().startsWith("Query failed"), "the query id prefix is noise for the LLM");
        if (identifier != null) assertEquals(identifier, e.identifier());
    }

    @ParameterizedTest
    @CsvSource({"COLUMN_NOT_FOUND,COLUMN_NOT_FOUND", "TABLE_NOT_FOUND,TABLE_NOT_FOUND", "EXPRESSION_NOT_AGGREGATE,AGGREGATION_ERROR",
            "FUNCTION_NOT_FOUND,UNSUPPORTED_FUNCTION", "TYPE_MISMATCH,TYPE_MISMATCH", "SYNTAX_ERROR,SYNTAX_ERROR",
            "EXCEEDED_TIME_LIMIT,TIMEOUT", "PERMISSION_DENIED,PERMISSION_DENIED", "AMBIGUOUS_NAME,JOIN_ERROR",
            "SCHEMA_NOT_FOUND,TABLE_NOT_FOUND", "CATALOG_NOT_FOUND,TABLE_NOT_FOUND", "MISSING_GROUP_BY,AGGREGATION_ERROR",
            "DIVISION_BY_ZERO,UNKNOWN"})
    void shouldMapErrorNames(String name, ErrorCategory expected) {
        assertEquals(expected, TrinoErrors.categoryOf(name));
    }

    @Test
    void shouldTreatAnUnavailableCoordinatorAsInfrastructure() {
        assertTrue(classifier.classify(new SQLException("Query failed (#x): Trino server is still initializing", null, 65548)).infrastructure());
        assertTrue(classifier.classify(new SQLException("Error starting query at http://127.0.0.1:8080/v1/statement returned an invalid response: JsonResponse{statusCode=503, headers=…}", null, 0)).infrastructure());
        assertTrue(classifier.classify(new SQLException("Error executing query", null, 0, new java.net.ConnectException("Failed to connect to /127.0.0.1:1"))).infrastructure());
    }
}
