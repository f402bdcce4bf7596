package dev.sqloop.validator.parse;

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

    static boolean startsQuery(String sql) {
        return QUERY_STARTS.contains(of(sql));
    }

    /** The rejection for a text the parser refused: read-only violation unless it starts like a query. */
    static SqlRejection rejectionFor(String sql, String parserMessage) {
        if (startsQuery(sql)) return SqlRejection.syntax(parserMessage);
        String keyword = of(sql);
        return SqlRejection.readOnly((keyword.isEmpty() ? "statement" : keyword.toUpperCase(Locale.ROOT) + " statement")
                + " is not a query; only a single SELECT/WITH query is allowed", keyword);
    }
}
