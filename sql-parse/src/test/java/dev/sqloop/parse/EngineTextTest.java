package dev.sqloop.parse;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.error.ErrorCategory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What an engine does to a text before it parses it (Hive/Spark {@code ${…}} substitution and hints, PostgreSQL's
 * {@code U&"…"} names) and how much text any parser is asked to read: refused before the parser, on the text.
 */
class EngineTextTest {

    private static SqlRejection refused(Dialect d, String sql) {
        return assertThrows(SqlRejection.class, () -> DialectParsers.forDialect(d).parse(sql), () -> d + " accepted: " + sql);
    }

    @Test
    void shouldRefuseSubstitutionAnywhereInTheTextOnHiveAndSpark() {
        for (Dialect d : new Dialect[] {Dialect.HIVE, Dialect.SPARKSQL}) {
            for (String sql : new String[] {"SELECT '${env:HOME}'", "SELECT 1 -- ${system:line.separator}\n", "SELECT 1 /* ${x} */",
                    "SELECT `${x}` FROM t", "SELECT ${hivevar:col} FROM t"}) {
                SqlRejection r = refused(d, sql);
                assertEquals(ErrorCategory.READ_ONLY_VIOLATION, r.category(), sql);
                assertTrue(r.getMessage().contains("substitutes"), r.getMessage());
            }
        }
    }

    @Test
    void shouldKeepDollarBraceALiteralWhereNoEngineSubstitutes() {
        for (Dialect d : new Dialect[] {Dialect.POSTGRES, Dialect.DUCKDB, Dialect.TRINO}) {
            assertDoesNotThrow(() -> DialectParsers.forDialect(d).parse("SELECT '${not a variable}' AS v"), d::toString);
        }
    }

    @Test
    void shouldRefuseOptimizerHintsWhereTheEngineReadsThem() {
        assertTrue(refused(Dialect.SPARKSQL, "SELECT /*+ REPARTITION(100000) */ * FROM t").getMessage().contains("hints"));
        assertTrue(refused(Dialect.HIVE, "SELECT /*+ MAPJOIN(b) */ a.x FROM a JOIN b ON a.x = b.x").getMessage().contains("hints"));
        assertDoesNotThrow(() -> DialectParsers.forDialect(Dialect.TRINO).parse("SELECT /*+ a comment */ 1"));
        assertDoesNotThrow(() -> DialectParsers.forDialect(Dialect.SPARKSQL).parse("SELECT /* + not a hint */ 1"));
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void shouldRefuseUnicodeEscapedNamesOnEveryDialect(Dialect d) {
        assertEquals(ErrorCategory.READ_ONLY_VIOLATION, refused(d, "SELECT U&\"\\0071uery_to_xml\"('SELECT 1', true, true, '')").category());
        // a string literal with the same prefix is a value, not a name
        if (d == Dialect.POSTGRES || d == Dialect.TRINO) {
            assertDoesNotThrow(() -> DialectParsers.forDialect(d).parse("SELECT U&'d\\0061t\\+000061' AS s"), d::toString);
        }
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void shouldRefuseATextLongerThanTheLimitBeforeAnyParserReadsIt(Dialect d) {
        StringBuilder sql = new StringBuilder("SELECT 1 AS c0");
        for (int i = 1; sql.length() <= SqlText.MAX_CHARS; i++) sql.append(", ").append(i).append(" AS c").append(i);
        SqlRejection r = refused(d, sql.toString());
        assertEquals(ErrorCategory.SYNTAX_ERROR, r.category());
        assertTrue(r.getMessage().contains("at most " + SqlText.MAX_CHARS), r.getMessage());
        String within = sql.substring(0, sql.lastIndexOf(", ", SqlText.MAX_CHARS - 10));
        assertDoesNotThrow(() -> DialectParsers.forDialect(d).parse(within), d::toString);
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void shouldRefuseCaseExpressionsNestedBeyondTheDepthLimit(Dialect d) {
        assertEquals(ErrorCategory.SYNTAX_ERROR, refused(d, nestedCase(SqlText.MAX_DEPTH + 1)).category());
        assertDoesNotThrow(() -> DialectParsers.forDialect(d).parse(nestedCase(20)), d::toString);
    }

    @Test
    void shouldCountBracketsAsNesting() {
        String deep = "SELECT " + "[".repeat(SqlText.MAX_DEPTH + 1) + "1" + "]".repeat(SqlText.MAX_DEPTH + 1);
        assertEquals(ErrorCategory.SYNTAX_ERROR, refused(Dialect.DUCKDB, deep).category());
    }

    @Test
    void shouldAcceptCastsToBuiltInTypesOnly() {
        for (String sql : new String[] {"SELECT x::int, x::numeric(10, 2), x::double precision, x::text[], x::varchar(10) FROM t",
                "SELECT CAST(x AS timestamp with time zone), CAST(x AS character varying(5)), x::pg_catalog.int4 FROM t",
                "SELECT a[1:n] FROM t"}) {
            assertDoesNotThrow(() -> DialectParsers.forDialect(Dialect.POSTGRES).parse(sql), sql);
        }
        for (String sql : new String[] {"SELECT NULL::secrets", "SELECT CAST(NULL AS secrets)", "SELECT NULL::\"secrets\"",
                "SELECT row_to_json(NULL::probe.secrets)"}) {
            assertEquals(ErrorCategory.READ_ONLY_VIOLATION, refused(Dialect.POSTGRES, sql).category(), sql);
        }
    }

    static String nestedCase(int depth) {
        return "SELECT " + "CASE WHEN 1 = 1 THEN ".repeat(depth) + "1" + " ELSE 0 END".repeat(depth) + " AS x";
    }
}
