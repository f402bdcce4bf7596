package dev.sqloop.common.sql;

import java.util.List;

/**
 * Slips of the keyboard: the edit distance the validator uses for "did you mean" names, and the misspelt query
 * keyword ({@code SELEC}, {@code WTIH}) that both the generator's guardrails and the parser read as an attempted
 * statement — a syntax error with its token, never "prose".
 */
public final class Typos {
    /** The words a read-only query starts with. */
    public static final List<String> QUERY_KEYWORDS = List.of("select", "with", "values");

    private Typos() {}

    /**
     * The query keyword {@code word} (lower case) is a slip of — at most one edit for short keywords, two for longer
     * ones, with the same first or second letter — or null (also for the keyword itself).
     */
    public static String misspeltQueryKeyword(String word) {
        if (word.length() < 3) return null;
        for (String k : QUERY_KEYWORDS) {
            int edits = k.length() <= 4 ? 1 : 2;
            if (!word.equals(k) && (word.charAt(0) == k.charAt(0) || word.charAt(1) == k.charAt(1))
                    && distanceAtMost(word, k, edits) <= edits) {
                return k;
            }
        }
        return null;
    }

    /**
     * {@link #distance}, or {@code max + 1} when it is certainly more than {@code max}: strings whose lengths differ
     * by more than {@code max} are never compared. The validator asks this of every literal against every known value
     * of a column, where almost all lengths differ (it was a fifth of the validator's CPU in the pipeline benchmark).
     */
    public static int distanceAtMost(String a, String b, int max) {
        int n = a.length();
        int m = b.length();
        if (Math.abs(n - m) > max) return max + 1;
        if (max < 0) return 0;
        // Only cells within max of the diagonal can lead to a distance of at most max (each step off it costs an
        // edit), and once a whole row is over max the rest is too: O(max × length), not O(length²), which is what
        // the validator needs for every literal against every known value of a column.
        int over = max + 1;
        int[] before = new int[m + 1];
        int[] previous = new int[m + 1];
        int[] current = new int[m + 1];
        for (int j = 0; j <= m; j++) previous[j] = Math.min(j, over);
        for (int i = 1; i <= n; i++) {
            int from = Math.max(1, i - max);
            int to = Math.min(m, i + max);
            java.util.Arrays.fill(current, over);
            if (i <= max) current[0] = i;
            int rowMin = current[0];
            for (int j = from; j <= to; j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                int d = Math.min(Math.min(previous[j] + 1, current[j - 1] + 1), previous[j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d = Math.min(d, before[j - 2] + 1);
                }
                current[j] = Math.min(d, over);
                rowMin = Math.min(rowMin, current[j]);
            }
            if (rowMin > max) return over;
            int[] t = before;
            before = previous;
            previous = current;
            current = t;
        }
        return previous[m];
    }

    /**
     * Optimal-string-alignment distance: Levenshtein with a transposition counted as one edit. The band of
     * {@link #distanceAtMost} as wide as the longer string is the whole table, and no row can exceed it.
     */
    public static int distance(String a, String b) {
        return distanceAtMost(a, b, Math.max(a.length(), b.length()));
    }
}
