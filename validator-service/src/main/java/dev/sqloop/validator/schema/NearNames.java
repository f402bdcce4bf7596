package dev.sqloop.validator.schema;

import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/** "Did you mean": the names closest to a misspelt one, by case-insensitive edit distance. */
public final class NearNames {
    private static final int MAX_CANDIDATES = 5;

    private NearNames() {}

    public static List<String> of(String wanted, Collection<String> pool) {
        String w = wanted.toLowerCase(Locale.ROOT);
        List<String> sameIgnoringCase = pool.stream().distinct().filter(n -> n.equalsIgnoreCase(wanted)).toList();
        if (!sameIgnoringCase.isEmpty()) return sameIgnoringCase;
        int budget = w.length() <= 3 ? 1 : Math.max(2, w.length() / 3);
        record Scored(String name, int score) {}
        return pool.stream().distinct()
                .map(n -> {
                    String l = n.toLowerCase(Locale.ROOT);
                    int d = distance(w, l);
                    // A containment ("status" in "order_status") is as useful as a small typo.
                    if (d > budget && w.length() >= 3 && (l.contains(w) || w.contains(l) && l.length() >= 3)) d = budget;
                    return new Scored(n, d);
                })
                .filter(s -> s.score() <= budget)
                .sorted(Comparator.comparingInt(Scored::score).thenComparing(Scored::name))
                .limit(MAX_CANDIDATES)
                .map(Scored::name)
                .toList();
    }

    /** Levenshtein distance with transpositions counted as one edit (optimal string alignment). */
    static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) d[i][0] = i;
        for (int j = 0; j <= b.length(); j++) d[0][j] = j;
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }
}
