package dev.sqloop.common.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Token-level difference between two SQL statements (previous attempt → this attempt), in a compact text form
 * for the attempt log: {@code changed 'id' → 'product_id'; added 'group by region'}. Case, whitespace and
 * comments are ignored, as in {@link SqlNormalizer}.
 */
public final class SqlDiff {
    /** Beyond this many tokens per side the LCS table gets large; the diff then reports a rewrite. */
    private static final int MAX_TOKENS = 1500;
    private static final int MAX_HUNKS = 6;
    private static final int MAX_HUNK_CHARS = 80;

    /** One contiguous edit: tokens removed from the previous SQL and tokens added in the new one. */
    public record Hunk(String removed, String added) {
        public String describe() {
            if (removed.isEmpty()) return "added '" + clip(added) + "'";
            if (added.isEmpty()) return "removed '" + clip(removed) + "'";
            return "changed '" + clip(removed) + "' → '" + clip(added) + "'";
        }
    }

    private SqlDiff() {}

    public static List<Hunk> hunks(String previous, String current) {
        List<String> a = words(previous);
        List<String> b = words(current);
        if (a.size() > MAX_TOKENS || b.size() > MAX_TOKENS) {
            return a.equals(b) ? List.of() : List.of(new Hunk(String.join(" ", a), String.join(" ", b)));
        }
        int[][] lcs = new int[a.size() + 1][b.size() + 1];
        for (int i = a.size() - 1; i >= 0; i--) {
            for (int j = b.size() - 1; j >= 0; j--) {
                lcs[i][j] = a.get(i).equals(b.get(j)) ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
            }
        }
        List<Hunk> hunks = new ArrayList<>();
        List<String> removed = new ArrayList<>();
        List<String> added = new ArrayList<>();
        int i = 0;
        int j = 0;
        while (i < a.size() || j < b.size()) {
            if (i < a.size() && j < b.size() && a.get(i).equals(b.get(j))) {
                flush(hunks, removed, added);
                i++;
                j++;
            } else if (j < b.size() && (i == a.size() || lcs[i][j + 1] >= lcs[i + 1][j])) {
                added.add(b.get(j++));
            } else {
                removed.add(a.get(i++));
            }
        }
        flush(hunks, removed, added);
        return hunks;
    }

    /** The compact form: {@code new} without a previous SQL, {@code unchanged} when equal after normalization. */
    public static String compact(String previous, String current) {
        if (previous == null) return "new";
        List<Hunk> hunks = hunks(previous, current);
        if (hunks.isEmpty()) return "unchanged";
        StringBuilder sb = new StringBuilder();
        for (int k = 0; k < Math.min(hunks.size(), MAX_HUNKS); k++) {
            if (k > 0) sb.append("; ");
            sb.append(hunks.get(k).describe());
        }
        if (hunks.size() > MAX_HUNKS) sb.append("; … ").append(hunks.size() - MAX_HUNKS).append(" more");
        return sb.toString();
    }

    private static void flush(List<Hunk> hunks, List<String> removed, List<String> added) {
        if (removed.isEmpty() && added.isEmpty()) return;
        hunks.add(new Hunk(String.join(" ", removed), String.join(" ", added)));
        removed.clear();
        added.clear();
    }

    private static List<String> words(String sql) {
        List<String> out = new ArrayList<>();
        List<SqlTokens.Token> tokens = SqlTokens.tokenize(sql);
        while (!tokens.isEmpty() && tokens.getLast().text().equals(";")) tokens.removeLast();
        for (SqlTokens.Token t : tokens) out.add(t.foldable() ? t.text().toLowerCase(Locale.ROOT) : t.text());
        return out;
    }

    private static String clip(String s) {
        return s.length() <= MAX_HUNK_CHARS ? s : s.substring(0, MAX_HUNK_CHARS - 1) + "…";
    }
}
