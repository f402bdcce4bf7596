package dev.sqloop.parse;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * What {@link ClickHouseAstParser} needs from the text itself, read with ClickHouse's lexical rules (strings with
 * backslash escapes, {@code `names`} and {@code "names"}, {@code --}, {@code #} and block comments): quoted names must be
 * plain words, because the {@code EXPLAIN AST} dump prints {@code `a.b`} and {@code a.b} alike; and the names of the
 * CTEs ({@code name AS (SELECT …)}) in document order, which the dump leaves out.
 */
final class ClickHouseNames {
    private ClickHouseNames() {}

    /** The CTE names in document order, lower case; a quoted name that is not a plain word is refused. */
    static List<String> check(String sql) throws SqlRejection {
        List<String> words = words(sql);
        List<String> ctes = new ArrayList<>();
        for (int k = 0; k + 3 < words.size(); k++) {
            if (words.get(k + 1).equals("as") && words.get(k + 2).equals("(")
                    && (words.get(k + 3).equals("select") || words.get(k + 3).equals("with") || words.get(k + 3).equals("from") || words.get(k + 3).equals("("))
                    && words.get(k).matches("[a-z_][a-z0-9_]*")) {
                ctes.add(words.get(k));
            }
        }
        return ctes;
    }

    /**
     * Whether the text uses a form JSqlParser parses into a wrong tree rather than refusing: a lambda ({@code x -> …},
     * read as a column x) or {@code ARRAY JOIN} (read as a join with a table named like the array).
     */
    static boolean misreadByJSqlParser(String sql) {
        List<String> words;
        try {
            words = words(sql);
        } catch (SqlRejection e) {
            return false;
        }
        for (int k = 0; k + 1 < words.size(); k++) {
            if (words.get(k).equals("-") && words.get(k + 1).equals(">")) return true;
            if (words.get(k).equals("array") && words.get(k + 1).equals("join")) return true;
        }
        return false;
    }

    /** Whether the text's first token is SELECT, WITH or an opening parenthesis. */
    static boolean startsLikeQuery(String sql) throws SqlRejection {
        List<String> words = words(sql);
        return !words.isEmpty() && Set.of("select", "with", "(").contains(words.getFirst());
    }

    /** Identifiers (lower case), quoted names, a ' per string literal and single-character tokens, in order. */
    private static List<String> words(String sql) throws SqlRejection {
        List<String> words = new ArrayList<>();
        int n = sql.length();
        int i = 0;
        while (i < n) {
            char c = sql.charAt(i);
            if (c == '\'') {
                i = skip(sql, i, '\'');
                words.add("'");
            } else if (c == '`' || c == '"') {
                int end = skip(sql, i, c);
                String name = sql.substring(i + 1, end - 1);
                if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
                    throw SqlRejection.syntax("quoted name " + sql.substring(i, end) + ": on clickhouse the validator reads quoted"
                            + " names that are plain words only (letters, digits, _); rename or alias it plainly");
                }
                words.add(name.toLowerCase(Locale.ROOT));
                i = end;
            } else if ((c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') || c == '#') {
                while (i < n && sql.charAt(i) != '\n' && sql.charAt(i) != '\r') i++;
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                int end = sql.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2;
            } else if (Character.isLetter(c) || c == '_') {
                int end = i;
                while (end < n && (Character.isLetterOrDigit(sql.charAt(end)) || sql.charAt(end) == '_' || sql.charAt(end) == '$')) end++;
                words.add(sql.substring(i, end).toLowerCase(Locale.ROOT));
                i = end;
            } else if (Character.isWhitespace(c)) {
                i++;
            } else {
                words.add(String.valueOf(c));
                i++;
            }
        }
        return words;
    }

    private static int skip(String sql, int start, char quote) throws SqlRejection {
        int i = start + 1;
        while (i < sql.length()) {
            char c = sql.charAt(i);
            if (c == '\\') {
                i += 2;
                continue;
            }
            if (c == quote) {
                if (i + 1 < sql.length() && sql.charAt(i + 1) == quote) {
                    i += 2;
                    continue;
                }
                return i + 1;
            }
            i++;
        }
        throw SqlRejection.syntax("unterminated " + quote + " quote starting at offset " + start);
    }
}
