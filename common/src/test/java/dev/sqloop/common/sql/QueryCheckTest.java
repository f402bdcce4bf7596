package dev.sqloop.common.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class QueryCheckTest {

    @Test
    void shouldAcceptReadOnlyQueriesWhateverTheirFormatting() {
        for (String sql : List.of("SELECT 1", "select count(*) from orders;", "WITH t AS (SELECT 1) SELECT * FROM t",
                "(SELECT a FROM t) UNION ALL (SELECT b FROM u)", "VALUES (1, 2)", "FROM orders LIMIT 5",
                "-- the count\nSELECT count(*) FROM orders", "SELECT 'delete; insert into x' AS s, \"update\" FROM t",
                "SELECT o_orderpriority FROM orders WHERE o_comment LIKE '%drop%'")) {
            assertEquals(java.util.Optional.empty(), QueryCheck.whyNotAQuery(sql), sql);
        }
    }

    @Test
    void shouldNameWhatMakesAStatementNotAQuery() {
        assertReason("DELETE FROM orders", "not DELETE");
        assertReason("insert into t values (1)", "not INSERT");
        assertReason("  /* c */ ", "no statement");
        assertReason("SELECT 1; DROP TABLE orders", "more than one statement");
        assertReason("WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d", "no DELETE");
        assertReason("SELECT * INTO backup FROM orders", "no INTO");
        assertReason("SELECT * FROM t FOR UPDATE", "no UPDATE");
        assertReason("= 1", "not '='");
    }

    private static void assertReason(String sql, String expected) {
        String reason = QueryCheck.whyNotAQuery(sql).orElseThrow(() -> new AssertionError("accepted: " + sql));
        assertTrue(reason.contains(expected), sql + " → " + reason);
    }
}
