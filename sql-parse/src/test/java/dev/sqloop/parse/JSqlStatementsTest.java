package dev.sqloop.parse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.function.Consumer;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.parser.CCJSqlParser;
import net.sf.jsqlparser.parser.ParseException;
import net.sf.jsqlparser.statement.select.Select;
import org.junit.jupiter.api.Test;

class JSqlStatementsTest {
    private static final Consumer<CCJSqlParser> PLAIN = p -> p.withSquareBracketQuotation(false);

    @Test
    void shouldParseOnTheCallingThreadAndForgetTheParse() throws Exception {
        var statements = JSqlStatements.parse("SELECT a, count(*) FROM t WHERE b > 1 GROUP BY a", PLAIN, 2_000);
        assertEquals(1, statements.size());
        assertInstanceOf(Select.class, statements.getFirst());
        assertEquals(0, JSqlStatements.running());
    }

    @Test
    void shouldReportASyntaxErrorWithTheParsersOwnException() {
        JSQLParserException e = assertThrows(JSQLParserException.class, () -> JSqlStatements.parse("SELECT FROM WHERE", PLAIN, 2_000));
        assertInstanceOf(ParseException.class, e.getCause());
        assertTrue(e.getCause().getMessage().startsWith("Encountered"), e.getCause().getMessage());
        assertEquals(0, JSqlStatements.running());
    }

    @Test
    void shouldStopAParsePastItsLimitLongBeforeItWouldHaveEnded() throws Exception {
        StringBuilder sql = new StringBuilder("SELECT * FROM t WHERE a IN (0");
        for (int i = 1; i < 200_000; i++) sql.append(',').append(i);
        String text = sql.append(')').toString();
        long start = System.nanoTime();
        JSqlStatements.parse(text, PLAIN, 600_000);
        long whole = System.nanoTime() - start;

        start = System.nanoTime();
        assertThrows(JSqlStatements.TimedOut.class, () -> JSqlStatements.parse(text, PLAIN, 20));
        long stopped = System.nanoTime() - start;
        // the sweeper raised the parser's flag: it ended near its limit, not after the whole parse
        assertTrue(stopped < whole / 2, "stopped after " + stopped / 1_000_000 + " ms, the whole parse takes " + whole / 1_000_000 + " ms");
        assertEquals(0, JSqlStatements.running());
    }

    @Test
    void shouldRefuseEvenATreeThatCameBackAfterTheLimit() {
        // a limit of zero has passed by the time any parse returns: what the parser built then is not trusted
        assertThrows(JSqlStatements.TimedOut.class, () -> JSqlStatements.parse("SELECT 1", PLAIN, 0));
    }
}
