package dev.sqloop.parse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.parse.SqlCorpus;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ReadOnlyCorpusTest {
    private static final Set<ErrorCategory> STOPPED = Set.of(ErrorCategory.READ_ONLY_VIOLATION, ErrorCategory.SYNTAX_ERROR, ErrorCategory.TIMEOUT);

    static Stream<Arguments> evasions() {
        return SqlCorpus.load(SqlCorpus.EVASIONS).stream().map(c -> Arguments.of(c.dialect(), c.sql(), c.why(), c.expect()));
    }

    static Stream<Arguments> legitimate() {
        return SqlCorpus.load(SqlCorpus.LEGITIMATE).stream().map(c -> Arguments.of(c.dialect(), c.sql(), c.why()));
    }

    @ParameterizedTest(name = "[{index}] {0}: {2}")
    @MethodSource("evasions")
    void shouldStopEveryWriteOrEvasionVariant(Dialect dialect, String sql, String why, String expect) {
        SqlRejection r = assertThrows(SqlRejection.class, () -> DialectParsers.forDialect(dialect).parse(sql),
                () -> why + " was accepted by " + dialect + ": " + sql);
        assertTrue(STOPPED.contains(r.category()), () -> r.category() + " " + r.getMessage());
        assertEquals(expect, r.category().wireName(), r::getMessage);
    }

    @ParameterizedTest(name = "[{index}] {0}: {1}")
    @MethodSource("legitimate")
    void shouldAcceptEveryLegitimateReadQuery(Dialect dialect, String sql, String why) throws SqlRejection {
        ParsedQuery q = DialectParsers.forDialect(dialect).parse(sql);
        assertEquals(dialect, q.dialect());
    }

    @Test
    void shouldKeepAtLeastFortyEvasionsAndTwentyLegitimateQueriesPerFamily() {
        List<SqlCorpus.Case> evasions = SqlCorpus.load(SqlCorpus.EVASIONS);
        assertTrue(evasions.stream().map(SqlCorpus.Case::sql).distinct().count() >= 40);
        List<SqlCorpus.Case> legit = SqlCorpus.load(SqlCorpus.LEGITIMATE);
        for (Dialect d : Dialect.values()) {
            assertTrue(legit.stream().filter(c -> c.dialect() == d).count() >= 20, d.wireName());
        }
    }

    @Test
    void shouldReportDataModifyingCteAsReadOnlyViolation() {
        SqlRejection r = assertThrows(SqlRejection.class, () -> DialectParsers.forDialect(Dialect.POSTGRES)
                .parse("WITH d AS (DELETE FROM orders RETURNING *) SELECT * FROM d"));
        assertEquals(ErrorCategory.READ_ONLY_VIOLATION, r.category());
    }

    @Test
    void shouldReportSelectIntoAsReadOnlyViolation() {
        SqlRejection r = assertThrows(SqlRejection.class, () -> DialectParsers.forDialect(Dialect.DUCKDB)
                .parse("SELECT * INTO copy FROM orders"));
        assertEquals(ErrorCategory.READ_ONLY_VIOLATION, r.category());
    }
}
