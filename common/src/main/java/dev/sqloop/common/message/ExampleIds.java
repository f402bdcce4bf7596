package dev.sqloop.common.message;

import java.nio.charset.StandardCharsets;
import java.text.Normalizer;
import java.util.Locale;
import java.util.UUID;

/**
 * How an example is identified: by its datasource and its question after normalization. The fewshot store and the
 * gateway derive the same id from the same text, so a repeated question (however it is spelled or cased) is one
 * example, and the gateway can name an example before the fewshot service has stored it.
 */
public final class ExampleIds {
    private ExampleIds() {}

    /** Lower case, accents and punctuation removed, whitespace collapsed: "How many  Orders?" → "how many orders". */
    public static String normalize(String question) {
        if (question == null) return "";
        String s = Normalizer.normalize(question, Normalizer.Form.NFKD).replaceAll("\\p{M}+", "");
        s = s.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}_%.'-]+", " ");
        // a full stop ends sentences but also sits inside numbers (2.5) and names: drop only the trailing ones
        s = s.replaceAll("[.'-]+(\\s|$)", " ");
        return s.replaceAll("\\s+", " ").strip();
    }

    /** A UUID because Qdrant accepts only UUIDs or integers as point ids. */
    public static UUID of(String datasource, String question) {
        return UUID.nameUUIDFromBytes(("example\u0000" + datasource + "\u0000" + normalize(question)).getBytes(StandardCharsets.UTF_8));
    }
}
