package dev.sqloop.parse;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.error.ErrorCategory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Values built from constants, bounded on the tree before any engine sees them (issue 44: DuckDB allocating outside
 * its memory limit, Spark killed by one query), and Hive/Spark regular expressions that are not plain literals.
 */
class ValueBoundsTest {

    private static SqlRejection refused(Dialect d, String sql) {
        return assertThrows(SqlRejection.class, () -> DialectParsers.forDialect(d).parse(sql), () -> d + " accepted: " + sql);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "duckdb|SELECT printf('%1000000000d', 1)",
            "duckdb|SELECT format('{:>1000000000}', 'x')",
            "duckdb|SELECT length(replace(repeat('a', 100000), 'a', repeat('b', 100000)))",
            "duckdb|SELECT length(regexp_replace(repeat('a', 99999), 'a', repeat('bb', 50000), 'g'))",
            "duckdb|SELECT length(regexp_replace(repeat('a', 99999), '', repeat('b', 100), 'g'))",
            "duckdb|SELECT repeat(repeat('a', 1000), 10000)",
            "duckdb|SELECT hex(hex(hex(hex(hex(hex(hex(hex(repeat('a', 100000)))))))))",
            "duckdb|SELECT repeat('x', 1000 * 1000 * 1000)",
            "duckdb|SELECT lpad('x', CAST('1000000000' AS INTEGER), 'y')",
            "duckdb|SELECT printf('%*d', 1000000000, 1)",
            "duckdb|SELECT printf('%.1000000f', 1.0)",
            "duckdb|SELECT format('{:>{}}', 'x', 1000000000)",
            "duckdb|SELECT list_transform(range(100000), x -> repeat('a', 100000))",
            "duckdb|SELECT range(DATE '1000-01-01', DATE '9000-01-01', INTERVAL 1 HOUR)",
            "duckdb|SELECT repeat('x', length(o_comment) * 1000000) FROM orders",
            "sparksql|SELECT x FROM t LATERAL VIEW explode(sequence(1, 100000000)) v AS x",
            "sparksql|SELECT repeat('x', 2000000000)",
            "sparksql|SELECT space(2000000000)",
            "sparksql|SELECT format_string('%1000000000d', 1)",
            "sparksql|SELECT format_number(1.0, 100000000)",
            "sparksql|SELECT size(array_repeat('x', 100000000))",
            "sparksql|SELECT concat_ws(repeat('y', 100000), array_repeat('x', 100000))",
            "sparksql|SELECT aggregate(sequence(1, 40), 'a', (acc, x) -> concat(acc, acc))",
            "sparksql|SELECT transform(sequence(1, 100000), x -> repeat('a', 100000))",
            "sparksql|SELECT collect_list(repeat('a', 100000)) FROM range(100000)",
            "hive|SELECT repeat('x', 2000000000)",
            "hive|SELECT lpad('x', 2000000000, 'y')",
            "trino|SELECT format('%1000000000d', 1)",
            "trino|SELECT lpad('x', 2000000000, 'y')",
            "trino|SELECT length(replace(repeat('a', 100000), 'a', repeat('b', 100000)))",
            "postgres|SELECT repeat('x', 2000000000)",
            "postgres|SELECT format('%1000000000s', 'x')",
            "postgres|SELECT array_fill(1, ARRAY[100000000])",
            "postgres|SELECT string_agg(repeat('x', 100000), ',') FROM generate_series(1, 100000)"})
    void shouldRefuseValuesBuiltBeyondTheBounds(String dialect, String sql) {
        Dialect d = Dialect.fromWire(dialect);
        SqlRejection r = refused(d, sql);
        assertEquals(ErrorCategory.TIMEOUT, r.category(), r.getMessage());
        assertTrue(r.getMessage().contains("is refused"), r.getMessage());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "duckdb|SELECT lpad(CAST(o_orderkey AS VARCHAR), 8, '0') FROM orders",
            "duckdb|SELECT repeat('-', 20), printf('%.2f', o_totalprice), format('{:>10}', o_orderstatus) FROM orders",
            "duckdb|SELECT range(10), generate_series(DATE '2024-01-01', DATE '2024-12-31', INTERVAL 1 DAY)",
            "duckdb|SELECT string_agg(o_comment, ', ') FROM orders",
            "duckdb|SELECT replace(o_comment, 'a', 'bb'), regexp_replace(o_comment, '[0-9]+', '#') FROM orders",
            "duckdb|SELECT list_transform([1, 2, 3], x -> x * 2)",
            "sparksql|SELECT sequence(1, 12), repeat('*', 5), lpad(name, 10, ' '), concat_ws(', ', collect_list(name)) FROM t GROUP BY id",
            "sparksql|SELECT regexp_extract(name, '([a-z]+)@', 1), split(name, ','), name RLIKE '^[A-Z]' FROM t",
            "sparksql|SELECT name FROM t WHERE name LIKE '%abc%def%'",
            "sparksql|SELECT date_format(d, 'yyyy-MM'), format_string('%05d', id), format_number(amount, 2) FROM t",
            "hive|SELECT regexp_replace(name, '[^a-z]', ''), str_to_map('a:1,b:2', ',', ':') FROM t",
            "trino|SELECT format('%.2f', x), lpad(CAST(x AS varchar), 5, '0'), sequence(1, 1000000) FROM t",
            "postgres|SELECT to_char(d, 'YYYY-MM'), format('%s-%s', a, b), lpad(a, 4, '0'), string_agg(a, ', ') FROM t GROUP BY d",
            "postgres|SELECT generate_series(1, 100000000)"})
    void shouldAcceptWhatAnalystsWrite(String dialect, String sql) {
        Dialect d = Dialect.fromWire(dialect);
        assertDoesNotThrow(() -> DialectParsers.forDialect(d).parse(sql), d + ": " + sql);
    }

    /** Every function a dialect's allow-list marks as sized by a count or a width is bounded by it, on that dialect. */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.EnumSource(Dialect.class)
    void shouldBoundEveryCountAndWidthTheAllowListNames(Dialect d) {
        java.util.List<String> unbounded = new java.util.ArrayList<>();
        int checked = 0;
        for (FunctionCatalog.Entry e : FunctionCatalog.of(d).entries()) {
            if (e.safety() != FunctionCatalog.Safety.SIZED || e.kind() == FunctionCatalog.Kind.TABLE) continue;
            for (FunctionCatalog.SizeSpec spec : e.sizes()) {
                int at = spec instanceof FunctionCatalog.SizeSpec.Count c ? c.arg() : spec instanceof FunctionCatalog.SizeSpec.Width w ? w.arg() : 0;
                if (at == 0) continue;
                java.util.List<String> args = new java.util.ArrayList<>();
                for (int i = 1; i <= Math.max(at, 2); i++) args.add(i == at ? "2000000000" : "'x'");
                String sql = "SELECT " + e.name() + "(" + String.join(", ", args) + ") AS v";
                checked++;
                try {
                    DialectParsers.forDialect(d).parse(sql);
                    unbounded.add(sql);
                } catch (SqlRejection r) {
                    if (r.category() != ErrorCategory.TIMEOUT) unbounded.add(sql + " -> " + r.category() + ": " + r.getMessage());
                }
            }
        }
        assertTrue(unbounded.isEmpty(), d + ": " + unbounded);
        // ClickHouse's value builders are bounded by the engine itself: max_memory_usage on every session, and repeat()
        // refuses more than 1,000,000 repetitions (seen: "Too many times to repeat (100000000), maximum is: 1000000")
        assertTrue(checked > 0 || d == Dialect.PRESTO || d == Dialect.TRINO || d == Dialect.CLICKHOUSE, d + ": nothing checked");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "hive|SELECT concat(repeat('a', 32), '!') RLIKE concat('(.*', 'a){12}$')",
            "sparksql|SELECT concat(repeat('a', 32), '!') RLIKE concat('(.*', 'a){12}$')",
            "sparksql|SELECT regexp_extract(name, pattern, 1) FROM t",
            "sparksql|SELECT rlike(name, concat('a', 'b')) FROM t",
            "sparksql|SELECT name FROM t WHERE name LIKE concat(repeat('%a', 20), '!')",
            "hive|SELECT split(name, repeat('(a+)+', 1)) FROM t",
            "sparksql|SELECT parse_url(url, 'QUERY', '(a+)+b') FROM t",
            "sparksql|SELECT repeat('a', 100000) LIKE '%a%b'",
            "hive|SELECT name FROM t WHERE name LIKE '%a%a%a%a%!'"})
    void shouldRefuseRegularExpressionsThatCannotBeJudgedBeforeTheyRun(String dialect, String sql) {
        Dialect d = Dialect.fromWire(dialect);
        SqlRejection r = refused(d, sql);
        assertEquals(ErrorCategory.READ_ONLY_VIOLATION, r.category(), r.getMessage());
    }
}
