package dev.sqloop.fewshot;

import dev.sqloop.common.message.ExampleIds;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

/** How questions are compared: a normalized form, and the store id derived from it and the datasource. */
public final class Questions {
    private Questions() {}

    /** Lower case, accents and punctuation removed, whitespace collapsed (the gateway derives ids the same way). */
    public static String normalize(String question) {
        return ExampleIds.normalize(question);
    }

    /** The point id of the shared example of a question in a datasource: upserting the same question again replaces it. */
    public static UUID exampleId(String datasource, String question) {
        return ExampleIds.of(datasource, question);
    }

    /** The point id of {@code owner}'s own example of a question (the shared one when {@code owner} is null). */
    public static UUID exampleId(String datasource, String question, String owner) {
        return ExampleIds.of(datasource, question, owner);
    }

    /** Word set of the normalized question, for near-duplicate checks. */
    public static Set<String> words(String question) {
        return Arrays.stream(normalize(question).split(" ")).filter(w -> !w.isEmpty())
                .collect(Collectors.toCollection(LinkedHashSet::new));
    }

    /** Jaccard similarity of the two questions' word sets. */
    public static double wordOverlap(String a, String b) {
        return wordOverlap(words(a), words(b));
    }

    /** Jaccard similarity of two word sets ({@link #words}). */
    public static double wordOverlap(Set<String> wa, Set<String> wb) {
        if (wa.isEmpty() && wb.isEmpty()) return 1.0;
        long common = wa.stream().filter(wb::contains).count();
        return (double) common / (wa.size() + wb.size() - common);
    }
}
