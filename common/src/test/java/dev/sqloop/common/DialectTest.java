package dev.sqloop.common;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Identifier quoting per dialect: the one place the schema readers and the validator's loader take it from. */
class DialectTest {
    @Test
    void shouldQuoteWithBackticksOnHiveServer2AndDoubleQuotesElsewhere() {
        assertEquals("`sb``Tx`", Dialect.HIVE.quote("sb`Tx"));
        assertEquals("`order`", Dialect.SPARKSQL.quote("order"));
        for (Dialect d : new Dialect[] {Dialect.TRINO, Dialect.PRESTO, Dialect.POSTGRES, Dialect.DUCKDB}) {
            assertEquals("\"a\"\"b\"", d.quote("a\"b"), d.name());
        }
    }
}
