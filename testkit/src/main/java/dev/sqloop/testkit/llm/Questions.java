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
}
