package dev.sqloop.parse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.error.ErrorCategory;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The validator's findings of issue 11's outside probe, each reproduced here first. */
class OutsideProbeTest {

    private static ParsedQuery parse(Dialect d, String sql) throws SqlRejection {
        return DialectParsers.forDialect(d).parse(sql);
    }

    private static SqlRejection refused(Dialect d, String sql) {
        return assertThrows(SqlRejection.class, () -> parse(d, sql), () -> d + " accepted: " + sql);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT query_to_xml('SELECT * FROM secrets', true, true, '')::text",
            "SELECT table_to_xml('secrets', true, true, '')",
            "SELECT database_to_xml(true, true, '')",
            "SELECT schema_to_xml('public', true, true, '')",
            "SELECT * FROM ts_stat('SELECT to_tsvector(body) FROM secrets')",
            "SELECT ts_rewrite(to_tsquery('a'), 'SELECT q, s FROM secrets')",
            "SELECT pg_catalog.query_to_xml('SELECT 1', true, true, '')",
            "SELECT \"query_to_xml\"('SELECT 1', true, true, '')",
            "SELECT lo_get(1)",
            "SELECT pg_advisory_lock(1)",
            "SELECT set_config('search_path', 'x', false)",
            "SELECT pg_stat_file('/etc/passwd')",
            "SELECT pg_ls_dir('/')",
            "SELECT pg_reload_conf()",
            "SELECT pg_terminate_backend(1)",
            "SELECT current_setting('data_directory')"})
    void shouldRefusePostgresFunctionsThatRunSqlTextOrTouchTheServer(String sql) {
        assertEquals(ErrorCategory.READ_ONLY_VIOLATION, refused(Dialect.POSTGRES, sql).category(), sql);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT pg_get_viewdef('secret_view'::regclass)",
            "SELECT pg_catalog.pg_get_functiondef('f'::regproc)",
            "SELECT pg_get_userbyid(10)",
            "SELECT pg_stat_get_live_tuples('secrets'::regclass)",
            "SELECT pg_relation_size('secrets')",
            "SELECT pg_total_relation_size('secrets')",
            "SELECT pg_sequence_last_value('orders_seq')",
            "SELECT * FROM pg_partition_tree('secrets')",
            "SELECT \"pg_get_viewdef\"('v'::regclass)",
            "SELECT obj_description('secrets'::regclass)",
            "SELECT col_description('secrets'::regclass, 1)",
            "SELECT has_table_privilege('secrets', 'SELECT')",
            "SELECT has_column_privilege('secrets', 'secret', 'SELECT')",
            "SELECT to_regclass('secrets') IS NOT NULL",
            "SELECT inet_server_addr()",
            "SELECT id FROM orders WHERE pg_has_role('admin', 'MEMBER')",
            "SELECT 'secrets'::regclass",
            "SELECT i::regclass::text FROM generate_series(16384, 20000) i",
            "SELECT CAST('secrets' AS regclass) IS NOT NULL",
            "SELECT 'secrets'::pg_catalog.regclass",
            "SELECT 10::\"regrole\"",
            "SELECT regclass('secrets')",
            "SELECT id FROM orders WHERE status = (SELECT 'f'::regproc::text)"})
    void shouldRefusePostgresCatalogFunctionsThatReadObjectsByName(String sql) {
        assertEquals(ErrorCategory.READ_ONLY_VIOLATION, refused(Dialect.POSTGRES, sql).category(), sql);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT pg_typeof(amount) FROM orders",
            "SELECT pg_size_pretty(sum(amount)::bigint) FROM orders",
            "SELECT pg_column_size(status) FROM orders",
            "SELECT pg_catalog.lower(status) FROM orders",
            "SELECT has_discount, to_char(amount, '999') FROM orders",
            "SELECT amount::numeric(10, 2), CAST(status AS varchar), 'regclass'::text AS regclass FROM orders"})
    void shouldAcceptPgFunctionsOfTheirArgumentsAlone(String sql) throws SqlRejection {
        parse(Dialect.POSTGRES, sql);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT in_file('root:x:0:0:root:/root:/bin/bash', '/etc/passwd')",
            "SELECT in_file('x', '/dev/zero')",
            "SELECT * FROM get_splits('SELECT * FROM secret', 1)",
            "SELECT get_splits('SELECT * FROM secret', 1)",
            "SELECT get_sql_schema('SELECT * FROM secret')",
            "SELECT try_reflect('java.lang.Runtime', 'getRuntime')",
            "SELECT input_file_name() FROM orders",
            "SELECT current_user()",
            "SELECT `in_file`('x', '/etc/hosts')"})
    void shouldRefuseHiveAndSparkFunctionsThatReadServerFilesOrRunCode(String sql) {
        for (Dialect d : List.of(Dialect.HIVE, Dialect.SPARKSQL)) {
            SqlRejection r = refused(d, sql);
            assertEquals(ErrorCategory.READ_ONLY_VIOLATION, r.category(), d + ": " + sql + " → " + r.getMessage());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!' RLIKE '(.*a){12}$'",
            "SELECT * FROM orders WHERE comment REGEXP '(a+)+b'",
            "SELECT regexp_extract(comment, '(x|x)*y', 0) FROM orders",
            "SELECT regexp_replace(comment, '(\\\\w+\\\\s?)*$', '') FROM orders",
            "SELECT split(comment, '(a*)*') FROM orders",
            "SELECT comment rlike '^(([a-z])+.)+[A-Z]([a-z])+$' FROM orders",
            "SELECT comment RLIKE '(.*)(.*)(.*)(.*)(.*)x' FROM orders",
            "SELECT comment RLIKE '(a)\\\\1' FROM orders"})
    void shouldRefuseBacktrackingRegexOnEnginesThatCannotInterruptThem(String sql) {
        for (Dialect d : List.of(Dialect.HIVE, Dialect.SPARKSQL)) {
            assertEquals(ErrorCategory.READ_ONLY_VIOLATION, refused(d, sql).category(), d + ": " + sql);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT * FROM orders WHERE comment RLIKE '^[a-z]+ing$'",
            "SELECT regexp_extract(comment, '([0-9]+)-([0-9]+)', 1) FROM orders",
            "SELECT * FROM orders WHERE comment LIKE '%(a+)+%'",
            "SELECT '(a+)+' AS not_a_regex FROM orders"})
    void shouldAcceptLinearRegexAndLookAlikes(String sql) throws SqlRejection {
        for (Dialect d : List.of(Dialect.HIVE, Dialect.SPARKSQL)) parse(d, sql);
    }

    @Test
    void shouldRefuseEveryRegexWhenTheDatasourceSaysSo() {
        assertNotNull(RegexPolicy.violation("SELECT a RLIKE '^x$' FROM t", Dialect.HIVE, RegexPolicy.Mode.REFUSED));
        assertNull(RegexPolicy.violation("SELECT a RLIKE '(a+)+' FROM t", Dialect.HIVE, RegexPolicy.Mode.ALLOWED));
        assertNull(RegexPolicy.violation("SELECT a ~ '(a+)+' FROM t", Dialect.POSTGRES, RegexPolicy.Mode.CHECKED),
                "RE2 and PostgreSQL's engine are interruptible");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT * FROM TABLE(exclude_columns(input => TABLE(secret), columns => DESCRIPTOR(id)))",
            "SELECT * FROM TABLE(exclude_columns(input => TABLE(tpch.tiny.secret), columns => DESCRIPTOR(id)))",
            "SELECT * FROM TABLE(exclude_columns(input => TABLE(SELECT * FROM secret), columns => DESCRIPTOR(id)))",
            "SELECT * FROM orders, TABLE(exclude_columns(input => TABLE(secret) PARTITION BY id, columns => DESCRIPTOR(id)))"})
    void shouldSeeTablesInsideTrinoTableFunctionArguments(String sql) throws SqlRejection {
        for (Dialect d : List.of(Dialect.TRINO, Dialect.PRESTO)) {
            ParsedQuery q = parse(d, sql);
            assertTrue(q.tables().stream().anyMatch(t -> t.last().equals("secret")), d + ": " + q.tables());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT * FROM orders o, LATERAL (SELECT * FROM secret s WHERE s.id = o.id) x",
            "SELECT * FROM unnest((SELECT array_agg(id) FROM secret))",
            "SELECT * FROM generate_series(1, (SELECT max(id) FROM secret))",
            "SELECT (SELECT max(id) FROM (SELECT * FROM (SELECT * FROM secret) a) b)",
            "SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM secret)"})
    void shouldSeeTablesInLateralAndNestedConstructs(String sql) throws SqlRejection {
        for (Dialect d : List.of(Dialect.POSTGRES, Dialect.DUCKDB)) {
            ParsedQuery q = parse(d, sql);
            assertTrue(q.tables().stream().anyMatch(t -> t.last().equals("secret")), d + ": " + q.tables());
        }
    }

    @Test
    void shouldReadACommentEndedByACarriageReturnAsTheEngineDoes() throws SqlRejection {
        for (Dialect d : List.of(Dialect.POSTGRES, Dialect.DUCKDB, Dialect.HIVE, Dialect.SPARKSQL, Dialect.TRINO)) {
            ParsedQuery q = parse(d, "SELECT 1 -- hidden?\r, s.id FROM secret s");
            assertTrue(q.tables().stream().anyMatch(t -> t.last().equals("secret")), d + ": " + q.tables());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"SELECT $$;$$", "SELECT $$it's$$", "SELECT $tag$ it's; 'quoted' $tag$ AS s",
            "SELECT length($x$a;b$x$)"})
    void shouldAcceptDollarQuotedStrings(String sql) throws SqlRejection {
        parse(Dialect.POSTGRES, sql);
    }

    @Test
    void shouldNotCallPostgresXmlSyntaxAFunction() throws SqlRejection {
        ParsedQuery q = parse(Dialect.POSTGRES, "SELECT xmlserialize(content xmlparse(document '<a>1</a>') AS text), length('x')");
        assertEquals(java.util.Set.of("length"), q.functions());
    }

    @Test
    void shouldRefuseDeepNestingAtOnceAndClearly() {
        String parens = "SELECT " + "(".repeat(5000) + "1" + ")".repeat(5000);
        refused(Dialect.POSTGRES, parens); // the first call loads the classes on its path: time the second
        long t0 = System.nanoTime();
        SqlRejection r = refused(Dialect.POSTGRES, parens);
        assertTrue((System.nanoTime() - t0) / 1_000_000 < 200, "refused without parsing");
        assertEquals(ErrorCategory.SYNTAX_ERROR, r.category());
        assertTrue(r.getMessage().contains("nests"), r.getMessage());
        String subqueries = "SELECT * FROM " + "(SELECT * FROM ".repeat(600) + "orders" + ") x".repeat(600);
        assertEquals(ErrorCategory.SYNTAX_ERROR, refused(Dialect.DUCKDB, subqueries).category());
        assertEquals(ErrorCategory.SYNTAX_ERROR, refused(Dialect.TRINO, subqueries).category());
    }

    @Test
    void shouldBoundScalarValueBuildersOnDuckDb() throws SqlRejection {
        assertEquals(ErrorCategory.TIMEOUT, refused(Dialect.DUCKDB, "SELECT range(150000000)").category());
        assertEquals(ErrorCategory.TIMEOUT, refused(Dialect.DUCKDB, "SELECT repeat('x', 2000000000)").category());
        assertEquals(ErrorCategory.TIMEOUT, refused(Dialect.DUCKDB, "SELECT range(o_orderkey) FROM orders").category());
        parse(Dialect.DUCKDB, "SELECT range(10)");
        parse(Dialect.DUCKDB, "SELECT * FROM range(150000000) t(i) LIMIT 5");
    }

    @ParameterizedTest
    @ValueSource(strings = {"PIVOT orders ON o_orderstatus USING count(*)",
            "SELECT * FROM (PIVOT orders ON o_orderstatus USING count(*))", "TABLE orders",
            "SELECT * FROM orders PIVOT (count(*) FOR o_orderstatus IN ('F', 'O'))"})
    void shouldSeeTheSourceOfPivotAndTableQueries(String sql) throws SqlRejection {
        assertEquals(List.of("orders"), parse(Dialect.DUCKDB, sql).tables().stream().map(ObjectName::last).toList(), sql);
    }

    @ParameterizedTest
    @ValueSource(strings = {"UNPIVOT orders ON o_totalprice INTO NAME k VALUE v", "FROM orders SELECT o_orderkey"})
    void shouldAgreeWithTheExecutorOnDuckDbStatementsItCannotRead(String sql) {
        SqlRejection r = refused(Dialect.DUCKDB, sql);
        assertTrue(r.category() == ErrorCategory.SYNTAX_ERROR || r.category() == ErrorCategory.READ_ONLY_VIOLATION, r.toString());
    }
}
