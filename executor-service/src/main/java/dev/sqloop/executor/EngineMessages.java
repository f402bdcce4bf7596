package dev.sqloop.executor;

import java.io.EOFException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Text helpers shared by the engine classifiers: trimming engine messages and pulling names out of them. */
final class EngineMessages {
    static final int MAX_MESSAGE = 2000;
    private static final Pattern DOUBLE_QUOTED = Pattern.compile("\"([^\"]+)\"");
    private static final Pattern SINGLE_QUOTED = Pattern.compile("'([^']+)'");
    private static final Pattern BACKTICKED = Pattern.compile("`([^`]+)`");

    private EngineMessages() {}

    /** "line N" with an optional column: "line N:M" (Trino, Hive), "line N pos M" / "(line N, pos M)" (Spark). */
    private static final Pattern LINE = Pattern.compile("(?i)\\b(line )(\\d+)(?:(:| pos |, pos )(\\d+))?");
    private static final Pattern PG_POSITION = Pattern.compile("(Position: )(\\d+)");

    /**
     * The positions in {@code message} as they are in the SQL the author wrote, not in the text the executor ran
     * ({@code prefix} in front of it: the row-limit wrapper, Trino's {@code EXPLAIN (TYPE VALIDATE) }): an LLM told
     * "line 2" or "column 32" about its one-line query repairs the wrong place. Lines move up by the prefix's line
     * breaks; a column on the author's first line moves left by what the prefix put before it on that line.
     * Covers "line N:M" (Trino, Hive), "line N pos M" (Spark), "LINE N:" (DuckDB, PostgreSQL) and PostgreSQL's
     * character "Position: N".
     */
    static String positionsBefore(String message, String prefix) {
        if (message == null || prefix.isEmpty()) return message;
        int lines = (int) prefix.chars().filter(ch -> ch == '\n').count();
        int firstLineShift = prefix.length() - (prefix.lastIndexOf('\n') + 1);
        int chars = prefix.length();
        String out = LINE.matcher(message).replaceAll(m -> {
            int n = Integer.parseInt(m.group(2));
            String line = m.group(1) + (n > lines ? n - lines : n);
            if (m.group(4) == null) return Matcher.quoteReplacement(line);
            int column = Integer.parseInt(m.group(4));
            boolean shifted = n == lines + 1 && column > firstLineShift;
            return Matcher.quoteReplacement(line + m.group(3) + (shifted ? column - firstLineShift : column));
        });
        return PG_POSITION.matcher(out).replaceAll(m -> {
            int n = Integer.parseInt(m.group(2));
            return Matcher.quoteReplacement(m.group(1) + (n > chars ? n - chars : n));
        });
    }

    /** The message without a server stack trace (Spark sends ~70 lines of it), bounded in length. */
    static String clean(SQLException e) {
        String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return cutStack(m);
    }

    static String cutStack(String m) {
        int at = m.indexOf("\n\tat ");
        if (at >= 0) m = m.substring(0, at);
        m = m.strip();
        return m.length() > MAX_MESSAGE ? m.substring(0, MAX_MESSAGE) + "…" : m;
    }

    /**
     * Whether the failure is about reaching the engine, not about the SQL: pool timeouts, SQLSTATE class 08,
     * the driver's connection exception types, or a network exception anywhere in the cause chain.
     */
    static boolean isConnectionFailure(SQLException e) {
        if (e instanceof SQLTransientConnectionException || e instanceof SQLNonTransientConnectionException
                || e instanceof SQLRecoverableException) {
            return true;
        }
        String state = e.getSQLState();
        if (state != null && state.startsWith("08")) return true;
        for (Throwable t = e.getCause(); t != null && t != t.getCause(); t = t.getCause()) {
            if (t instanceof ConnectException || t instanceof NoRouteToHostException || t instanceof UnknownHostException
                    || t instanceof EOFException || (t instanceof SocketException) || isNetworkTimeout(t)) {
                return true;
            }
        }
        return false;
    }

    private static boolean isNetworkTimeout(Throwable t) {
        return t instanceof java.net.SocketTimeoutException;
    }

    static List<String> doubleQuoted(String text) {
        return all(DOUBLE_QUOTED, text);
    }

    static List<String> singleQuoted(String text) {
        return all(SINGLE_QUOTED, text);
    }

    static List<String> backticked(String text) {
        return all(BACKTICKED, text);
    }

    static String firstDoubleQuoted(String text) {
        List<String> q = doubleQuoted(text);
        return q.isEmpty() ? null : q.get(0);
    }

    static String group(Pattern p, String text) {
        Matcher m = p.matcher(text);
        return m.find() ? m.group(1) : null;
    }

    /** The text of the first line that starts with {@code label} (after indentation), without the label. */
    static String line(String text, String label) {
        for (String l : text.split("\n")) {
            String s = l.strip();
            if (s.startsWith(label)) return s.substring(label.length()).strip();
        }
        return null;
    }

    private static List<String> all(Pattern p, String text) {
        List<String> out = new ArrayList<>();
        if (text == null) return out;
        Matcher m = p.matcher(text);
        while (m.find()) out.add(m.group(1));
        return out;
    }
}
