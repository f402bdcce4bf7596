package dev.sqloop.validator.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.Issue;
import dev.sqloop.parse.SqlCorpus;
import dev.sqloop.validator.SampleCatalog;
import dev.sqloop.validator.StaticValidator;
import dev.sqloop.validator.ValidationTarget;
import dev.sqloop.validator.schema.InMemorySchemaCatalog;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/** SQL of another dialect named with the datasource dialect's equivalent, by the validator, before any engine. */
class ForeignConstructsTest {

    private static List<Issue> validate(Dialect d, String sql) {
        // no live function list: the dialect's allow-list alone decides what exists
        ValidationTarget target = new ValidationTarget(d, InMemorySchemaCatalog.builder().table(SampleCatalog.ORDERS)
                .table(SampleCatalog.CUSTOMERS).defaultSchema("main").build());
        return StaticValidator.validate(sql, target, null);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "postgres|SELECT TOP 5 id FROM orders ORDER BY amount DESC|TOP|LIMIT 5",
            "trino|SELECT DISTINCT TOP 3 status FROM orders|TOP|LIMIT 3",
            "sparksql|SELECT TOP 5 id FROM orders|TOP|LIMIT 5",
            "postgres|SELECT `status`, count(*) FROM orders GROUP BY `status`|`|\"status\"",
            "duckdb|SELECT `status` FROM orders|`|\"status\"",
            "trino|SELECT `status` FROM orders|`|\"status\"",
            "postgres|SELECT id FROM orders LIMIT 10, 5|LIMIT|LIMIT 5 OFFSET 10",
            "trino|SELECT id FROM orders LIMIT 10, 5|LIMIT|OFFSET 10 LIMIT 5",
            "trino|SELECT id::varchar FROM orders|::|CAST(x AS type)",
            "hive|SELECT id::string FROM orders|::|CAST(x AS type)",
            "postgres|SELECT [order date] FROM orders|[|\"order date\"",
            "hive|SELECT o.[status], count(*) FROM orders o GROUP BY o.[status]|[|`status`",
            "sparksql|SELECT [status] FROM orders|[|`status`",
            "hive|SELECT id FROM orders WHERE status ILIKE 'ship%'|ILIKE|lower(x) LIKE lower(pattern)"})
    void shouldNameForeignSyntaxAndItsEquivalent(String dialect, String sql, String construct, String equivalent) {
        Dialect d = Dialect.fromWire(dialect);
        Issue first = validate(d, sql).getFirst();
        assertEquals(ErrorCategory.SYNTAX_ERROR, first.category(), first.message());
        assertEquals(construct, first.identifier(), first.message());
        assertTrue(first.message().contains(equivalent), first.message());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "postgres|SELECT IFNULL(amount, 0) FROM orders|ifnull|COALESCE",
            "postgres|SELECT DATE_FORMAT(order_date, '%Y-%m') FROM orders|date_format|to_char",
            "postgres|SELECT GETDATE()|getdate|current_timestamp",
            "postgres|SELECT LEN(status) FROM orders|len|length",
            "postgres|SELECT GROUP_CONCAT(status) FROM orders|group_concat|string_agg",
            "trino|SELECT strftime(order_date, '%Y') FROM orders|strftime|date_format",
            "duckdb|SELECT to_char(order_date, 'YYYY') FROM orders|to_char|strftime",
            "trino|SELECT to_char(order_date, 'YYYY') FROM orders|to_char|date_format",
            "sparksql|SELECT string_agg(status, ',') FROM orders|string_agg|collect_list",
            "trino|SELECT IFNULL(amount, 0) FROM orders|ifnull|COALESCE"})
    void shouldNameAnotherEnginesFunctionWithThisDialectsEquivalent(String dialect, String sql, String function, String equivalent) {
        Issue first = validate(Dialect.fromWire(dialect), sql).getFirst();
        assertEquals(ErrorCategory.UNSUPPORTED_FUNCTION, first.category(), first.message());
        assertEquals(function, first.identifier());
        assertTrue(first.message().contains(equivalent), first.message());
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void shouldNotTakeAnyLegitimateQueryForForeignSyntax(Dialect d) {
        List<String> flagged = new ArrayList<>();
        for (SqlCorpus.Case c : SqlCorpus.load(SqlCorpus.LEGITIMATE)) {
            if (c.dialect() == d && !ForeignConstructs.syntax(c.sql(), d).isEmpty()) flagged.add(c.sql());
        }
        assertTrue(flagged.isEmpty(), d + ": " + flagged);
    }

    @Test
    void shouldLeaveAFunctionTheDialectHasAlone() {
        // Spark and Hive have ifnull and date_format; DuckDB has ifnull: no foreign advice there
        for (Issue i : validate(Dialect.SPARKSQL, "SELECT ifnull(amount, 0), date_format(order_date, 'yyyy') FROM orders")) {
            assertTrue(i.hint() || i.category() != ErrorCategory.UNSUPPORTED_FUNCTION, i.message());
        }
    }
}
