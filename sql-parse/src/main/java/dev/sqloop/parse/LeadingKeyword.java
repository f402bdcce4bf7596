package dev.sqloop.parse;

import dev.sqloop.common.sql.Typos;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The first keyword of a statement, skipping blanks, comments and opening parentheses. Used only to decide
 * whether a text the parser rejected was meant as a query (a syntax error to repair) or as another kind of
 * statement (a read-only violation): {@code PRAGMA}, {@code ATTACH}, {@code COPY} are not in every grammar.
 */
final class LeadingKeyword {
    private static final Set<String> QUERY_STARTS = Set.of("select", "with", "values", "from", "table");

    private LeadingKeyword() {}

    static String of(String sql) {
        int i = 0;
        int n = sql.length();
        while (i < n) {
            char c = sql.charAt(i);
            if (Character.isWhitespace(c) || c == '(') {
                i++;
            } else if (sql.startsWith("--", i)) {
                while (i < n && sql.charAt(i) != '\n') i++;
            } else if (sql.startsWith("/*", i)) {
                int end = sql.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2;
            } else {
                break;
            }
        }
        int start = i;
        while (i < n && (Character.isLetter(sql.charAt(i)) || sql.charAt(i) == '_')) i++;
        return sql.substring(start, i).toLowerCase(Locale.ROOT);
    }

    private static final Set<String> WRITE_WORDS = Set.of("insert", "update", "delete", "merge", "drop", "alter",
            "create", "truncate", "grant", "revoke", "into", "copy", "attach", "detach", "call");

    /** The first write keyword outside string literals, quoted identifiers and comments, or null. */
    static String writeKeyword(String sql) {
        int n = sql.length();
        int i = 0;
        while (i < n) {
            char c = sql.charAt(i);
            if (c == '\'' || c == '"' || c == '`') {
                int end = sql.indexOf(c, i + 1);
                i = end < 0 ? n : end + 1;
            } else if (sql.startsWith("--", i)) {
                while (i < n && sql.charAt(i) != '\n') i++;
            } else if (sql.startsWith("/*", i)) {
                int end = sql.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2;
            } else if (Character.isLetter(c) || c == '_') {
                int start = i;
                while (i < n && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '_')) i++;
                String word = sql.substring(start, i).toLowerCase(Locale.ROOT);
                if (WRITE_WORDS.contains(word)) return word;
            } else {
                i++;
            }
        }
        return null;
    }

    /** The query keyword a word is a slip of, or null. */
    static String misspeltQueryStart(String word) {
        return Typos.misspeltQueryKeyword(word);
    }

    static boolean startsQuery(String sql) {
        return QUERY_STARTS.contains(of(sql));
    }

    /** The rejection for a text the parser refused: read-only violation unless it starts like a query. */
    static SqlRejection rejectionFor(String sql, String parserMessage) {
        if (startsQuery(sql)) {
            // A query-shaped text with a write keyword in it (WITH … INSERT, UNION ALL DELETE, SELECT … INTO) is a
            // write attempt, not a typo: the repair prompt must say so.
            String write = writeKeyword(sql);
            if (write == null) return SqlRejection.syntax(parserMessage);
            return SqlRejection.readOnly(write.toUpperCase(Locale.ROOT) + " inside a query: only a single read-only query"
                    + " is allowed (" + parserMessage + ")", write);
        }
        String keyword = of(sql);
        String meant = misspeltQueryStart(keyword);
        if (meant != null && writeKeyword(sql) == null) {
            // SELEC / SLECT / WTIH: a query with a typo in its first keyword is a syntax error to repair, not a statement kind.
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?i)\\b" + keyword + "\\b").matcher(sql);
            String written = m.find() ? m.group() : keyword;
            return new SqlRejection(dev.sqloop.common.error.ErrorCategory.SYNTAX_ERROR, "'" + written
                    + "' is not a SQL keyword (did you mean " + meant.toUpperCase(Locale.ROOT) + "?): " + parserMessage, written);
        }
        return SqlRejection.readOnly((keyword.isEmpty() ? "statement" : keyword.toUpperCase(Locale.ROOT) + " statement")
                + " is not a query; only a single SELECT/WITH query is allowed", keyword);
    }
}
