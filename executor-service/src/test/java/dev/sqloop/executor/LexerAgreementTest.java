package dev.sqloop.executor;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.parse.DialectParsers;
import dev.sqloop.parse.SqlRejection;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * One lexer truth, tested differentially: thousands of texts built from comments, quotes, dollar quotes,
 * escapes, line endings and semicolons, and wherever the executor's guard and the validator's parser both give a
 * statement count, the counts must agree (one statement, or more than one). A text one of them refuses for
 * another reason (unterminated string, nested comment) has no count and is not compared.
 */
class LexerAgreementTest {
    private static final String[] PIECES = {" ", "x", "'", "''", "\"", "`", "\\", "--", "-- c", "/*", "*/", "\r", "\n",
            "\r\n", ";", "$$", "$a$", "E'", "e'", "U&'", " DROP TABLE t", " SELECT 2", "1", "$1", "é", "\t", "/* ; */"};
    private static final int TEXTS = 4000;

    enum Count { ONE, MANY, NONE }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void shouldCountStatementsAsTheValidatorDoes(Dialect dialect) {
        Random random = new Random(11L * (dialect.ordinal() + 1));
        List<String> disagreements = new ArrayList<>();
        int compared = 0;
        for (int n = 0; n < TEXTS; n++) {
            StringBuilder sql = new StringBuilder("SELECT 1 ");
            int len = 1 + random.nextInt(7);
            for (int k = 0; k < len; k++) sql.append(PIECES[random.nextInt(PIECES.length)]);
            String text = sql.toString();
            Count guard = guard(text, dialect);
            Count validator = validator(text, dialect);
            if (guard == Count.NONE || validator == Count.NONE) continue;
            compared++;
            if (guard != validator) disagreements.add(guard + " vs " + validator + ": " + escape(text));
        }
        assertTrue(disagreements.isEmpty(), dialect + ": the guard and the validator disagree on " + disagreements.size()
                + " of " + compared + " texts, e.g. " + disagreements.subList(0, Math.min(10, disagreements.size())));
        assertTrue(compared > TEXTS / 20, "too few comparable texts: " + compared);
    }

    private static Count guard(String sql, Dialect d) {
        ReadOnlyGuard.Verdict v = ReadOnlyGuard.check(sql, d);
        if (v.allowed()) return Count.ONE;
        return v.reason().contains("more than one statement") ? Count.MANY : Count.NONE;
    }

    private static Count validator(String sql, Dialect d) {
        try {
            DialectParsers.forDialect(d).parse(sql);
            return Count.ONE;
        } catch (SqlRejection r) {
            String m = r.getMessage();
            return m.contains("more than one statement") || m.contains("exactly one statement") ? Count.MANY : Count.NONE;
        }
    }

    private static String escape(String s) {
        return s.replace("\r", "\\r").replace("\n", "\\n").replace("\t", "\\t");
    }
}
