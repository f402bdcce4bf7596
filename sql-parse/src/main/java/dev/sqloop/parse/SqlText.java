package dev.sqloop.parse;

import dev.sqloop.common.Dialect;

/**
 * A lexical pre-pass run before any parser, independent of it: it knows each dialect's string and comment
 * rules, rejects characters a parser and an engine could read differently (non-ASCII outside string literals
 * and quoted identifiers, control characters, Unicode line separators inside comments), rejects text after a
 * statement-ending {@code ;} (stacked statements), and returns the SQL with one trailing {@code ;} removed.
 *
 * <p>Why its own lexer: Postgres and DuckDB read {@code 'a\'} as a complete string while a parser that honours
 * backslash escapes reads on, so {@code SELECT 'a\' ; DELETE FROM t; --'} looks like one SELECT to it.
 */
public final class SqlText {

    /** Deeper nesting than any real query needs; the parsers' cost grows steeply beyond it. */
    public static final int MAX_DEPTH = 100;
    /**
     * The longest SQL text accepted, on every dialect: ~30x the longest gold query, and a bound on what any parser may
     * be asked to read (20,000 CTEs in 598 kB cost Trino's parser 63 s; docs/measurements/parsing.md has the figures).
     */
    public static final int MAX_CHARS = 32_768;

    private SqlText() {}

    /**
     * {@code $$} or {@code $tag$} at {@code i} (PostgreSQL/DuckDB dollar quoting), or null: a tag is an
     * identifier without {@code $}, and {@code $1} is a parameter.
     */
    public static String dollarTag(String s, int i) {
        int j = i + 1;
        if (j < s.length() && s.charAt(j) == '$') return "$$";
        if (j >= s.length() || !(Character.isLetter(s.charAt(j)) || s.charAt(j) == '_')) return null;
        while (j < s.length() && (Character.isLetterOrDigit(s.charAt(j)) || s.charAt(j) == '_')) j++;
        return j < s.length() && s.charAt(j) == '$' ? s.substring(i, j + 1) : null;
    }

    /**
     * Dollar-quoted strings rewritten as standard {@code '…'} literals with the same value: JSqlParser reads
     * {@code $$…$$} but not {@code $tag$…$tag$} with a quote or semicolon inside. Standard strings in PostgreSQL
     * and DuckDB take backslashes literally, so doubling the quotes is the whole translation.
     */
    private static String standardStrings(String body, java.util.List<int[]> spans) {
        StringBuilder out = new StringBuilder(body.length() + 8);
        int at = 0;
        for (int[] span : spans) {
            if (span[0] >= body.length()) break;
            out.append(body, at, span[0]);
            String content = body.substring(span[0] + span[2], span[1] - span[2]);
            out.append('\'').append(content.replace("'", "''")).append('\'');
            at = span[1];
        }
        out.append(body, at, body.length());
        return out.toString();
    }

    private static boolean isIdentifierChar(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == '$';
    }

    /** The SQL with surrounding blanks and one trailing semicolon removed, or a rejection. */
    public static String precheck(String sql, Dialect dialect) throws SqlRejection {
        if (sql == null || sql.isBlank()) throw SqlRejection.syntax("empty SQL");
        if (sql.length() > MAX_CHARS) {
            throw SqlRejection.syntax("the query is " + sql.length() + " characters long; at most " + MAX_CHARS
                    + " are accepted: write it more simply");
        }
        String substituted = substitution(sql, dialect);
        if (substituted != null) throw SqlRejection.readOnly(substituted, "${");
        boolean clickHouse = dialect == Dialect.CLICKHOUSE;
        // ClickHouse: backslash escapes in strings, `names` and "names", $tag$ heredocs (as the executor's guard reads it)
        boolean backslashEscapes = dialect == Dialect.HIVE || dialect == Dialect.SPARKSQL || clickHouse;
        boolean doubleQuotedStrings = dialect == Dialect.HIVE || dialect == Dialect.SPARKSQL;
        boolean backtickNames = backslashEscapes;
        boolean dollarQuotes = dialect == Dialect.POSTGRES || dialect == Dialect.DUCKDB || clickHouse;
        int depth = 0;
        java.util.List<int[]> dollarStrings = new java.util.ArrayList<>();
        java.util.List<Integer> crEndsComment = new java.util.ArrayList<>();
        int n = sql.length();
        int endOfStatement = -1;
        int i = 0;
        while (i < n) {
            char c = sql.charAt(i);
            // after the statement-ending ';' only blanks and comments may follow: a quote there opens a second statement
            boolean commentStart = i + 1 < n && ((c == '-' && sql.charAt(i + 1) == '-') || (c == '/' && sql.charAt(i + 1) == '*'));
            if (endOfStatement >= 0 && !Character.isWhitespace(c) && c != ';' && !commentStart) {
                throw SqlRejection.readOnly("more than one statement: text follows ';' at offset " + endOfStatement,
                        snippet(sql, i));
            }
            if (c == '\'' || (c == '"' && doubleQuotedStrings)) {
                i = skipQuoted(sql, i, c, backslashEscapes || isEscapeStringPrefix(sql, i, dialect));
                continue;
            }
            if (c == '"' || (c == '`' && backtickNames)) {
                i = skipQuoted(sql, i, c, false);
                continue;
            }
            if (c == '$' && dollarQuotes && (i == 0 || !isIdentifierChar(sql.charAt(i - 1)))) {
                String tag = dollarTag(sql, i);
                if (tag != null) {
                    int close = sql.indexOf(tag, i + tag.length());
                    if (close < 0) throw SqlRejection.syntax("unterminated dollar-quoted string starting at offset " + i);
                    dollarStrings.add(new int[] {i, close + tag.length(), tag.length()});
                    i = close + tag.length();
                    continue;
                }
            }
            if ((c == 'U' || c == 'u') && i + 2 < n && sql.charAt(i + 1) == '&' && sql.charAt(i + 2) == '"'
                    && (i == 0 || !isIdentifierChar(sql.charAt(i - 1)))) {
                throw SqlRejection.readOnly(UNICODE_NAME, "U&");
            }
            if (Character.isLetter(c) && (i == 0 || !isIdentifierChar(sql.charAt(i - 1)))) {
                int end = i;
                while (end < n && isIdentifierChar(sql.charAt(end))) end++;
                // CASE … END nests without parentheses: Trino's parser took 55 s on 5,000 nested CASEs
                if (end - i == 4 && sql.regionMatches(true, i, "CASE", 0, 4) && ++depth > MAX_DEPTH) throw tooDeep();
                if (end - i == 3 && sql.regionMatches(true, i, "END", 0, 3)) depth--;
                for (int k = i; k < end; k++) requireSafeCodeChar(sql, k);
                if (clickHouse) clickHouseClause(sql, i, end);
                i = end;
                continue;
            }
            if (c == '[' && ++depth > MAX_DEPTH) throw tooDeep();
            if (c == ']') depth--;
            if (c == '(' && ++depth > MAX_DEPTH) {
                // JSqlParser would spend its whole timeout (or the stack) on it: refuse at once, clearly
                throw tooDeep();
            }
            if (c == ')') depth--;
            if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                int end = i;
                while (end < n && sql.charAt(end) != '\n' && sql.charAt(end) != '\r') end++;
                requireAsciiComment(sql, i, end);
                // every engine ends the comment at a CR; JSqlParser only at a LF, so it would read on
                if (end < n && sql.charAt(end) == '\r') crEndsComment.add(end);
                i = end;
                continue;
            }
            if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                int end = sql.indexOf("*/", i + 2);
                if (end < 0) throw SqlRejection.syntax("unterminated /* comment at offset " + i);
                // Postgres nests block comments, most others do not: a nested opener could hide a statement.
                if (sql.substring(i + 2, end).contains("/*")) {
                    throw SqlRejection.readOnly("nested /* comment: engines disagree on where it ends", "/*");
                }
                if (readsHints(dialect) && i + 2 < n && sql.charAt(i + 2) == '+') {
                    throw SqlRejection.readOnly(HINTS, "/*+");
                }
                requireAsciiComment(sql, i, end);
                i = end + 2;
                continue;
            }
            if (c == ';') {
                if (endOfStatement >= 0) throw SqlRejection.readOnly("more than one statement: a second ';'", ";");
                endOfStatement = i;
                i++;
                continue;
            }
            if (endOfStatement >= 0 && !Character.isWhitespace(c)) {
                throw SqlRejection.readOnly("more than one statement: text follows ';' at offset " + endOfStatement,
                        snippet(sql, i));
            }
            requireSafeCodeChar(sql, i);
            i++;
        }
        String body = endOfStatement >= 0 ? sql.substring(0, endOfStatement) : sql;
        if (!crEndsComment.isEmpty()) {
            char[] chars = body.toCharArray();
            for (int at : crEndsComment) if (at < chars.length) chars[at] = '\n';
            body = new String(chars);
        }
        if (!dollarStrings.isEmpty()) body = standardStrings(body, dollarStrings);
        if (body.isBlank()) throw SqlRejection.syntax("empty SQL");
        return body.strip();
    }

    static final String HINTS = "optimizer hints (/*+ … */) are not accepted: the engine reads them as instructions, not comments";
    static final String UNICODE_NAME = "Unicode-escaped identifier (U&\"…\"): write the name plainly";

    private static SqlRejection tooDeep() {
        return SqlRejection.syntax("the query nests parentheses, brackets, subqueries or CASE expressions more than " + MAX_DEPTH
                + " levels deep; write it more simply");
    }

    /**
     * ClickHouse clauses refused wherever they stand outside literals and comments, as the executor's guard refuses
     * them: {@code SETTINGS} changes the session's caps for the query (max_execution_time = 0), {@code FORMAT x} the
     * answer's format; the function {@code format(…)} stays allowed. JSqlParser reads a SETTINGS clause without
     * keeping it in the tree, so the word itself is the check.
     */
    private static void clickHouseClause(String sql, int start, int end) throws SqlRejection {
        String word = sql.substring(start, end);
        if (word.equalsIgnoreCase("SETTINGS")) {
            throw SqlRejection.readOnly("a SETTINGS clause is not accepted on clickhouse: it changes the session's limits", word);
        }
        if (word.equalsIgnoreCase("FORMAT")) {
            int j = end;
            while (j < sql.length() && Character.isWhitespace(sql.charAt(j))) j++;
            if (j >= sql.length() || sql.charAt(j) != '(') {
                throw SqlRejection.readOnly("a FORMAT clause is not accepted on clickhouse: sqloop reads the answer itself", word);
            }
        }
    }

    /** Whether the engine reads {@code /*+ … *}{@code /} as optimizer hints (Spark's REPARTITION(n) sets the work of a query). */
    public static boolean readsHints(Dialect dialect) {
        return dialect == Dialect.HIVE || dialect == Dialect.SPARKSQL;
    }

    /**
     * Why {@code sql} is refused because the engine substitutes variables in its text before parsing it, or null.
     * HiveServer2 and the Spark Thrift Server replace {@code ${…}} anywhere in the text — inside literals and comments
     * too — so the text they parse is not the one checked: {@code -- ${system:line.separator}} ends a comment early and
     * {@code '${env:HOME}'} reads the server's environment. Sessions have substitution off as well (ReadOnlyJdbc).
     */
    public static String substitution(String sql, Dialect dialect) {
        if ((dialect != Dialect.HIVE && dialect != Dialect.SPARKSQL) || !sql.contains("${")) return null;
        return "'${' is not accepted on " + dialect.wireName() + ": the engine substitutes ${…} variables in the text before"
                + " it parses it (write the value itself)";
    }

    private static boolean isEscapeStringPrefix(String sql, int quote, Dialect dialect) {
        // Postgres/DuckDB E'...' strings honour backslash escapes; standard strings do not.
        if (quote == 0 || (dialect != Dialect.POSTGRES && dialect != Dialect.DUCKDB)) return false;
        char p = sql.charAt(quote - 1);
        boolean prefixed = p == 'e' || p == 'E';
        return prefixed && (quote == 1 || !isIdentifierChar(sql.charAt(quote - 2)));
    }

    private static int skipQuoted(String sql, int start, char quote, boolean backslashEscapes) throws SqlRejection {
        int n = sql.length();
        int i = start + 1;
        while (i < n) {
            char c = sql.charAt(i);
            if (backslashEscapes && c == '\\') {
                i += 2;
                continue;
            }
            if (c == quote) {
                if (i + 1 < n && sql.charAt(i + 1) == quote) {
                    i += 2;
                    continue;
                }
                return i + 1;
            }
            i++;
        }
        throw SqlRejection.syntax("unterminated " + quote + " quote starting at offset " + start);
    }

    private static void requireAsciiComment(String sql, int from, int to) throws SqlRejection {
        for (int i = from; i < to; i++) {
            char c = sql.charAt(i);
            if (c > 126 || (c < 32 && c != '\t' && c != '\n' && c != '\r')) {
                throw SqlRejection.readOnly("character " + codePoint(c) + " inside a comment: engines disagree on where such comments end",
                        codePoint(c));
            }
        }
    }

    private static void requireSafeCodeChar(String sql, int i) throws SqlRejection {
        char c = sql.charAt(i);
        if (c <= 126 && (c >= 32 || c == '\t' || c == '\n' || c == '\r')) return;
        throw SqlRejection.readOnly("character " + codePoint(c) + " outside a string literal or quoted identifier"
                + " (look-alike, zero-width or control characters are not accepted)", codePoint(c));
    }

    private static String codePoint(char c) {
        return String.format("U+%04X", (int) c);
    }

    private static String snippet(String sql, int from) {
        return sql.substring(from, Math.min(sql.length(), from + 30)).strip();
    }
}
