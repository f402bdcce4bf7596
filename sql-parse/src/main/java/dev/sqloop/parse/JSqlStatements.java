package dev.sqloop.parse;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.parser.CCJSqlParser;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.parser.feature.Feature;
import net.sf.jsqlparser.statement.Statements;

/**
 * JSqlParser's {@code parseStatements} on the calling thread, within a time limit. {@code CCJSqlParserUtil} enforces
 * its limit by running each parse on an executor thread and waiting for it: two thread hand-offs per parse, which on
 * this project's queries cost as much CPU as the parse itself (the validator and the executor parse every attempt).
 * Here the parse runs where it is called, and one sweeper thread raises the parser's own {@code interrupted} flag —
 * which its lookahead loops check — once a parse is past its limit. A parse that ran past the limit is refused
 * whatever it returned, as {@code CCJSqlParserUtil}'s caller stops waiting at the limit. The order is the library's:
 * the simple grammar first, the complex one only when that fails and the text nests no deeper than the parser allows.
 */
public final class JSqlStatements {
    /** The parse ran past its limit. */
    public static final class TimedOut extends Exception {
        TimedOut(long limitMillis) {
            super("the parse took longer than " + limitMillis + " ms", null, false, false);
        }
    }

    /** How often the sweeper looks; a parse is stopped at most this late. */
    static final long SWEEP_MILLIS = 50;

    /** One parse in progress (identity: a parser does not define equality). */
    private static final class Running {
        final CCJSqlParser parser;
        final long deadline;

        Running(CCJSqlParser parser, long deadline) {
            this.parser = parser;
            this.deadline = deadline;
        }
    }

    private static final Set<Running> RUNNING = ConcurrentHashMap.newKeySet();

    static {
        Thread.ofPlatform().daemon().name("sqloop-parse-deadlines").start(JSqlStatements::sweep);
    }

    private JSqlStatements() {}

    /**
     * The statements of {@code sql}, parsed on this thread with the settings {@code configure} applies.
     *
     * @throws JSQLParserException the text does not parse (its cause is the parser's exception)
     * @throws TimedOut the parse ran past {@code limitMillis}
     */
    public static Statements parse(String sql, Consumer<CCJSqlParser> configure, long limitMillis) throws JSQLParserException, TimedOut {
        CCJSqlParser simple = CCJSqlParserUtil.newParser(sql);
        configure.accept(simple);
        boolean complexAllowed = simple.getAsBoolean(Feature.allowComplexParsing);
        int nesting = simple.getAsInt(Feature.allowedNestingDepth);
        try {
            return run(simple.withAllowComplexParsing(false), limitMillis);
        } catch (JSQLParserException e) {
            if (!complexAllowed || (nesting >= 0 && CCJSqlParserUtil.getNestingDepth(sql) > nesting)) throw e;
        }
        CCJSqlParser complex = CCJSqlParserUtil.newParser(sql);
        configure.accept(complex);
        return run(complex.withAllowComplexParsing(true), limitMillis);
    }

    private static Statements run(CCJSqlParser parser, long limitMillis) throws JSQLParserException, TimedOut {
        long start = System.nanoTime();
        long limit = TimeUnit.MILLISECONDS.toNanos(limitMillis);
        Running running = new Running(parser, start + limit);
        RUNNING.add(running);
        Statements statements = null;
        Exception failure = null;
        try {
            statements = parser.Statements();
        } catch (Exception e) {
            // ParseException, and the parser's runtime failures (TokenMgrException, a bug), as CCJSqlParserUtil wraps them
            failure = e;
        } finally {
            RUNNING.remove(running);
        }
        // past the limit, neither a tree nor an error is the text's: the flag may have cut a lookahead short
        if (parser.interrupted || System.nanoTime() - start > limit) throw new TimedOut(limitMillis);
        if (failure != null) throw new JSQLParserException(failure);
        return statements;
    }

    private static void sweep() {
        while (true) {
            try {
                Thread.sleep(SWEEP_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
            long now = System.nanoTime();
            for (Running r : RUNNING) {
                if (now - r.deadline >= 0) r.parser.interrupted = true;
            }
        }
    }

    /** Parses in progress (tests). */
    static int running() {
        return RUNNING.size();
    }
}
