package dev.sqloop.validator.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.Issue;
import dev.sqloop.validator.SampleCatalog;
import dev.sqloop.parse.DialectParsers;
import dev.sqloop.parse.SqlRejection;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

class SchemaCheckTest {

    private static List<Issue> check(Dialect dialect, String sql) throws SqlRejection {
        return SchemaCheck.check(DialectParsers.forDialect(dialect).parse(sql), SampleCatalog.create());
    }

    private static Issue single(List<Issue> issues) {
        assertEquals(1, issues.size(), issues::toString);
        return issues.getFirst();
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void shouldReportMissingColumnWithCandidates(Dialect dialect) throws SqlRejection {
        Issue issue = single(check(dialect, "SELECT o.id, o.stauts FROM orders o"));
        assertEquals(ErrorCategory.COLUMN_NOT_FOUND, issue.category());
        assertEquals("o.stauts", issue.identifier());
        assertEquals(List.of("status"), issue.candidates());
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void shouldReportMissingUnqualifiedColumn(Dialect dialect) throws SqlRejection {
        Issue issue = single(check(dialect, "SELECT amout FROM orders"));
        assertEquals(ErrorCategory.COLUMN_NOT_FOUND, issue.category());
        assertTrue(issue.candidates().contains("amount"), issue::toString);
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void shouldReportMissingTableWithCandidates(Dialect dialect) throws SqlRejection {
        Issue issue = single(check(dialect, "SELECT count(*) FROM order_s"));
        assertEquals(ErrorCategory.TABLE_NOT_FOUND, issue.category());
        assertEquals("order_s", issue.identifier());
        assertEquals(List.of("main.orders"), issue.candidates());
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void shouldReportUnknownFilterValueWithCandidates(Dialect dialect) throws SqlRejection {
        Issue issue = single(check(dialect, "SELECT id FROM orders WHERE status = 'shiped'"));
        assertEquals(ErrorCategory.CONSTRAINT_VIOLATION, issue.category());
        assertEquals("shiped", issue.identifier());
        assertEquals(List.of("shipped"), issue.candidates());
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void shouldFailOnlyAnEvidentSlipOfAKnownValue(Dialect dialect) throws SqlRejection {
        assertFalse(single(check(dialect, "SELECT id FROM orders WHERE status = 'shiped'")).hint(), "one letter from 'shipped': an error");
        Issue far = single(check(dialect, "SELECT id FROM orders WHERE status = 'returned'"));
        assertTrue(far.hint(), "a value the data may simply not hold is a hint, never a refusal: " + far);
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void shouldSuggestTheRightCaseForAFilterValue(Dialect dialect) throws SqlRejection {
        Issue issue = single(check(dialect, "SELECT c.name FROM customers c WHERE c.country IN ('FR', 'us')"));
        assertEquals("us", issue.identifier());
        assertEquals(List.of("US"), issue.candidates());
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void shouldReportUnknownFunctionWithCandidates(Dialect dialect) throws SqlRejection {
        Issue issue = single(check(dialect, "SELECT uper(name) FROM customers"));
        assertEquals(ErrorCategory.UNSUPPORTED_FUNCTION, issue.category());
        assertEquals(List.of("upper"), issue.candidates());
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void shouldNotLetASubqueryColumnLeakIntoTheOuterQuery(Dialect dialect) throws SqlRejection {
        Issue issue = single(check(dialect, "SELECT name FROM (SELECT id FROM customers) sub"));
        assertEquals(ErrorCategory.COLUMN_NOT_FOUND, issue.category());
        assertEquals("name", issue.identifier());
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void shouldReportUnknownAlias(Dialect dialect) throws SqlRejection {
        Issue issue = single(check(dialect, "SELECT x.id FROM orders o"));
        assertEquals(ErrorCategory.COLUMN_NOT_FOUND, issue.category());
        assertEquals("x.id", issue.identifier());
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void shouldReportColumnMissingFromCteOutput(Dialect dialect) throws SqlRejection {
        Issue issue = single(check(dialect,
                "WITH t AS (SELECT customer_id, sum(amount) AS total FROM orders GROUP BY customer_id) SELECT t.totl FROM t"));
        assertEquals("t.totl", issue.identifier());
        assertEquals(List.of("total"), issue.candidates());
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "SELECT o.id, c.name FROM orders o JOIN customers c ON o.customer_id = c.id WHERE c.country = 'FR'",
        "WITH t AS (SELECT customer_id, sum(amount) AS total FROM orders GROUP BY customer_id) SELECT c.name, t.total FROM t JOIN customers c ON c.id = t.customer_id ORDER BY t.total DESC",
        "SELECT s.total FROM (SELECT sum(amount) AS total FROM orders) s",
        "SELECT x.a FROM (SELECT * FROM customers) x(a, b, c)",
        "SELECT sub.name FROM (SELECT * FROM customers) sub",
        "SELECT n FROM (SELECT count(*) AS n FROM orders) q WHERE n > 1",
        "SELECT status, count(*) AS n FROM orders GROUP BY status ORDER BY n DESC",
        "SELECT c.name FROM customers c WHERE EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id AND o.status = 'shipped')",
        "SELECT a.id FROM orders a JOIN orders b USING (customer_id) WHERE customer_id > 1",
        "SELECT orders.id FROM orders",
        "SELECT main.orders.id FROM main.orders",
        "SELECT id FROM orders UNION SELECT id FROM customers ORDER BY id",
        "SELECT id, row_number() OVER (PARTITION BY customer_id ORDER BY amount DESC) AS rn FROM orders",
        "SELECT status FROM orders WHERE status <> 'cancelled' AND customer_id IN (SELECT id FROM customers WHERE country = 'DE')",
        "SELECT c.name, (SELECT count(*) FROM orders o WHERE o.customer_id = c.id) AS n FROM customers c",
        "SELECT o.id FROM orders AS o JOIN (SELECT id FROM customers) AS c ON c.id = o.customer_id",
        "SELECT status, sum(amount) AS total FROM orders GROUP BY status HAVING sum(amount) > 10 ORDER BY total",
        "SELECT x.a FROM (SELECT id AS a FROM orders UNION ALL SELECT id FROM customers) x",
        "WITH a AS (SELECT id FROM orders), b AS (SELECT a.id FROM a) SELECT b.id FROM b",
        "SELECT c.* FROM customers c WHERE c.id NOT IN (SELECT customer_id FROM orders WHERE status = 'pending')",
    })
    void shouldAcceptCorrectQueriesInEveryDialect(String sql) throws SqlRejection {
        for (Dialect d : Dialect.values()) {
            assertEquals(List.of(), check(d, sql), d + ": " + sql);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "SELECT o.id, t.tag FROM orders o CROSS JOIN UNNEST(o.tags) AS t(tag)",
        "SELECT transform(ARRAY[1, 2], x -> x * 2) AS doubled",
        "SELECT o.id, x.n FROM orders o, LATERAL (SELECT count(*) AS n FROM customers c WHERE c.id = o.customer_id) x",
    })
    void shouldAcceptTrinoSpecificScopes(String sql) throws SqlRejection {
        assertEquals(List.of(), check(Dialect.TRINO, sql));
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "SELECT id, tag FROM orders LATERAL VIEW explode(tags) t AS tag",
        "SELECT `o`.`id`, `status` FROM `orders` `o` WHERE status = \"shipped\"",
    })
    void shouldAcceptHiveSpecificScopes(String sql) throws SqlRejection {
        assertEquals(List.of(), check(Dialect.SPARKSQL, sql));
        assertEquals(List.of(), check(Dialect.HIVE, sql));
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "SELECT id, amount FROM orders QUALIFY row_number() OVER (PARTITION BY customer_id ORDER BY amount DESC) = 1",
        "SELECT list_transform([1, 2, 3], x -> x + 1) AS l",
        "SELECT \"status\" FROM \"orders\" WHERE \"amount\" > 10",
    })
    void shouldAcceptDuckDbSpecificScopes(String sql) throws SqlRejection {
        assertEquals(List.of(), check(Dialect.DUCKDB, sql));
    }
}
