package dev.sqloop.common.sql;

import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Canonical text of a SQL statement for comparing attempts (the repair worker's retry guard): comments
 * removed, whitespace collapsed, case folded outside string literals and quoted identifiers, a trailing
 * semicolon dropped. Two statements that differ only in formatting normalize to the same text.
 */
public final class SqlNormalizer {
    private SqlNormalizer() {}

    public static String normalize(String sql) {
        if (sql == null) return "";
        List<SqlTokens.Token> tokens = SqlTokens.tokenize(sql);
        while (!tokens.isEmpty() && tokens.getLast().text().equals(";")) tokens.removeLast();
        return tokens.stream()
                .map(t -> t.foldable() ? t.text().toLowerCase(Locale.ROOT) : t.text())
                .collect(Collectors.joining(" "));
    }

    /** True when both are present and normalize to the same text. */
    public static boolean sameStatement(String a, String b) {
        return a != null && b != null && normalize(a).equals(normalize(b));
    }
}
