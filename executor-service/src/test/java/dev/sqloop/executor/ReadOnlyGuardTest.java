package dev.sqloop.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.error.ErrorCategory;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ReadOnlyGuardTest {

    /** Write and evasion attempts: each must be refused before it reaches an engine. */
    static final List<String> WRITES = List.of(
            "INSERT INTO t VALUES (1)",
            "insert into t select * from t",
            "UPDATE t SET a = 1",
            "DELETE FROM t",
            "MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN DELETE",
            "DROP TABLE t",
            "drop table if exists t cascade",
            "ALTER TABLE t ADD COLUMN b int",
            "CREATE TABLE x AS SELECT 1",
            "CREATE TEMP TABLE x (a int)",
            "TRUNCATE t",
            "GRANT ALL ON t TO PUBLIC",
            "REVOKE SELECT ON t FROM reader",
            "COPY t TO '/tmp/x.csv'",
            "COPY (SELECT 1) TO '/tmp/x.csv'",
            "ATTACH 'other.db' AS o",
            "PRAGMA enable_profiling",
            "SET default_transaction_read_only = off",
            "CALL system.runtime.kill_query('x')",
            "EXPORT DATABASE '/tmp/x'",
            "VACUUM",
            "SELECT 1; DROP TABLE t",
            "SELECT 1; SELECT 2",
            "SELECT 1 -- \n; DROP TABLE t",
            "SELECT 1 /* ; */ ; DELETE FROM t",
            "SELECT * INTO newtable FROM t",
            "WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d",
            "WITH u AS (UPDATE t SET a = 1 RETURNING *) SELECT * FROM u",
            "WITH i AS (INSERT INTO t VALUES (1) RETURNING *) SELECT * FROM i",
            "SELECT * FROM t FOR UPDATE",
            "SELECT * FROM t FOR SHARE",
            "SELECT * FROM t FOR NO KEY UPDATE",
            "SELECT * FROM t FOR KEY SHARE",
            "/* hello */ DELETE FROM t",
            "-- comment\nDROP TABLE t",
            "(DELETE FROM t)",
            "sElEcT 1; dRoP tAbLe t",
            "ＳＥＬＥＣＴ 1",
            "\uFEFFDROP TABLE t",
            "EXPLAIN ANALYZE DELETE FROM t",
            "SHOW TABLES",
            "DESCRIBE t",
            "USE other",
            "LOAD httpfs",
            "INSTALL httpfs",
            "SELECT 'a'; DROP TABLE t; --'",
            "SELECT $$ ; $$; DROP TABLE t",
            "",
            "   ",
            "-- only a comment",
            "SELECT 'unterminated",
            "SELECT 1 /* unterminated");

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT TRANSFORM(id) USING 'touch /tmp/x' AS x FROM t",
            "SELECT TRANSFORM(id) USING /* c */ 'sh' FROM t",
            "SELECT reflect('java.lang.System', 'exit', 1)",
            "SELECT JAVA_METHOD('java.lang.System', 'setProperty', 'a', 'b')",
            "SELECT `reflect2`('x', 'hashCode') FROM t",
            "SELECT reflect /* c */ ('java.lang.Thread', 'sleep', 1L)"})
    void shouldRefuseHiveQueriesThatRunCodeOnTheServer(String sql) {
        for (Dialect d : List.of(Dialect.HIVE, Dialect.SPARKSQL)) {
            ReadOnlyGuard.Verdict v = ReadOnlyGuard.check(sql, d);
            assertFalse(v.allowed(), d + ": " + sql);
            assertEquals(ErrorCategory.READ_ONLY_VIOLATION, v.category(), sql);
        }
    }

    /** Issue 11's probe: each was allowed by the guard before. */
    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT 1 --\r; DROP TABLE orders",
            "SELECT 1 --\r; CREATE TEMP VIEW customer AS SELECT 1",
            "SELECT 1 /* /* */ ; DROP TABLE orders */",
            "SELECT query_to_xml('SELECT * FROM secrets', true, true, '')::text",
            "SELECT pg_catalog.table_to_xml('secrets', true, true, '')",
            "SELECT \"database_to_xml\"(true, true, '')",
            "SELECT * FROM ts_stat('SELECT v FROM secrets')",
            "SELECT set_config('search_path', 'x', false)",
            "SELECT pg_advisory_lock /* c */ (1)",
            "SELECT * FROM query('SELECT * FROM secrets')"})
    void shouldRefuseWhatTheOutsideProbeGotThrough(String sql) {
        for (Dialect d : List.of(Dialect.POSTGRES, Dialect.DUCKDB)) {
            ReadOnlyGuard.Verdict v = ReadOnlyGuard.check(sql, d);
            assertFalse(v.allowed(), d + ": " + sql);
            assertEquals(ErrorCategory.READ_ONLY_VIOLATION, v.category(), sql);
        }
    }

    /** Catalog reads by name or oid, past the allow-list: refused on the text alone, as the validator does on the tree. */
    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT pg_get_viewdef('secret_view'::regclass)",
            "SELECT \"pg_stat_get_live_tuples\"(16390)",
            "SELECT has_table_privilege('secrets', 'SELECT')",
            "SELECT i::regclass::text FROM generate_series(16384, 20000) i",
            "SELECT 'secrets' :: regclass",
            "SELECT 10::\"regrole\"",
            "SELECT regclass('secrets')"})
    void shouldRefuseCatalogReadsByNameOrNumber(String sql) {
        ReadOnlyGuard.Verdict v = ReadOnlyGuard.check(sql, Dialect.POSTGRES);
        assertFalse(v.allowed(), sql);
        assertEquals(ErrorCategory.READ_ONLY_VIOLATION, v.category(), sql);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT amount::numeric, status::text, pg_typeof(amount) FROM orders",
            "SELECT 'x'::text AS regclass, \"RegClass\" FROM orders",
            "SELECT regclass_name FROM orders"})
    void shouldLetCastsAndPureFunctionsThrough(String sql) {
        assertTrue(ReadOnlyGuard.check(sql, Dialect.POSTGRES).allowed(), sql);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT in_file('x', '/dev/zero')",
            "SELECT `in_file`('x', '/etc/passwd')",
            "SELECT get_splits('SELECT * FROM secret', 1)",
            "SELECT get_sql_schema('SELECT * FROM secret')",
            "SELECT try_reflect('java.lang.Runtime', 'getRuntime')",
            "SELECT input_file_name() FROM t",
            "SELECT * FROM csv.`/etc/passwd`",
            "SELECT * FROM json . `/data/x`",
            "SELECT 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!' RLIKE '(.*a){12}$'"})
    void shouldRefuseHiveAndSparkFilesSplitsAndBacktrackingRegex(String sql) {
        for (Dialect d : List.of(Dialect.HIVE, Dialect.SPARKSQL)) {
            assertFalse(ReadOnlyGuard.check(sql, d).allowed(), d + ": " + sql);
        }
    }

    @Test
    void shouldApplyTheDatasourcesRegexMode() {
        String linear = "SELECT a FROM t WHERE a RLIKE '^[a-z]+$'";
        assertTrue(ReadOnlyGuard.check(linear, Dialect.HIVE).allowed());
        assertFalse(ReadOnlyGuard.check(linear, Dialect.HIVE, dev.sqloop.parse.RegexPolicy.Mode.REFUSED).allowed());
        assertTrue(ReadOnlyGuard.check("SELECT a RLIKE '(a+)+' FROM t", Dialect.HIVE,
                dev.sqloop.parse.RegexPolicy.Mode.ALLOWED).allowed());
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT transform(tags, x -> upper(x)) FROM t JOIN u USING (id)",
            "SELECT 'reflect(1)' AS s, `reflect` FROM t",
            "SELECT a FROM t JOIN u USING (id) WHERE name = 'USING'"})
    void shouldLetLookAlikesOfThoseThrough(String sql) {
        assertTrue(ReadOnlyGuard.check(sql, Dialect.SPARKSQL).allowed(), sql);
    }

    @Test
    void shouldRefuseEveryWriteOrEvasion() {
        for (String sql : WRITES) {
            ReadOnlyGuard.Verdict v = ReadOnlyGuard.check(sql, Dialect.POSTGRES);
            assertFalse(v.allowed(), "allowed: " + sql);
            assertTrue(v.reason() != null && !v.reason().isBlank(), sql);
        }
        assertTrue(WRITES.size() >= 40, "the corpus keeps at least 40 variants");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT 1",
            "select a, b from t where c = 'delete from t; drop table x'",
            "WITH x AS (SELECT 1) SELECT * FROM x",
            "(SELECT 1) UNION (SELECT 2)",
            "VALUES (1), (2)",
            "TABLE t",
            "SELECT \"update\", \"into\" FROM t",
            "SELECT 1 -- trailing ; comment",
            "SELECT $$it's; fine$$",
            "SELECT E'it\\'s; fine'",
            "SELECT created_at, updated_by, deleted FROM t",
            "/* leading */ SELECT 1",
            "SELECT 1;",
            "SELECT 1 ;  -- done"})
    void shouldAllowPlainQueries(String sql) {
        assertTrue(ReadOnlyGuard.check(sql, Dialect.POSTGRES).allowed(), sql);
    }

    @Test
    void shouldCallAWriteAReadOnlyViolationAndGibberishASyntaxError() {
        assertEquals(ErrorCategory.READ_ONLY_VIOLATION, ReadOnlyGuard.check("DELETE FROM t", Dialect.TRINO).category());
        assertEquals(ErrorCategory.READ_ONLY_VIOLATION, ReadOnlyGuard.check("SELECT 1; SELECT 2", Dialect.TRINO).category());
        assertEquals(ErrorCategory.READ_ONLY_VIOLATION, ReadOnlyGuard.check("WITH d AS (DELETE FROM t RETURNING *) SELECT 1", Dialect.TRINO).category());
        assertEquals(ErrorCategory.SYNTAX_ERROR, ReadOnlyGuard.check("SELEC * FROM t", Dialect.TRINO).category());
        assertEquals(ErrorCategory.SYNTAX_ERROR, ReadOnlyGuard.check("SELECT 'oops", Dialect.TRINO).category());
        assertEquals(ErrorCategory.SYNTAX_ERROR, ReadOnlyGuard.check("", Dialect.TRINO).category());
    }

    @Test
    void shouldReturnTheQueryWithoutItsTrailingSemicolon() {
        assertEquals("SELECT 1 ", ReadOnlyGuard.check("SELECT 1 ;  -- done", Dialect.DUCKDB).query());
        assertEquals("SELECT 1", ReadOnlyGuard.check("SELECT 1", Dialect.DUCKDB).query());
    }

    @Test
    void shouldLexBackslashEscapesOnlyWhereTheDialectHasThem() {
        // In PostgreSQL '\' is a whole string, so the DROP is a second statement.
        assertFalse(ReadOnlyGuard.check("SELECT '\\'; DROP TABLE t; --'", Dialect.POSTGRES).allowed());
        // In Spark/Hive the backslash escapes the quote: one string literal, one statement.
        assertTrue(ReadOnlyGuard.check("SELECT '\\'; DROP TABLE t; --'", Dialect.SPARKSQL).allowed());
        assertFalse(ReadOnlyGuard.check("SELECT `a`; DROP TABLE t", Dialect.HIVE).allowed());
    }
}
