package dev.sqloop.validator.schema;

import dev.sqloop.common.sql.Typos;
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
                    int d = Typos.distanceAtMost(w, l, budget);
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
}
