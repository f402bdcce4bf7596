package dev.sqloop.common.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class GoldSqlTest {
    @Test
    void shouldExpandColumnChoicesAndAcceptEveryQuery() {
        assertEquals(List.of("SELECT a FROM t", "SELECT b FROM t"), GoldSql.forms("SELECT {a, b} FROM t"));
        assertEquals(List.of("SELECT id FROM t GROUP BY id", "SELECT name FROM t GROUP BY name"),
                GoldSql.forms("SELECT {id,name} FROM t GROUP BY {}"), "{} repeats the choice made before it");
        assertEquals(List.of("SELECT a, c", "SELECT a, d", "SELECT b, c", "SELECT b, d"), GoldSql.forms("SELECT {a,b}, {c,d}"));
        assertEquals(List.of("SELECT 1", "SELECT ';' AS x"), GoldSql.forms("SELECT 1; SELECT ';' AS x;"));
        assertEquals("SELECT a FROM t", GoldSql.first("SELECT {a,b} FROM t"));
    }

    @Test
    void shouldGiveNothingForABlankGold() {
        assertEquals(List.of(), GoldSql.forms(" ; "));
        assertEquals("", GoldSql.first(""));
    }
}
