package dev.sqloop.common.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

class IdentifiersTest {

    /** Names a query must quote are shown quoted: the model copies the name it is shown. */
    @Test
    void shouldWriteANameAsTheEngineReadsIt() {
        java.util.function.UnaryOperator<String> dq = dev.sqloop.common.Dialect.POSTGRES::quote;
        assertEquals("orders", Identifiers.written("orders", true, dq));
        assertEquals("\"Album\"", Identifiers.written("Album", true, dq), "PostgreSQL folds Album to album");
        assertEquals("Album", Identifiers.written("Album", false, dq), "DuckDB, Trino, Hive ignore the case");
        assertEquals("\"user\"", Identifiers.written("user", false, dq), "a reserved word");
        assertEquals("\"order items\"", Identifiers.written("order items", false, dq));
        assertEquals("`date`", Identifiers.written("date", false, dev.sqloop.common.Dialect.HIVE::quote));
        assertEquals("\"say \"\"hi\"\"\"", Identifiers.written("say \"hi\"", false, dq), "a quote in it doubled");
    }

    @Test
    void shouldFoldOnlyAsciiLettersOfAnUnquotedNameAsPostgresDoes() {
        assertEquals("album", Identifiers.foldUnquoted("ALBUM"));
        assertEquals("Ärger_x", Identifiers.foldUnquoted("ÄRGER_X"));
        String same = "already_lower";
        assertSame(same, Identifiers.foldUnquoted(same));
    }
}
