package dev.sqloop.fewshot;

import java.nio.charset.StandardCharsets;
import java.text.Normalizer;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

/** How questions are compared: a normalized form, and the store id derived from it and the datasource. */
public final class Questions {
    private Questions() {}

    /** Lower case, accents and punctuation removed, whitespace collapsed: "How many  Orders?" → "how many orders". */
    public static String normalize(String question) {
        if (question == null) return "";
        String s = Normalizer.normalize(question, Normalizer.Form.NFKD).replaceAll("\\p{M}+", "");
        s = s.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}_%.'-]+", " ");
        // a full stop ends sentences but also sits inside numbers (2.5) and names: drop only the trailing ones
        s = s.replaceAll("[.'-]+(\\s|$)", " ");
        return s.replaceAll("\\s+", " ").strip();
    }

    /**
     * The point id of a question in a datasource. A UUID because Qdrant accepts only UUIDs or integers; derived
     * from the normalized question, so upserting the same question again replaces the example.
     */
    public static UUID exampleId(String datasource, String question) {
        return UUID.nameUUIDFromBytes(("example\u0000" + datasource + "\u0000" + normalize(question)).getBytes(StandardCharsets.UTF_8));
    }

    /** The id of an error→fix pair: the same error fixed the same way is stored once. */
    public static UUID fixId(String datasource, String errorText, String fixedSql) {
        return UUID.nameUUIDFromBytes(("fix\u0000" + datasource + "\u0000" + normalize(errorText) + "\u0000"
                + fixedSql.strip().replaceAll("\\s+", " ")).getBytes(StandardCharsets.UTF_8));
    }

    /** Word set of the normalized question, for near-duplicate checks. */
    public static Set<String> words(String question) {
        return Arrays.stream(normalize(question).split(" ")).filter(w -> !w.isEmpty())
                .collect(Collectors.toCollection(LinkedHashSet::new));
    }

    /** Jaccard similarity of the two questions' word sets. */
    public static double wordOverlap(String a, String b) {
        Set<String> wa = words(a);
        Set<String> wb = words(b);
        if (wa.isEmpty() && wb.isEmpty()) return 1.0;
        long common = wa.stream().filter(wb::contains).count();
        return (double) common / (wa.size() + wb.size() - common);
    }
}
