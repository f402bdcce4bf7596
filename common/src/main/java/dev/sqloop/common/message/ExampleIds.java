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
        String s = MARKS.matcher(Normalizer.normalize(question, Normalizer.Form.NFKD)).replaceAll("");
        s = NOT_WORD.matcher(s.toLowerCase(Locale.ROOT)).replaceAll(" ");
        // a full stop ends sentences but also sits inside numbers (2.5) and names: drop only the trailing ones
        s = TRAILING_PUNCTUATION.matcher(s).replaceAll(" ");
        return SPACES.matcher(s).replaceAll(" ").strip();
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
