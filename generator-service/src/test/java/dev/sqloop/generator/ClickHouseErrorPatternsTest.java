package dev.sqloop.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** The ClickHouse section of the registry on messages chDB 26.7 printed (executor-service ChdbExecutorIT). */
class ClickHouseErrorPatternsTest {
    private static final ErrorPatternRegistry REGISTRY = ErrorPatternRegistry.load();

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "Code: 47. DB::Exception: Unknown expression identifier `t2.rn` in scope SELECT t2.rn FROM (SELECT 1 AS x) AS t1. (UNKNOWN_IDENTIFIER)|column_not_found|scalar subquery",
            "Code: 47. DB::Exception: Unknown expression identifier `amout` in scope SELECT amout FROM orders. Maybe you meant: ['amount']. (UNKNOWN_IDENTIFIER)|column_not_found|does not exist in this scope",
            "Code: 60. DB::Exception: Unknown table expression identifier 'order_lines' in scope SELECT * FROM order_lines. (UNKNOWN_TABLE)|table_not_found|does not exist",
            "Code: 46. DB::Exception: Function with name `toStartOfMonthh` does not exist. In scope SELECT toStartOfMonthh(placed) FROM orders. Maybe you meant: ['toStartOfMonth','toStartOfMinute']. (UNKNOWN_FUNCTION)|unsupported_function|case-sensitive",
            "Code: 215. DB::Exception: Column 'shop.orders.customer' is not under aggregate function and not in GROUP BY keys. In query SELECT customer, count() FROM orders GROUP BY id. (NOT_AN_AGGREGATE)|aggregation_error|GROUP BY",
            "Code: 403. DB::Exception: Cannot determine join keys in JOIN ON expression less(__table2.id, __table3.id). (INVALID_JOIN_ON_EXPRESSION)|join_error|FULL/RIGHT OUTER JOIN",
            "Code: 43. DB::Exception: Illegal types UInt8 and String of arguments of function plus: In scope SELECT 1 + 'a'. (ILLEGAL_TYPE_OF_ARGUMENT)|type_mismatch|implicitly",
            "Code: 6. DB::Exception: Cannot parse string 'abc' as UInt8: syntax error at begin of string. (CANNOT_PARSE_TEXT)|type_mismatch|literal",
            "Code: 159. DB::Exception: Timeout exceeded: elapsed 3045.1 ms, maximum: 3000 ms. (TIMEOUT_EXCEEDED)|timeout|time limit",
            "Code: 241. DB::Exception: Query memory limit exceeded: would use 1.22 GiB (attempt to allocate chunk of 1.22 GiB), maximum: 244.14 MiB. (MEMORY_LIMIT_EXCEEDED)|timeout|memory",
            "Code: 158. DB::Exception: Limit for rows or bytes to read exceeded, max rows: 1.00 thousand, current rows: 10.00 thousand. (TOO_MANY_ROWS)|too_expensive|scan budget"})
    void shouldNameTheViolatedConstraintOfARealMessage(String message, String category, String constraintSays) {
        ErrorPatternRegistry.ErrorPattern p = REGISTRY.match(Dialect.CLICKHOUSE, message).orElseThrow(() -> new AssertionError("no pattern for " + message));
        assertEquals(category, p.category().wireName(), message);
        assertTrue(p.constraint().contains(constraintSays), p.constraint());
    }

    @Test
    void shouldSendLagToLagInFrame() {
        ErrorPatternRegistry.ErrorPattern p = REGISTRY.match(Dialect.CLICKHOUSE, "Code: 46. DB::Exception: Function with name `lag` does not exist. (UNKNOWN_FUNCTION)").orElseThrow();
        assertTrue(p.alternative().contains("lagInFrame"), p.alternative());
    }

    @Test
    void shouldGiveClickHousePromptsItsRulesAndNoOtherDialect() {
        String rules = PromptBuilder.dialectRules(Dialect.CLICKHOUSE);
        for (String must : new String[] {"countIf", "toStartOfMonth", "lagInFrame", "arrayJoin", "FINAL", "scalar subquery"}) {
            assertTrue(rules.contains(must), must + " in " + rules);
        }
        for (Dialect d : Dialect.values()) {
            if (d != Dialect.CLICKHOUSE) assertEquals("", PromptBuilder.dialectRules(d), d.wireName());
        }
    }
}
