package dev.sqloop.executor;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.parse.RegexPolicy;
import dev.sqloop.parse.SideEffectPolicy;
import dev.sqloop.parse.SqlText;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The executor's own cheap check that a SQL text is one query, independent of the validator's parser
 * (defense in depth: a message that skipped validation still cannot write). It lexes just enough of the
 * dialect — comments, string literals, quoted identifiers, dollar quotes — to find statement separators
 * and bare keywords, then requires a single statement that starts with a query keyword and names no
 * data-changing keyword anywhere (data-modifying CTEs, {@code SELECT … INTO}, row locks).
 */
public final class ReadOnlyGuard {
    private static final Set<String> QUERY_STARTS = Set.of("SELECT", "WITH", "VALUES", "TABLE");
    private static final Set<String> WRITE_WORDS = Set.of("INSERT", "UPDATE", "DELETE", "MERGE", "UPSERT", "INTO",
            "DROP", "ALTER", "CREATE", "TRUNCATE", "GRANT", "REVOKE", "COPY", "ATTACH", "DETACH", "PRAGMA", "EXPORT",
            "INSTALL", "VACUUM", "CHECKPOINT", "REFRESH", "OVERWRITE");
    private static final Set<String> LOCK_WORDS = Set.of("SHARE", "KEY", "NO");
    /** Hive/Spark built-ins that call any static Java method inside the server: a query that can do anything. */
    private static final Set<String> JAVA_CALLS = Set.of("REFLECT", "REFLECT2", "JAVA_METHOD");

    /** Statement verbs that are not queries: a text starting with one is a read-only violation, not a typo. */
    private static final Set<String> COMMANDS = Set.of("INSERT", "UPDATE", "DELETE", "MERGE", "UPSERT", "REPLACE", "DROP",
            "ALTER", "CREATE", "TRUNCATE", "GRANT", "REVOKE", "COPY", "ATTACH", "DETACH", "PRAGMA", "SET", "RESET", "USE",
            "CALL", "EXPORT", "IMPORT", "INSTALL", "LOAD", "UNLOAD", "VACUUM", "ANALYZE", "EXPLAIN", "SHOW", "DESCRIBE",
            "DESC", "CHECKPOINT", "REFRESH", "COMMENT", "BEGIN", "START", "COMMIT", "ROLLBACK", "ABORT", "END", "LOCK",
            "EXECUTE", "PREPARE", "DEALLOCATE", "DO", "LISTEN", "NOTIFY", "REINDEX", "CLUSTER", "SUMMARIZE", "MSCK",
            "DISCARD", "SAVEPOINT", "RELEASE", "FROM", "PIVOT", "UNPIVOT", "SECURITY", "REASSIGN", "OPTIMIZE", "KILL");

    /**
     * The verdict: the query body (trailing {@code ;} removed), or why it is refused and as what:
     * {@code read_only_violation}, or {@code syntax_error} for text that is no statement at all ({@code SELEC …}).
     */
    public record Verdict(boolean allowed, String query, String reason, ErrorCategory category) {
        static Verdict allow(String query) {
            return new Verdict(true, query, null, null);
        }

        static Verdict refuse(String reason) {
            return new Verdict(false, null, reason, ErrorCategory.READ_ONLY_VIOLATION);
        }

        static Verdict malformed(String reason) {
            return new Verdict(false, null, reason, ErrorCategory.SYNTAX_ERROR);
        }
    }

    private ReadOnlyGuard() {}

    public static Verdict check(String sql, Dialect dialect) {
        return check(sql, dialect, RegexPolicy.Mode.CHECKED);
    }

    /** As {@link #check(String, Dialect)}, with the datasource's regex mode (Hive/Spark only). */
    public static Verdict check(String sql, Dialect dialect, RegexPolicy.Mode regex) {
        if (sql == null || sql.isBlank()) return Verdict.malformed("empty SQL");
        if (sql.length() > SqlText.MAX_CHARS) return Verdict.malformed("longer than " + SqlText.MAX_CHARS + " characters");
        String substituted = SqlText.substitution(sql, dialect);
        if (substituted != null) return Verdict.refuse(substituted);
        boolean clickHouse = dialect == Dialect.CLICKHOUSE;
        // ClickHouse reads \' in a string as a quote and `name` as a name, as Hive and Spark do; $tag$…$tag$ is its heredoc
        boolean backslashStrings = dialect == Dialect.HIVE || dialect == Dialect.SPARKSQL || clickHouse;
        boolean backticks = backslashStrings;
        boolean dollarQuotes = dialect == Dialect.POSTGRES || dialect == Dialect.DUCKDB || clickHouse;
        List<String> words = new ArrayList<>();
        // Hive's SELECT TRANSFORM(…) USING 'script' (also MAP/REDUCE … USING) runs a program on the server
        boolean usingScript = false;
        int end = -1; // index of the statement-ending ';'
        String previous = ""; // the last token outside comments and whitespace: a word upper-cased, or its first char
        int n = sql.length();
        int i = 0;
        while (i < n) {
            char c = sql.charAt(i);
            if (end >= 0 && !Character.isWhitespace(c) && !startsComment(sql, i)) {
                return Verdict.refuse("more than one statement");
            }
            if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                i = lineEnd(sql, i);
            } else if (clickHouse && c == '#') {
                // ClickHouse's lexer: "# " and "#!" start a comment to the end of the line, any other # is an error
                if (i + 1 < n && (sql.charAt(i + 1) == ' ' || sql.charAt(i + 1) == '!')) i = lineEnd(sql, i);
                else return Verdict.malformed("a # that starts no comment");
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                if (SqlText.readsHints(dialect) && sql.startsWith("/*+", i)) {
                    return Verdict.refuse("optimizer hints (/*+ … */) are not accepted: the engine reads them as instructions");
                }
                i = blockCommentEnd(sql, i);
                if (i == NESTED) return Verdict.refuse("nested /* comment: engines disagree on where it ends");
                if (i < 0) return Verdict.malformed("unterminated comment");
            } else if (c == '\'') {
                if (backslashStrings && previous.equals("USING")) usingScript = true;
                previous = "'";
                boolean escapes = backslashStrings || (dollarQuotes && i > 0 && (sql.charAt(i - 1) == 'e' || sql.charAt(i - 1) == 'E')
                        && (i < 2 || !isWordChar(sql.charAt(i - 2))));
                i = quoteEnd(sql, i, '\'', escapes);
                if (i < 0) return Verdict.malformed("unterminated string literal");
            } else if (c == '"' || (c == '`' && backticks)) {
                int start = i;
                if (c == '`' && fileDataSource(sql, i)) {
                    return Verdict.refuse("not read-only: a file data source used as a table reads files on the server");
                }
                i = quoteEnd(sql, i, c, backslashStrings && c == '"');
                if (i < 0) return Verdict.malformed("unterminated quoted identifier");
                // a quoted name is still a name: `reflect`(…) calls reflect, x::"regclass" casts (its case kept)
                String name = sql.substring(start + 1, i - 1);
                Verdict cast = ":".equals(previous) ? cast(name, afterDoubleColon(sql, start), dialect) : null;
                if (cast != null) return cast;
                previous = asciiUpper(name);
            } else if (c == '$' && dollarQuotes && SqlText.dollarTag(sql, i) != null) {
                String tag = SqlText.dollarTag(sql, i);
                int close = sql.indexOf(tag, i + tag.length());
                if (close < 0) return Verdict.malformed("unterminated dollar-quoted string");
                i = close + tag.length();
            } else if (c == ';') {
                end = i;
                previous = ";";
                i++;
            } else if (isWordStart(c)) {
                int s = i;
                while (i < n && isWordChar(sql.charAt(i))) i++;
                if (i - s == 1 && (c == 'U' || c == 'u') && sql.startsWith("&\"", i)) {
                    // PostgreSQL's U&"\0071uery_to_xml" is query_to_xml: a name this lexer cannot read as the engine does
                    return Verdict.refuse("a Unicode-escaped identifier (U&\"…\"): write the name plainly");
                }
                words.add(sql.substring(s, i));
                if (clickHouse) {
                    Verdict clause = clickHouseClause(asciiUpper(words.getLast()), sql, i);
                    if (clause != null) return clause;
                }
                Verdict cast = ":".equals(previous) ? cast(words.getLast().toLowerCase(java.util.Locale.ROOT), afterDoubleColon(sql, s), dialect) : null;
                if (cast != null) return cast;
                previous = asciiUpper(words.getLast());
            } else {
                if (c == '(' && backslashStrings && JAVA_CALLS.contains(previous)) {
                    return Verdict.refuse("not read-only: " + previous.toLowerCase(java.util.Locale.ROOT)
                            + "() calls any Java method inside the server");
                }
                if (c == '(' && SideEffectPolicy.isDenied(previous.toLowerCase(java.util.Locale.ROOT))) {
                    // the validator's list, applied to every name called: pg_catalog.query_to_xml( and "in_file"( too
                    return Verdict.refuse("not read-only: function " + previous.toLowerCase(java.util.Locale.ROOT)
                            + "() has side effects or reads outside the warehouse");
                }
                if (!Character.isWhitespace(c)) previous = String.valueOf(c);
                i++;
            }
        }
        if (words.isEmpty()) return Verdict.malformed("no statement");
        String first = asciiUpper(words.get(0));
        if (!QUERY_STARTS.contains(first) && !COMMANDS.contains(first)) {
            // still refused (fail closed), but named for what it is: no known statement at all
            return Verdict.malformed("not a statement: starts with " + words.get(0));
        }
        // DuckDB's PIVOT statement is a query (the validator walks its source like any FROM item)
        if (dialect == Dialect.DUCKDB && first.equals("PIVOT")) first = "SELECT";
        if (!QUERY_STARTS.contains(first)) {
            return Verdict.refuse("not a query: starts with " + words.get(0) + " (only SELECT, WITH, VALUES, TABLE run)");
        }
        if (usingScript) return Verdict.refuse("not read-only: TRANSFORM … USING runs a script on the server");
        String regexViolation = RegexPolicy.violation(sql, dialect, regex);
        if (regexViolation != null) return Verdict.refuse(regexViolation);
        for (int w = 0; w < words.size(); w++) {
            String word = asciiUpper(words.get(w));
            if (WRITE_WORDS.contains(word)) return Verdict.refuse("not read-only: contains " + word);
            if (word.equals("FOR") && w + 1 < words.size() && LOCK_WORDS.contains(asciiUpper(words.get(w + 1)))) {
                return Verdict.refuse("not read-only: row-locking clause FOR " + words.get(w + 1));
            }
        }
        return Verdict.allow(end < 0 ? sql : sql.substring(0, end));
    }

    /**
     * ClickHouse clauses that change how the engine runs the query or where its answer goes: {@code SETTINGS} (the
     * session's caps), {@code FORMAT} (the answer's format: sqloop reads its own) — the function {@code format(…)} stays
     * allowed. {@code INTO OUTFILE} is refused with the other writes ({@code INTO}).
     */
    private static Verdict clickHouseClause(String word, String sql, int after) {
        if (word.equals("SETTINGS")) return Verdict.refuse("not allowed: a SETTINGS clause changes the session's limits");
        if (word.equals("FORMAT")) {
            int j = after;
            while (j < sql.length() && Character.isWhitespace(sql.charAt(j))) j++;
            if (j >= sql.length() || sql.charAt(j) != '(') return Verdict.refuse("not allowed: a FORMAT clause (sqloop reads the answer itself)");
        }
        return null;
    }

    /** Spark/Hive {@code csv.`/path`}: a backtick name right after {@code <format>.} (blanks allowed around the dot). */
    private static boolean fileDataSource(String s, int i) {
        int j = i - 1;
        while (j >= 0 && Character.isWhitespace(s.charAt(j))) j--;
        if (j < 0 || s.charAt(j) != '.') return false;
        j--;
        while (j >= 0 && Character.isWhitespace(s.charAt(j))) j--;
        int end = j + 1;
        while (j >= 0 && isWordChar(s.charAt(j))) j--;
        return end > j + 1 && SideEffectPolicy.isFileFormat(s.substring(j + 1, end).toLowerCase(java.util.Locale.ROOT));
    }

    private static boolean startsComment(String s, int i) {
        return i + 1 < s.length() && ((s.charAt(i) == '-' && s.charAt(i + 1) == '-') || (s.charAt(i) == '/' && s.charAt(i + 1) == '*'));
    }

    /** A {@code --} comment ends at a line feed or a carriage return, on every engine's lexer. */
    private static int lineEnd(String s, int i) {
        while (i < s.length() && s.charAt(i) != '\n' && s.charAt(i) != '\r') i++;
        return i;
    }

    private static final int NESTED = -2;

    /**
     * Block comments nest in PostgreSQL, DuckDB and Spark but not in Trino or Hive, so a nested opener is refused
     * (as the validator does): {@code /* /* *}{@code / ; DROP …} ends at different places for different readers.
     */
    private static int blockCommentEnd(String s, int i) {
        int depth = 0;
        while (i < s.length() - 1) {
            if (s.charAt(i) == '/' && s.charAt(i + 1) == '*') {
                if (depth > 0) return NESTED;
                depth++;
                i += 2;
            } else if (s.charAt(i) == '*' && s.charAt(i + 1) == '/') {
                depth--;
                i += 2;
                if (depth == 0) return i;
            } else {
                i++;
            }
        }
        return -1;
    }

    /** Returns the index after the closing quote; a doubled quote is an escaped quote. */
    private static int quoteEnd(String s, int i, char q, boolean backslashEscapes) {
        i++;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (backslashEscapes && c == '\\') {
                i += 2;
            } else if (c == q) {
                if (i + 1 < s.length() && s.charAt(i + 1) == q) i += 2;
                else return i + 1;
            } else {
                i++;
            }
        }
        return -1;
    }

    /**
     * A type written after {@code ::}: the validator's refusals on the text — casts to object identifier types, and on
     * PostgreSQL to anything but a built-in type (a table's name is a type there, {@code NULL::secrets} reads its columns).
     * After a single {@code :} (an array slice, {@code a[1:n]}) the word is no type.
     */
    private static Verdict cast(String type, boolean doubleColon, Dialect dialect) {
        if (SideEffectPolicy.isCatalogType(type)) {
            return Verdict.refuse("not read-only: a cast to " + type + " looks objects up in the catalog");
        }
        if (doubleColon && !SideEffectPolicy.isBuiltInType(dialect, type)) {
            return Verdict.refuse("not read-only: a cast to " + type + ", which is not a built-in type (a table's name as a type"
                    + " reads its columns)");
        }
        return null;
    }

    /** Whether the token starting at {@code at} follows {@code ::} (blanks allowed between). */
    private static boolean afterDoubleColon(String sql, int at) {
        int j = at - 1;
        while (j >= 0 && Character.isWhitespace(sql.charAt(j))) j--;
        return j >= 1 && sql.charAt(j) == ':' && sql.charAt(j - 1) == ':';
    }

    private static boolean isWordStart(char c) {
        return Character.isLetter(c) || c == '_';
    }

    private static boolean isWordChar(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == '$';
    }

    /** Upper case for ASCII words only: engines read keywords in ASCII, so {@code ſelect} is no SELECT. */
    private static String asciiUpper(String word) {
        for (int k = 0; k < word.length(); k++) {
            if (word.charAt(k) > 127) return "";
        }
        return word.toUpperCase(java.util.Locale.ROOT);
    }
}
