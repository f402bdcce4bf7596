package dev.sqloop.validator.parse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.parse.DialectParsers;
import dev.sqloop.parse.FunctionCatalog;
import dev.sqloop.parse.FunctionCatalog.Entry;
import dev.sqloop.parse.FunctionCatalog.Kind;
import dev.sqloop.parse.FunctionCatalog.Safety;
import dev.sqloop.parse.ObjectName;
import dev.sqloop.parse.ParsedQuery;
import dev.sqloop.parse.SqlCorpus;
import dev.sqloop.parse.SqlRejection;
import dev.sqloop.testkit.engines.DefogDatasets;
import dev.sqloop.testkit.engines.DefogQuestions;
import dev.sqloop.testkit.engines.SqlScript;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * No false refusals from the function allow-lists: every function and table function that sql-parse records in the
 * defog gold SQL (as each dialect's tests run it: every accepted alternative on PostgreSQL, the first verbatim on
 * DuckDB, Spark and Hive, the first through testkit's PostgresToTrinoQuery on Trino and Presto) and in the
 * legitimate-query corpus is
 * {@code pure} or {@code sized} in the dialect's file. A function the file lacks is one the engine lacks: those are
 * listed per dialect with the reason (the gold SQL is PostgreSQL's, and Spark and Hive run it unchanged).
 */
class FunctionAllowListGoldTest {

    /**
     * Functions of the verbatim PostgreSQL gold SQL that an engine's catalog does not have (the engine fails those
     * queries as unknown functions, DefogGoldIT/DefogGoldValidationIT list them): by dialect, name → why.
     */
    static final Map<Dialect, Map<String, String>> NOT_IN_ENGINE = Map.of(
            Dialect.DUCKDB, Map.of("to_char", "PostgreSQL's formatting function (gold #58); DuckDB has strftime"),
            Dialect.HIVE, Map.of(
                    "date_part", "PostgreSQL's; Hive 4 has extract()",
                    "date_trunc", "PostgreSQL's; Hive 4 has trunc() and floor_*()",
                    "to_char", "PostgreSQL's formatting; Hive 4 has date_format()",
                    "to_timestamp", "PostgreSQL's; Hive 4 has unix_timestamp() and from_unixtime()"),
            // the gold is not translated to ClickHouse yet (issue 48): its verbatim PostgreSQL names
            Dialect.CLICKHOUSE, Map.of(
                    "date_part", "PostgreSQL's; ClickHouse has toYear()/toMonth() and EXTRACT",
                    "to_char", "PostgreSQL's formatting; ClickHouse has formatDateTime()",
                    "to_timestamp", "PostgreSQL's; ClickHouse has toDateTime() and parseDateTimeBestEffort()"));

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void shouldAllowEveryFunctionTheGoldSqlAndTheLegitimateCorpusCall(Dialect dialect) {
        FunctionCatalog catalog = FunctionCatalog.of(dialect);
        List<String> sqls = new ArrayList<>();
        for (DefogQuestions.Question q : DefogQuestions.load()) {
            if (dialect == Dialect.POSTGRES) {
                // every accepted alternative: all of them are PostgreSQL
                for (String alternative : SqlScript.split(q.goldSql())) sqls.add(DefogQuestions.firstAlternative(alternative));
            } else if (dialect == Dialect.TRINO || dialect == Dialect.PRESTO) {
                sqls.add(DefogDatasets.trinoQuery(q.database(), q.firstGold()));
            } else {
                sqls.add(q.firstGold());
            }
        }
        int gold = sqls.size();
        SqlCorpus.load(SqlCorpus.LEGITIMATE).stream().filter(c -> c.dialect() == dialect).forEach(c -> sqls.add(c.sql()));

        Set<String> used = new TreeSet<>();
        Map<String, String> refused = new TreeMap<>();
        Set<String> absent = new TreeSet<>();
        int unparsed = 0;
        for (int i = 0; i < sqls.size(); i++) {
            ParsedQuery q;
            try {
                q = DialectParsers.forDialect(dialect).parse(sqls.get(i));
            } catch (SqlRejection e) {
                // PostgreSQL's gold SQL is not HiveQL or Spark SQL: their parser refuses some (a syntax error, no function check)
                assertTrue(i < gold && (dialect == Dialect.HIVE || dialect == Dialect.SPARKSQL),
                        dialect + " refused " + sqls.get(i) + ": " + e.getMessage());
                unparsed++;
                continue;
            }
            for (String f : q.functions()) {
                used.add(f);
                List<Entry> rows = catalog.entries(f).stream().filter(e -> e.kind() != Kind.TABLE).toList();
                check(f, rows, sqls.get(i), refused, absent);
            }
            for (ObjectName tf : q.tableFunctions()) {
                used.add(tf.last() + " (table)");
                check(tf.last(), catalog.lookup(tf.last(), Kind.TABLE).stream().toList(), sqls.get(i), refused, absent);
            }
        }
        Map<Safety, Long> bySafety = new TreeMap<>();
        catalog.entries().forEach(e -> bySafety.merge(e.safety(), 1L, Long::sum));
        System.out.printf("%s: %d rows in the catalog (%s); %d gold queries (%d not parsed as %s), %d corpus queries; %d distinct"
                        + " functions called: %s; refused %d, not in the engine %s%n", dialect, catalog.entries().size(), bySafety,
                gold, unparsed, dialect, sqls.size() - gold, used.size(), used, refused.size(), absent);
        assertEquals(Map.of(), refused, dialect + ": functions of gold or legitimate SQL the allow-list refuses");
        assertEquals(NOT_IN_ENGINE.getOrDefault(dialect, Map.of()).keySet(), absent,
                dialect + ": functions of gold or legitimate SQL the engine's catalog lacks");
        assertTrue(used.size() >= 15, dialect + " calls only " + used);
    }

    private static void check(String name, List<Entry> rows, String sql, Map<String, String> refused, Set<String> absent) {
        if (rows.isEmpty()) {
            absent.add(name);
        } else if (rows.stream().allMatch(e -> e.safety() == Safety.REFUSED)) {
            refused.putIfAbsent(name, rows.getFirst().note() + " in " + sql);
        }
    }
}
