package dev.sqloop.common;

/**
 * Whitespace folded in one pass. {@code s.replaceAll("\\s+", " ")} compiles its pattern on every call, and the
 * stages call it for every message (prompts, error texts, SQL keys): the profiles of the pipeline benchmark named it
 * in four stages.
 */
public final class Whitespace {
    private Whitespace() {}

    /** Every run of whitespace ({@code \s}: space, tab, line feed, vertical tab, form feed, return) as one space. */
    public static String collapse(String s) {
        int n = s.length();
        int i = 0;
        while (i < n && !folds(s, i)) i++;
        if (i == n) return s;
        StringBuilder out = new StringBuilder(n).append(s, 0, i);
        boolean inRun = false;
        for (; i < n; i++) {
            char c = s.charAt(i);
            if (space(c)) {
                if (!inRun) out.append(' ');
                inRun = true;
            } else {
                out.append(c);
                inRun = false;
            }
        }
        return out.toString();
    }

    /** {@link #collapse} without leading and trailing whitespace. */
    public static String oneLine(String s) {
        return collapse(s).strip();
    }

    /** Whether the text changes at {@code i}: a whitespace other than a space, or a space that starts a run. */
    private static boolean folds(String s, int i) {
        char c = s.charAt(i);
        return space(c) && (c != ' ' || (i + 1 < s.length() && space(s.charAt(i + 1))));
    }

    private static boolean space(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\u000B' || c == '\f' || c == '\r';
    }
}
