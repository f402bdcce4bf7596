package dev.sqloop.common.sql;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * A cheap lexical check that a text is one read-only query, for refusing obviously wrong input early (a curator
 * pasting an {@code INSERT} as an example) with a clear reason. It is not the validator and not a security boundary:
 * any SQL an example contributes is parsed and checked again by the validator and the executor before it runs.
 */
public final class QueryCheck {
    private static final Set<String> QUERY_STARTS = Set.of("select", "with", "values", "table", "from");
    /** Keywords that make a statement write, lock or reach outside the query (as bare words, not quoted names). */
    private static final Set<String> NOT_IN_A_QUERY = Set.of("insert", "update", "delete", "merge", "upsert", "drop", "create",
            "alter", "truncate", "grant", "revoke", "copy", "call", "exec", "execute", "attach", "detach", "install",
            "pragma", "vacuum", "into");

    private QueryCheck() {}

    /** Why {@code sql} is not one read-only query, or empty when it looks like one. */
    public static Optional<String> whyNotAQuery(String sql) {
        List<SqlTokens.Token> tokens = SqlTokens.tokenize(sql);
        while (!tokens.isEmpty() && tokens.getLast().text().equals(";")) tokens.removeLast();
        if (tokens.isEmpty()) return Optional.of("it holds no statement (only whitespace or comments)");
        int first = 0;
        while (first < tokens.size() && tokens.get(first).text().equals("(")) first++;
        String start = first < tokens.size() ? word(tokens.get(first)) : "";
        if (!QUERY_STARTS.contains(start)) {
            String found = tokens.get(Math.min(first, tokens.size() - 1)).text();
            return Optional.of("it must be a query starting with SELECT, WITH, VALUES, TABLE or FROM, not "
                    + (found.chars().allMatch(Character::isLetter) ? found.toUpperCase(Locale.ROOT) : "'" + found + "'"));
        }
        for (SqlTokens.Token t : tokens) {
            if (t.text().equals(";")) return Optional.of("it holds more than one statement");
            String w = word(t);
            if (NOT_IN_A_QUERY.contains(w)) return Optional.of("a read-only query has no " + w.toUpperCase(Locale.ROOT));
        }
        return Optional.empty();
    }

    private static String word(SqlTokens.Token t) {
        return t.foldable() ? t.text().toLowerCase(Locale.ROOT) : "";
    }
}
