package dev.sqloop.testkit.llm;

import java.util.Arrays;
import java.util.List;

/**
 * The mistakes the oracle makes on a first attempt. The {@linkplain #classic() classic} kinds make up every default mix
 * (the demo's, {@link OracleResponder#uniformMix()}); the {@linkplain #signal() signal} kinds (issue 46: another
 * dialect's constructs, aggregates and window functions in WHERE, a join on the wrong key) are opt-in, so a run that
 * does not ask for them injects exactly what it did before they existed.
 */
public enum Fault {
    WRONG_COLUMN,
    WRONG_TABLE,
    MISSING_GROUP_BY,
    FOREIGN_FUNCTION,
    TYPE_MISMATCH,
    SYNTAX_SLIP,
    /** The first keyword misspelt ({@code SELEC …}): still SQL in shape, a syntax error to the parser. */
    KEYWORD_TYPO,
    WRITE_STATEMENT,
    PROSE,
    /** Answers the gold SQL at once. */
    NONE,
    /** SQL Server's {@code SELECT TOP n} for the gold's trailing {@code LIMIT n}. */
    FOREIGN_TOP(true),
    /** MySQL's backtick quotes on a column, or SQL Server's {@code [brackets]} where backticks are the dialect's own. */
    FOREIGN_QUOTING(true),
    /** MySQL's {@code IFNULL} (Oracle's {@code NVL} where the dialect has IFNULL) around the gold's first SUM/AVG/COALESCE. */
    FOREIGN_NULL_FUNCTION(true),
    /** MySQL's {@code DATE_FORMAT} where the dialect lacks it, else SQL Server's {@code GETDATE()}. */
    FOREIGN_DATE_FUNCTION(true),
    /** MySQL's {@code LIMIT offset, count} for the gold's trailing {@code LIMIT n}; Hive's own syntax, so not made there. */
    FOREIGN_LIMIT_OFFSET(true),
    /** The gold's HAVING condition (or {@code COUNT(*) > 0} on a grouping gold) written in WHERE. */
    AGGREGATE_IN_WHERE(true),
    /** The gold's {@code ORDER BY k LIMIT n} written as {@code WHERE ROW_NUMBER() OVER (ORDER BY k) <= n}. */
    WINDOW_IN_WHERE(true),
    /**
     * An id column of a join's ON compared with a non-id column of the same table the SQL also uses: the query runs and
     * returns no rows. No engine or validator error; only the empty answer says something is wrong.
     */
    SILENT_JOIN(true),
    /**
     * Issue 50's silent mistake, opt-in per candidate ({@link OracleResponder#withSilentVariants},
     * {@link OracleResponder#withSilentCandidates}): plausible SQL that runs and returns another answer — a comparison
     * bound off by one, a filter dropped, SUM for AVG, the sort reversed before a LIMIT, LIMIT one short, a join on the
     * wrong key. No error anywhere; only comparing candidates' results can tell. In neither the classic nor the signal mix.
     */
    SILENT_VARIANT(false, true);

    private final boolean signal;
    private final boolean candidate;

    Fault() {
        this(false, false);
    }

    Fault(boolean signal) {
        this(signal, false);
    }

    Fault(boolean signal, boolean candidate) {
        this.signal = signal;
        this.candidate = candidate;
    }

    /** Whether this kind is one of issue 46's opt-in faults. */
    public boolean isSignal() {
        return signal;
    }

    /** The kinds every default mix draws from (NONE included), in declaration order. */
    public static List<Fault> classic() {
        return Arrays.stream(values()).filter(f -> !f.signal && !f.candidate).toList();
    }

    /** Issue 46's opt-in kinds, in declaration order. */
    public static List<Fault> signal() {
        return Arrays.stream(values()).filter(f -> f.signal).toList();
    }
}
