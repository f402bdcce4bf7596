package dev.sqloop.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.error.ErrorCategory;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The registry against real engine messages (../shared/facts/engine-errors.md). */
class ErrorPatternRegistryTest {
    private static final ErrorPatternRegistry REGISTRY = ErrorPatternRegistry.load();

    private static ErrorCategory category(Dialect d, String message) {
        return REGISTRY.match(d, message).orElseThrow(() -> new AssertionError("no pattern for " + d + ": " + message)).category();
    }

    @Test
    void shouldHoldAtLeastTenPatternsPerDialect() {
        for (Dialect d : List.of(Dialect.TRINO, Dialect.SPARKSQL, Dialect.HIVE, Dialect.DUCKDB)) {
            assertTrue(REGISTRY.patterns(d).size() >= 10, d + " has " + REGISTRY.patterns(d).size());
        }
        assertEquals(REGISTRY.patterns(Dialect.TRINO), REGISTRY.patterns(Dialect.PRESTO), "presto shares trino's list");
    }

    @Test
    void shouldSendStrftimeOnTrinoToFormatDatetime() {
        var p = REGISTRY.match(Dialect.TRINO, "Query failed (#20260101_0001): line 1:8: Function 'strftime' not registered").orElseThrow();
        assertEquals(ErrorCategory.UNSUPPORTED_FUNCTION, p.category());
        assertTrue(p.alternative().contains("format_datetime") && p.alternative().contains("date_format"), p.alternative());
    }

    @Test
    void shouldClassifyRealTrinoMessages() {
        assertEquals(ErrorCategory.COLUMN_NOT_FOUND, category(Dialect.TRINO, "line 1:8: Column 'foo' cannot be resolved"));
        assertEquals(ErrorCategory.TABLE_NOT_FOUND, category(Dialect.TRINO, "line 1:15: Table 'tpch.tiny.nosuch' does not exist"));
        assertEquals(ErrorCategory.TABLE_NOT_FOUND, category(Dialect.TRINO, "line 1:15: Catalog 'nosuch' not found"));
        assertEquals(ErrorCategory.AGGREGATION_ERROR, category(Dialect.TRINO,
                "line 1:8: 'orderstatus' must be an aggregate expression or appear in GROUP BY clause"));
        assertEquals(ErrorCategory.TYPE_MISMATCH, category(Dialect.TRINO, "line 1:48: Cannot apply operator: date = integer"));
        assertTrue(REGISTRY.match(Dialect.TRINO, "line 1:48: Cannot apply operator: date = integer").orElseThrow().alternative().contains("DATE '"));
        assertEquals(ErrorCategory.TYPE_MISMATCH, category(Dialect.TRINO,
                "line 1:8: Unexpected parameters (varchar(5), integer) for function date_trunc. Expected: date_trunc(varchar(x), date)"));
        assertEquals(ErrorCategory.SYNTAX_ERROR, category(Dialect.TRINO, "line 1:1: mismatched input 'SELEC'. Expecting: 'ALTER', 'WITH', <query>"));
        assertEquals(ErrorCategory.JOIN_ERROR, category(Dialect.TRINO, "line 1:8: Column 'orderkey' is ambiguous"));
        assertEquals(ErrorCategory.TIMEOUT, category(Dialect.TRINO, "Query exceeded maximum time limit of 3.00s"));
        assertEquals(ErrorCategory.PERMISSION_DENIED, category(Dialect.TRINO, "Access Denied: Cannot create table memory.default.ro_test"));
        assertEquals(ErrorCategory.TYPE_MISMATCH, category(Dialect.TRINO, "Cannot cast 'abc' to INT"));
    }

    @Test
    void shouldClassifyRealSparkMessages() {
        assertEquals(ErrorCategory.COLUMN_NOT_FOUND, category(Dialect.SPARKSQL, "org.apache.hive.service.cli.HiveSQLException: Error running query: "
                + "[UNRESOLVED_COLUMN.WITH_SUGGESTION] org.apache.spark.sql.AnalysisException: [UNRESOLVED_COLUMN.WITH_SUGGESTION] A column or"
                + " function parameter with name `nosuchcol` cannot be resolved."));
        assertEquals(ErrorCategory.TABLE_NOT_FOUND, category(Dialect.SPARKSQL, "[TABLE_OR_VIEW_NOT_FOUND] The table or view `nosuchtable` cannot be found."));
        assertEquals(ErrorCategory.AGGREGATION_ERROR, category(Dialect.SPARKSQL, "[MISSING_GROUP_BY] The query does not include a GROUP BY clause."));
        assertEquals(ErrorCategory.AGGREGATION_ERROR, category(Dialect.SPARKSQL, "[MISSING_AGGREGATION] The non-aggregating expression \"dt\" is based on"));
        assertEquals(ErrorCategory.TYPE_MISMATCH, category(Dialect.SPARKSQL, "[DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES] Cannot resolve \"(id + array(1))\""));
        assertEquals(ErrorCategory.UNSUPPORTED_FUNCTION, category(Dialect.SPARKSQL,
                "[UNRESOLVED_ROUTINE] Cannot resolve function `no_such_fn` on search path [`system`.`builtin`]"));
        assertTrue(REGISTRY.match(Dialect.SPARKSQL, "[UNRESOLVED_ROUTINE] Cannot resolve function `strftime` on search path")
                .orElseThrow().alternative().contains("date_format"));
        assertEquals(ErrorCategory.SYNTAX_ERROR, category(Dialect.SPARKSQL, "[PARSE_SYNTAX_ERROR] Syntax error at or near 'SELEC'.(line 1, pos 0)"));
        assertEquals(ErrorCategory.JOIN_ERROR, category(Dialect.SPARKSQL, "[AMBIGUOUS_REFERENCE] Reference `id` is ambiguous"));
        assertEquals(ErrorCategory.TIMEOUT, category(Dialect.SPARKSQL, "java.sql.SQLTimeoutException: Query timed out after 3 seconds"));
    }

    @Test
    void shouldClassifyRealHiveMessages() {
        String prefix = "Error while compiling statement: FAILED: SemanticException ";
        assertEquals(ErrorCategory.COLUMN_NOT_FOUND, category(Dialect.HIVE, prefix
                + "[Error 10004]: Line 1:7 Invalid table alias or column reference 'nosuchcol': (possible column names are: id, region)"));
        assertEquals(ErrorCategory.TABLE_NOT_FOUND, category(Dialect.HIVE, prefix + "[Error 10001]: Line 1:14 Table not found 'nosuchtable'"));
        assertEquals(ErrorCategory.AGGREGATION_ERROR, category(Dialect.HIVE, prefix + "[Error 10025]: Line 1:7 Expression not in GROUP BY key 'region'"));
        assertEquals(ErrorCategory.UNSUPPORTED_FUNCTION, category(Dialect.HIVE, prefix + "[Error 10011]: Invalid function no_such_fn"));
        assertEquals(ErrorCategory.TYPE_MISMATCH, category(Dialect.HIVE, prefix
                + "[Error 10014]: Line 1:26 Wrong arguments 'true': Casting DATE/TIMESTAMP to NUMERIC is prohibited (hive.strict.timestamp.conversion)"));
        assertEquals(ErrorCategory.SYNTAX_ERROR, category(Dialect.HIVE,
                "Error while compiling statement: FAILED: ParseException line 1:0 cannot recognize input near 'SELEC' '*' 'FROM'"));
        assertEquals(ErrorCategory.JOIN_ERROR, category(Dialect.HIVE, prefix + "Column id Found in more than One Tables/Subqueries"));
    }

    @Test
    void shouldClassifyRealDuckDbMessages() {
        assertEquals(ErrorCategory.COLUMN_NOT_FOUND, category(Dialect.DUCKDB,
                "Binder Error: Referenced column \"foo\" not found in FROM clause!\nCandidate bindings: \"comment\""));
        assertEquals(ErrorCategory.TABLE_NOT_FOUND, category(Dialect.DUCKDB, "Catalog Error: Table with name nosuch does not exist!\nDid you mean \"pg_sequences\"?"));
        assertEquals(ErrorCategory.AGGREGATION_ERROR, category(Dialect.DUCKDB,
                "Binder Error: column \"orderstatus\" must appear in the GROUP BY clause or must be part of an aggregate function."));
        assertEquals(ErrorCategory.UNSUPPORTED_FUNCTION, category(Dialect.DUCKDB, "Catalog Error: Scalar Function with name format_datetime does not exist!"));
        assertTrue(REGISTRY.match(Dialect.DUCKDB, "Catalog Error: Scalar Function with name format_datetime does not exist!")
                .orElseThrow().alternative().contains("strftime"));
        assertEquals(ErrorCategory.TYPE_MISMATCH, category(Dialect.DUCKDB, "Conversion Error: Unimplemented type for cast (INTEGER -> DATE)"));
        assertEquals(ErrorCategory.TYPE_MISMATCH, category(Dialect.DUCKDB,
                "Binder Error: No function matches the given name and argument types '+(VARCHAR, INTEGER_LITERAL)'."));
        assertEquals(ErrorCategory.SYNTAX_ERROR, category(Dialect.DUCKDB, "Parser Error: syntax error at or near \"SELEC\""));
        assertEquals(ErrorCategory.JOIN_ERROR, category(Dialect.DUCKDB, "Binder Error: Ambiguous reference to column name \"orderkey\""));
        assertEquals(ErrorCategory.TIMEOUT, category(Dialect.DUCKDB, "INTERRUPT Error: Interrupted!"));
    }

    @Test
    void shouldMatchNothingForUnknownTextOrDialect() {
        assertTrue(REGISTRY.match(Dialect.TRINO, "everything is fine").isEmpty());
        assertTrue(REGISTRY.match(Dialect.POSTGRES, "column \"id\" does not exist").isEmpty());
        assertTrue(REGISTRY.match(Dialect.TRINO, null).isEmpty());
    }
}
