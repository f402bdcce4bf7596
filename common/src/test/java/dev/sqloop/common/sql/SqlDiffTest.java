package dev.sqloop.common.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class SqlDiffTest {

    @Test
    void shouldDescribeAChangedIdentifier() {
        assertEquals("changed 'id' → 'product_id'", SqlDiff.compact("SELECT id FROM products", "SELECT product_id FROM products"));
    }

    @Test
    void shouldDescribeAddedAndRemovedTokens() {
        assertEquals("added ', region'; added 'group by region'",
                SqlDiff.compact("SELECT count(*) FROM sales", "SELECT count(*), region FROM sales GROUP BY region"));
        assertEquals("removed 'limit 10'", SqlDiff.compact("SELECT a FROM t LIMIT 10", "SELECT a FROM t"));
    }

    @Test
    void shouldIgnoreFormattingAndReportNewOrUnchanged() {
        assertEquals("unchanged", SqlDiff.compact("SELECT a FROM t;", "select a\n  from T -- same"));
        assertEquals("new", SqlDiff.compact(null, "SELECT 1"));
    }

    @Test
    void shouldExposeHunks() {
        assertEquals(List.of(new SqlDiff.Hunk("strftime", "year"), new SqlDiff.Hunk(", '%Y'", "")),
                SqlDiff.hunks("SELECT strftime(orderdate, '%Y') FROM orders", "SELECT year(orderdate) FROM orders"));
    }

    @Test
    void shouldBoundTheCompactForm() {
        StringBuilder a = new StringBuilder("SELECT ");
        StringBuilder b = new StringBuilder("SELECT ");
        for (int i = 0; i < 20; i++) {
            a.append("c").append(i).append(", x, ");
            b.append("d").append(i).append(", x, ");
        }
        String diff = SqlDiff.compact(a + "1 FROM t", b + "1 FROM t");
        assertEquals(true, diff.endsWith("… 14 more"), diff);
    }
}
