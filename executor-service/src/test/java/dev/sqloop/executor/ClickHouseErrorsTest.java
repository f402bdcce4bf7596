package dev.sqloop.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sqloop.common.error.ErrorCategory;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** Messages ClickHouse printed (chDB 26.7 in ChdbExecutorIT; Debian's server 18.16 over jdbc-v2) → the taxonomy. */
class ClickHouseErrorsTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "Code: 47. DB::Exception: Unknown expression identifier `t2.rn` in scope SELECT t2.rn FROM (SELECT 1 AS x) AS t1. (UNKNOWN_IDENTIFIER)|COLUMN_NOT_FOUND|t2.rn",
            "Code: 60. DB::Exception: Unknown table expression identifier 'order_lines' in scope SELECT * FROM order_lines. (UNKNOWN_TABLE)|TABLE_NOT_FOUND|order_lines",
            "Code: 46. DB::Exception: Function with name `toStartOfMonthh` does not exist. In scope SELECT toStartOfMonthh(placed) FROM orders. Maybe you meant: ['toStartOfMonth','toStartOfMinute']. (UNKNOWN_FUNCTION)|UNSUPPORTED_FUNCTION|toStartOfMonthh",
            "Code: 215. DB::Exception: Column 'shop.orders.customer' is not under aggregate function and not in GROUP BY keys. In query SELECT customer, count() FROM orders GROUP BY id. (NOT_AN_AGGREGATE)|AGGREGATION_ERROR|shop.orders.customer",
            "Code: 43. DB::Exception: Illegal types UInt8 and String of arguments of function plus: In scope SELECT 1 + 'a'. (ILLEGAL_TYPE_OF_ARGUMENT)|TYPE_MISMATCH|a",
            "Code: 403. DB::Exception: Cannot determine join keys in JOIN ON expression less(__table2.id, __table3.id). (INVALID_JOIN_ON_EXPRESSION)|JOIN_ERROR|",
            "Code: 159. DB::Exception: Timeout exceeded: elapsed 3045.1 ms, maximum: 3000 ms. (TIMEOUT_EXCEEDED)|TIMEOUT|",
            "Code: 241. DB::Exception: Query memory limit exceeded: would use 1.22 GiB (attempt to allocate chunk of 1.22 GiB), maximum: 244.14 MiB. (MEMORY_LIMIT_EXCEEDED)|TIMEOUT|",
            "Code: 158. DB::Exception: Limit for rows or bytes to read exceeded, max rows: 500.00, current rows: 1.00 thousand: While executing MergeTreeSelect(pool: ReadPoolInOrder, algorithm: InOrder). (TOO_MANY_ROWS)|TOO_EXPENSIVE|",
            "Code: 396. DB::Exception: Limit for result exceeded, max rows: 100.00, current rows: 200.00. (TOO_MANY_ROWS_OR_BYTES)|TOO_EXPENSIVE|",
            "Code: 164. DB::Exception: Code: 164. DB::Exception: Cannot modify 'readonly' setting in readonly mode. (READONLY) (version 26.7.2.1). (READONLY)|READ_ONLY_VIOLATION|readonly",
            // Debian's clickhouse-server 18.16 through jdbc-v2: the old format, a code and no name
            "Code: 164, e.displayText() = DB::Exception: Cannot create table in readonly mode, e.what() = DB::Exception (transport error: 500)|READ_ONLY_VIOLATION|",
            "Code: 46, e.displayText() = DB::Exception: Unknown function getSetting, e.what() = DB::Exception (transport error: 404)|UNSUPPORTED_FUNCTION|getSetting",
            "Code: 47, e.displayText() = DB::Exception: Unknown identifier: t2.rn, e.what() = DB::Exception (transport error: 404)|COLUMN_NOT_FOUND|t2.rn",
            "Code: 60, e.displayText() = DB::Exception: Table default.orders doesn't exist., e.what() = DB::Exception (transport error: 404)|TABLE_NOT_FOUND|default.orders",
            "Code: 81, e.displayText() = DB::Exception: Database nodb doesn't exist, e.what() = DB::Exception (transport error: 404)|TABLE_NOT_FOUND|nodb",
            "Code: 215, e.displayText() = DB::Exception: Column customer is not under aggregate function and not in GROUP BY., e.what() = DB::Exception (transport error: 404)|AGGREGATION_ERROR|customer",
            "Code: 403, e.displayText() = DB::Exception: Invalid expression for JOIN ON. Expected equals expression, got a.id < b.id., e.what() = DB::Exception (transport error: 404)|JOIN_ERROR|"})
    void shouldClassifyWhatTheEnginePrinted(String message, ErrorCategory category, String identifier) {
        EngineError e = ClickHouseErrors.classify(ClickHouseErrors.code(message, 0), ClickHouseErrors.name(message), message);
        assertEquals(category, e.category(), message);
        assertEquals(identifier, e.identifier(), message);
    }

    @Test
    void shouldOfferTheEnginesSuggestions() {
        String m = "Code: 47. DB::Exception: Unknown expression identifier `amout` in scope SELECT amout FROM orders. Maybe you meant: ['amount']. (UNKNOWN_IDENTIFIER)";
        assertEquals(List.of("amount"), ClickHouseErrors.classify(47, "UNKNOWN_IDENTIFIER", m).candidates());
        String t = "Code: 60. DB::Exception: Unknown table expression identifier 'orders' in scope SELECT amout FROM orders. Maybe you meant shop.orders?. (UNKNOWN_TABLE)";
        assertEquals(List.of("shop.orders"), ClickHouseErrors.classify(60, "UNKNOWN_TABLE", t).candidates());
    }

    /** What jdbc-v2 0.10.0 says for every SELECT on 18.16 (ClickHouseServerIT): a connection error naming the cause, not retried. */
    @Test
    void shouldNameAServerTooOldForTheDriver() {
        String driver = "executeQuery() requires a ResultSet; use execute() for statements that do not produce one.";
        EngineError e = new ClickHouseErrors().classifyEngine(new java.sql.SQLException(driver, "HY000"), driver);
        assertEquals(ErrorCategory.CONNECTION_ERROR, e.category());
        assertEquals(false, e.infrastructure());
        assertEquals(false, e.category().retryable());
        assertEquals(true, e.message().contains("too old for the driver") && e.message().endsWith(driver), e.message());
    }

    @Test
    void shouldNameAServerWithoutExplain() {
        String m = "Code: 62, e.displayText() = DB::Exception: Syntax error: failed at position 1: EXPLAIN PLAN\nSELECT 1."
                + " Expected one of: SYSTEM query, SELECT subquery, e.what() = DB::Exception (transport error: 400)";
        EngineError e = ClickHouseErrors.classify(62, "", m);
        assertEquals(ErrorCategory.CONNECTION_ERROR, e.category());
        assertEquals(false, e.infrastructure());
        assertEquals(ErrorCategory.SYNTAX_ERROR, ClickHouseErrors.classify(62, "", m.replace("EXPLAIN PLAN", "SELEC")).category());
    }

    @Test
    void shouldTreatALostServerAsInfrastructure() {
        assertEquals(true, ClickHouseErrors.classify(210, "NETWORK_ERROR", "Code: 210. DB::NetException: Connection refused (NETWORK_ERROR)").infrastructure());
    }
}
