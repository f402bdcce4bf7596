package dev.sqloop.validator.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.Issue;
import dev.sqloop.parse.DialectParsers;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

class AggregationCheckTest {

    private static List<Issue> check(Dialect d, String sql) throws Exception {
        return AggregationCheck.check(DialectParsers.forDialect(d).parse(sql));
    }

    @ParameterizedTest
    @EnumSource(value = Dialect.class, names = {"POSTGRES", "DUCKDB", "TRINO", "SPARKSQL", "HIVE"})
    void shouldNameTheColumnAMissingGroupByNeeds(Dialect d) throws Exception {
        List<Issue> issues = check(d, "SELECT region, status, sum(amount) AS total FROM sales GROUP BY region");
        assertEquals(1, issues.size(), issues.toString());
        assertEquals(ErrorCategory.AGGREGATION_ERROR, issues.getFirst().category());
        assertEquals("status", issues.getFirst().identifier());
        assertTrue(issues.getFirst().message().contains("status must appear in the GROUP BY clause"), issues.getFirst().message());

        List<Issue> none = check(d, "SELECT s.region, count(*) FROM sales s");
        assertEquals("s.region", none.getFirst().identifier(), "an aggregate without GROUP BY: " + none);
    }

    @ParameterizedTest
    @EnumSource(value = Dialect.class, names = {"POSTGRES", "DUCKDB", "TRINO", "SPARKSQL", "HIVE"})
    void shouldStaySilentOnCorrectGrouping(Dialect d) throws Exception {
        for (String sql : List.of(
                "SELECT region, sum(amount) FROM sales GROUP BY region",
                "SELECT s.region, sum(s.amount) FROM sales s GROUP BY s.region",
                "SELECT s.region, sum(s.amount) FROM sales s GROUP BY region",
                "SELECT region, sum(amount) FROM sales GROUP BY 1",
                "SELECT region AS r, sum(amount) FROM sales GROUP BY r",
                "SELECT region, count(*) FROM sales GROUP BY region, status",
                "SELECT region, sum(amount) OVER (PARTITION BY region) FROM sales",
                "SELECT region FROM sales WHERE amount = (SELECT max(amount) FROM sales)",
                "SELECT region, (SELECT count(*) FROM sales) AS n FROM sales",
                "SELECT lower(region), count(*) FROM sales GROUP BY lower(region)",
                "SELECT region, count(*) FROM sales GROUP BY GROUPING SETS ((region), ())",
                "SELECT count(*), sum(amount) FROM sales")) {
            if (d == Dialect.HIVE && sql.contains("GROUPING SETS")) continue;
            assertEquals(List.of(), check(d, sql), d + ": " + sql);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"SELECT c.customer_id, c.name, count(*) FROM customers c JOIN orders o ON o.customer_id = c.customer_id GROUP BY c.customer_id"})
    void shouldAllowPostgresFunctionalDependencyOnAGroupedKey(String sql) throws Exception {
        assertEquals(List.of(), check(Dialect.POSTGRES, sql), "PostgreSQL accepts columns of a table whose key is grouped");
        assertEquals("c.name", check(Dialect.DUCKDB, sql).getFirst().identifier(), "DuckDB does not");
        assertEquals("c.name", check(Dialect.TRINO, sql).getFirst().identifier(), "Trino does not");
    }

    @ParameterizedTest
    @EnumSource(value = Dialect.class, names = {"DUCKDB", "SPARKSQL"})
    void shouldStaySilentOnGroupByAll(Dialect d) throws Exception {
        // DuckDB and Spark group by every non-aggregate item: the legitimate-query corpus holds such a query
        assertEquals(List.of(), check(d, "SELECT status, count(*) AS n FROM orders GROUP BY ALL ORDER BY n DESC"));
    }

    @ParameterizedTest
    @EnumSource(value = Dialect.class, names = {"POSTGRES", "DUCKDB", "TRINO", "SPARKSQL", "HIVE"})
    void shouldNameAnAggregateInWhereAndPointToHaving(Dialect d) throws Exception {
        List<Issue> issues = check(d, "SELECT region, count(*) AS n FROM sales WHERE count(*) > 2 GROUP BY region");
        assertEquals(1, issues.size(), issues.toString());
        assertEquals(ErrorCategory.AGGREGATION_ERROR, issues.getFirst().category());
        assertEquals("count", issues.getFirst().identifier());
        assertTrue(issues.getFirst().message().startsWith(AggregationCheck.AGGREGATE_IN_WHERE)
                && issues.getFirst().message().contains("HAVING"), issues.getFirst().message());
        assertEquals(List.of(), check(d, "SELECT region FROM sales WHERE amount > (SELECT avg(amount) FROM sales) GROUP BY region"),
                "an aggregate in a subquery of WHERE is its own block");
        assertEquals(List.of(), check(d, "SELECT region, count(*) FROM sales GROUP BY region HAVING count(*) > 2"));
    }

    @ParameterizedTest
    @EnumSource(value = Dialect.class, names = {"POSTGRES", "DUCKDB", "TRINO", "SPARKSQL", "HIVE"})
    void shouldNameAWindowFunctionInWhereAndPointToASubquery(Dialect d) throws Exception {
        List<Issue> issues = check(d, "SELECT id FROM sales WHERE row_number() OVER (ORDER BY amount DESC) <= 3");
        assertEquals(1, issues.size(), issues.toString());
        assertTrue(issues.getFirst().message().startsWith(AggregationCheck.WINDOW_IN_WHERE)
                && issues.getFirst().message().contains("subquery"), issues.getFirst().message());
        assertEquals(List.of(), check(d, "SELECT id FROM (SELECT id, row_number() OVER (ORDER BY amount DESC) AS r FROM sales) t"
                + " WHERE r <= 3"));
    }
}
