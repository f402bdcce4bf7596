package dev.sqloop.lab;

import dev.sqloop.testkit.llm.PromptCache;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * What a batch's prompts are made of, in the simulated LLM's tokens ({@link PromptCache#tokenize}): the prefix every
 * prompt of a datasource shares (what a provider's cache can serve at best), each prompt's sections by their
 * {@code ## } headings, and nearest-rank percentiles. Pure functions for {@link SingleDatasourceCost}.
 */
final class PromptShape {
    private static final Pattern SECTION = Pattern.compile("(?m)^(?=## )");

    private PromptShape() {}

    /** Tokens every one of {@code prompts} starts with (all of them when there is one; 0 when there are none). */
    static int sharedPrefixTokens(List<String> prompts) {
        if (prompts.isEmpty()) return 0;
        String[] first = PromptCache.tokenize(prompts.getFirst());
        int shared = first.length;
        for (String p : prompts.subList(1, prompts.size())) {
            String[] t = PromptCache.tokenize(p);
            int i = 0;
            while (i < Math.min(shared, t.length) && t[i].equals(first[i])) i++;
            shared = i;
        }
        return shared;
    }

    /**
     * The tokens of each section of a system prompt: {@code intro} for the text before the first {@code ## } heading,
     * then each heading (e.g. {@code ## Schema}) with its body, in prompt order. Each section is counted as the tokens
     * it adds to the text before it, so the sections sum to the prompt's count exactly.
     */
    static Map<String, Integer> sectionTokens(String system) {
        Map<String, Integer> out = new LinkedHashMap<>();
        StringBuilder before = new StringBuilder();
        int counted = 0;
        for (String part : SECTION.split(system)) {
            if (part.isEmpty()) continue;
            int nl = part.indexOf('\n');
            String name = part.startsWith("## ") ? (nl < 0 ? part : part.substring(0, nl)).strip() : "intro";
            int upTo = PromptCache.tokenize(before.append(part).toString()).length;
            out.merge(name, upTo - counted, Integer::sum);
            counted = upTo;
        }
        return out;
    }

    /** The nearest-rank percentile {@code p} (1-100) of {@code values}; 0 when there are none. */
    static long percentile(long[] values, int p) {
        if (values.length == 0) return 0;
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    static double mean(long[] values) {
        return values.length == 0 ? 0 : (double) Arrays.stream(values).sum() / values.length;
    }
}
