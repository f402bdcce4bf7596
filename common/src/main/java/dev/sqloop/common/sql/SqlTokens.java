package dev.sqloop.common.sql;

import java.util.ArrayList;
import java.util.List;

/**
 * A small lexical view of SQL, shared by {@link SqlNormalizer} and {@link SqlDiff}: string literals and quoted
 * identifiers stay whole, comments are dropped, everything else splits into words, numbers and symbols.
 * It is not a parser; it only needs to be good enough to compare two attempts of the same query.
 */
public final class SqlTokens {
    /** One token; {@code foldable} is false for string literals and quoted identifiers, whose case matters. */
    public record Token(String text, boolean foldable) {}

    private SqlTokens() {}

    public static List<Token> tokenize(String sql) {
        List<Token> out = new ArrayList<>();
        if (sql == null) return out;
        int n = sql.length();
        int i = 0;
        while (i < n) {
            char c = sql.charAt(i);
            int commentEnd = commentEnd(sql, i);
            if (Character.isWhitespace(c)) {
                i++;
            } else if (commentEnd >= 0) {
                i = commentEnd;
            } else if (c == '\'' || c == '"' || c == '`') {
                int end = closing(sql, i, c);
                out.add(new Token(sql.substring(i, end), false));
                i = end;
            } else if (Character.isLetterOrDigit(c) || c == '_' || c == '$') {
                int start = i;
                while (i < n && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '_' || sql.charAt(i) == '$')) i++;
                out.add(new Token(sql.substring(start, i), true));
            } else {
                int len = i + 1 < n && isTwoCharOperator(c, sql.charAt(i + 1)) ? 2 : 1;
                out.add(new Token(sql.substring(i, i + len), true));
                i += len;
            }
        }
        return out;
    }

    /**
     * The index of the first {@code ;} outside string literals, quoted identifiers and comments (where one statement
     * ends), or -1 when there is none.
     */
    public static int firstSemicolon(String sql) {
        int n = sql.length();
        int i = 0;
        while (i < n) {
            char c = sql.charAt(i);
            int commentEnd = commentEnd(sql, i);
            if (commentEnd >= 0) i = commentEnd;
            else if (c == '\'' || c == '"' || c == '`') i = closing(sql, i, c);
            else if (c == ';') return i;
            else i++;
        }
        return -1;
    }

    /** When a comment starts at {@code i}, the index just after it (its line, or its closing star-slash); else -1. */
    private static int commentEnd(String sql, int i) {
        int n = sql.length();
        if (i + 1 >= n) return -1;
        if (sql.charAt(i) == '-' && sql.charAt(i + 1) == '-') {
            int end = sql.indexOf('\n', i);
            return end < 0 ? n : end;
        }
        if (sql.charAt(i) == '/' && sql.charAt(i + 1) == '*') {
            int end = sql.indexOf("*/", i + 2);
            return end < 0 ? n : end + 2;
        }
        return -1;
    }

    /** Index just after the quote closing the literal opened at {@code start}; doubled quotes are escapes. */
    private static int closing(String sql, int start, char quote) {
        int i = start + 1;
        while (i < sql.length()) {
            if (sql.charAt(i) == quote) {
                if (i + 1 < sql.length() && sql.charAt(i + 1) == quote) {
                    i += 2;
                    continue;
                }
                return i + 1;
            }
            i++;
        }
        return sql.length(); // unterminated: the rest is the literal
    }

    private static boolean isTwoCharOperator(char a, char b) {
        String s = "" + a + b;
        return s.equals("<=") || s.equals(">=") || s.equals("<>") || s.equals("!=") || s.equals("||") || s.equals("::");
    }
}
