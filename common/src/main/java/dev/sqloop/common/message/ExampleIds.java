package dev.sqloop.common.message;

import java.nio.charset.StandardCharsets;
import java.text.Normalizer;
import java.util.Locale;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * How an example is identified: by its datasource, its question after normalization and its owner. A shared example
 * (a seed, or one a curator shared) has no owner and is one per question and datasource; a tenant's own example
 * (captured from its question, saved or posted by it) is one per question, datasource and tenant, so two tenants
 * asking the same question get two examples and never replace each other's. The fewshot store and the gateway derive
 * the same id from the same text, so a repeated question (however it is spelled or cased) is one example, and the
 * gateway can name an example before the fewshot service has stored it.
 */
public final class ExampleIds {
    /** The tenant of a request without one: the gateway's single tenant when authentication is off. */
    public static final String DEFAULT_TENANT = "default";

    // compiled once: normalize runs for every captured, retrieved and posted question (String.replaceAll compiled
    // four patterns per call, 8 % of the capture stage's CPU in the pipeline benchmark)
    private static final Pattern MARKS = Pattern.compile("\\p{M}+");
    private static final Pattern NOT_WORD = Pattern.compile("[^\\p{L}\\p{N}_%.'-]+");
    private static final Pattern TRAILING_PUNCTUATION = Pattern.compile("[.'-]+(\\s|$)");
    private static final Pattern SPACES = Pattern.compile("\\s+");

    private ExampleIds() {}

    /** The owner of an example a tenant creates: the tenant, or {@link #DEFAULT_TENANT} when none is named. */
    public static String owner(String tenant) {
        return tenant == null || tenant.isBlank() ? DEFAULT_TENANT : tenant;
    }

    /** Lower case, accents and punctuation removed, whitespace collapsed: "How many  Orders?" → "how many orders". */
    public static String normalize(String question) {
        if (question == null) return "";
        String ascii = normalizeAscii(question);
        return ascii != null ? ascii : normalizeText(question);
    }

    /** {@link #normalize} by its definition: decomposition and regular expressions, for any text. */
    static String normalizeText(String question) {
        String s = MARKS.matcher(Normalizer.normalize(question, Normalizer.Form.NFKD)).replaceAll("");
        s = NOT_WORD.matcher(s.toLowerCase(Locale.ROOT)).replaceAll(" ");
        // a full stop ends sentences but also sits inside numbers (2.5) and names: drop only the trailing ones
        s = TRAILING_PUNCTUATION.matcher(s).replaceAll(" ");
        return SPACES.matcher(s).replaceAll(" ").strip();
    }

    /**
     * {@link #normalize} of a text that is all ASCII, in one pass (null for any other text): ASCII is its own
     * decomposition and has no marks, so what is left is the same rules: words of letters, digits and {@code _%.'-},
     * each without its trailing {@code .'-}, joined by single spaces. A fifth of the capture and retrieve stages' CPU
     * went into the regular expressions, for the questions of a batch that are almost all ASCII.
     */
    static String normalizeAscii(String question) {
        int n = question.length();
        StringBuilder out = new StringBuilder(n);
        int i = 0;
        while (i < n) {
            char c = question.charAt(i);
            if (c >= 0x80) return null;
            if (!wordChar(c)) {
                i++;
                continue;
            }
            int start = i;
            while (i < n && wordChar(question.charAt(i))) i++; // ASCII only: a non-ASCII character ends the word, and the next turn returns null
            int end = i;
            while (end > start && trailingPunctuation(question.charAt(end - 1))) end--;
            if (end == start) continue;
            if (!out.isEmpty()) out.append(' ');
            for (int k = start; k < end; k++) {
                char w = question.charAt(k);
                out.append(w >= 'A' && w <= 'Z' ? (char) (w + ('a' - 'A')) : w);
            }
        }
        return out.toString();
    }

    private static boolean wordChar(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                || c == '_' || c == '%' || c == '.' || c == '\'' || c == '-';
    }

    private static boolean trailingPunctuation(char c) {
        return c == '.' || c == '\'' || c == '-';
    }

    /** The id of the shared example of this question. A UUID because Qdrant accepts only UUIDs or integers as point ids. */
    public static UUID of(String datasource, String question) {
        return UUID.nameUUIDFromBytes(("example\u0000" + datasource + "\u0000" + normalize(question)).getBytes(StandardCharsets.UTF_8));
    }

    /** The id of {@code owner}'s own example of this question; {@code owner} null: the shared one ({@link #of(String, String)}). */
    public static UUID of(String datasource, String question, String owner) {
        if (owner == null) return of(datasource, question);
        return UUID.nameUUIDFromBytes(("example\u0000" + datasource + "\u0000" + normalize(question) + "\u0000owner\u0000" + owner)
                .getBytes(StandardCharsets.UTF_8));
    }
}
