package dev.sqloop.parse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.error.ErrorCategory;
import org.junit.jupiter.api.Test;

class SqlTextTest {

    @Test
    void shouldStripExactlyOneTrailingSemicolon() throws SqlRejection {
        assertEquals("SELECT 1", SqlText.precheck("  SELECT 1 ;  \n", Dialect.TRINO));
        assertEquals(ErrorCategory.READ_ONLY_VIOLATION,
                assertThrows(SqlRejection.class, () -> SqlText.precheck("SELECT 1;;", Dialect.TRINO)).category());
    }

    @Test
    void shouldAllowACommentAfterTheFinalSemicolon() throws SqlRejection {
        assertEquals("SELECT 1", SqlText.precheck("SELECT 1; -- done", Dialect.DUCKDB));
    }

    @Test
    void shouldAllowNonAsciiInsideLiteralsAndQuotedIdentifiers() throws SqlRejection {
        String sql = "SELECT \"prénom\" FROM t WHERE city = 'Zürich'";
        assertEquals(sql, SqlText.precheck(sql, Dialect.POSTGRES));
    }

    @Test
    void shouldReadBackslashAsAnEscapeOnlyInHiveAndSpark() throws SqlRejection {
        String sql = "SELECT 'a\\' ; DELETE FROM t; --'";
        assertEquals(sql, SqlText.precheck(sql, Dialect.SPARKSQL));
        assertThrows(SqlRejection.class, () -> SqlText.precheck(sql, Dialect.POSTGRES));
    }

    @Test
    void shouldHonourBackslashEscapesInPostgresEscapeStrings() throws SqlRejection {
        String sql = "SELECT E'it\\'s; fine'";
        assertEquals(sql, SqlText.precheck(sql, Dialect.POSTGRES));
    }

    @Test
    void shouldRejectAZeroWidthCharacterOutsideLiterals() {
        SqlRejection r = assertThrows(SqlRejection.class, () -> SqlText.precheck("SELECT\u200b 1", Dialect.TRINO));
        assertEquals("U+200B", r.identifier());
    }

    @Test
    void shouldReportAnUnterminatedStringAsASyntaxError() {
        assertEquals(ErrorCategory.SYNTAX_ERROR,
                assertThrows(SqlRejection.class, () -> SqlText.precheck("SELECT 'abc", Dialect.DUCKDB)).category());
    }
}
