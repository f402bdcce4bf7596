package dev.sqloop.testkit.llm;

import java.util.Collection;
import java.util.Locale;

/** Finds which known question a prompt is about: the longest known question its user message contains. */
final class Questions {
    private Questions() {}

    static String identify(Collection<String> known, String userMessage) {
        String haystack = squash(userMessage);
        String best = null;
        for (String q : known) {
            if (haystack.contains(squash(q)) && (best == null || q.length() > best.length())) best = q;
        }
        return best;
    }

    static String squash(String s) {
        return s == null ? "" : s.replaceAll("\\s+", " ").strip().toLowerCase(Locale.ROOT);
    }

    /**
     * {@link #identify} over a fixed set of known questions in time that does not grow with the set: each question is
     * found by its first {@link #KEY} squashed characters at every position of the message (shorter questions are
     * scanned as before). A batch of 100,000 distinct questions made the scan 100,000 regular expressions per call.
     */
    static final class Index {
        static final int KEY = 12;

        /** A known question, squashed, and its place in the known order (the scan's tie-break). */
        private record Entry(String squashed, String question, int order) {}

        private final java.util.Map<String, java.util.List<Entry>> byPrefix = new java.util.HashMap<>();
        private final java.util.List<Entry> short_ = new java.util.ArrayList<>();

        Index(Collection<String> known) {
            int order = 0;
            for (String q : known) {
                Entry e = new Entry(squash(q), q, order++);
                if (e.squashed().length() < KEY) short_.add(e);
                else byPrefix.computeIfAbsent(e.squashed().substring(0, KEY), k -> new java.util.ArrayList<>(1)).add(e);
            }
        }

        /** The longest known question the message contains, as {@link Questions#identify} finds it; null for none. */
        String identify(String userMessage) {
            String haystack = squash(userMessage);
            Entry best = null;
            for (Entry e : short_) {
                if (haystack.contains(e.squashed())) best = better(best, e);
            }
            for (int i = 0; i + KEY <= haystack.length(); i++) {
                java.util.List<Entry> candidates = byPrefix.get(haystack.substring(i, i + KEY));
                if (candidates == null) continue;
                for (Entry e : candidates) {
                    if (haystack.startsWith(e.squashed(), i)) best = better(best, e);
                }
            }
            return best == null ? null : best.question();
        }

        /** The longer question; of two as long, the one known first (the scan keeps the first it met). */
        private static Entry better(Entry best, Entry e) {
            if (best == null || e.question().length() > best.question().length()) return e;
            return e.question().length() == best.question().length() && e.order() < best.order() ? e : best;
        }
    }
}
