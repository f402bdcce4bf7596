package dev.sqloop.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.testkit.llm.PromptCache;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PromptShapeTest {
    private static final String PREFIX = "Write DuckDB SQL that answers the user's question.\n\n## Rules\n- one query\n\n"
            + "## Schema\nTABLE flight\n  flight_id INTEGER\n  airline_code TEXT\n\n";

    @Test
    void shouldCountTheTokensEveryPromptStartsWith() {
        String a = PREFIX + "## Similar Examples\nQ: flights from boston\nSQL: SELECT 1\n";
        String b = PREFIX + "## Similar Examples\nQ: fares to denver\nSQL: SELECT 2\n";
        String c = PREFIX;
        int prefix = PromptCache.tokenize(PREFIX).length;
        // a and b also share the examples' heading and "Q: " (the text both start with, then any word, less that word)
        int both = PromptCache.tokenize(PREFIX + "## Similar Examples\nQ: x").length - 1;
        assertEquals(both, PromptShape.sharedPrefixTokens(List.of(a, b)));
        assertTrue(both > prefix);
        assertEquals(prefix, PromptShape.sharedPrefixTokens(List.of(a, b, c)), "the shortest prompt bounds what all share");
        assertEquals(PromptCache.tokenize(a).length, PromptShape.sharedPrefixTokens(List.of(a)));
        assertEquals(0, PromptShape.sharedPrefixTokens(List.of()));
        assertEquals(0, PromptShape.sharedPrefixTokens(List.of("Write SQL", "Answer in SQL")), "nothing shared from the first token");
    }

    @Test
    void shouldCountEachSectionByItsHeading() {
        Map<String, Integer> sections = PromptShape.sectionTokens(PREFIX + "## Similar Examples\nQ: flights\nSQL: SELECT 1\n");
        assertEquals(List.of("intro", "## Rules", "## Schema", "## Similar Examples"), List.copyOf(sections.keySet()));
        assertTrue(sections.get("## Schema") > sections.get("## Rules"), sections.toString());
        assertEquals(PromptCache.tokenize(PREFIX + "## Similar Examples\nQ: flights\nSQL: SELECT 1\n").length,
                sections.values().stream().mapToInt(Integer::intValue).sum(), "every token in exactly one section");
    }

    @Test
    void shouldTakeNearestRankPercentilesOfUnsortedValues() {
        long[] values = {100, 10, 90, 20, 80, 30, 70, 40, 60, 50};
        assertEquals(50, PromptShape.percentile(values, 50));
        assertEquals(100, PromptShape.percentile(values, 95));
        assertEquals(10, PromptShape.percentile(values, 1));
        assertEquals(0, PromptShape.percentile(new long[0], 95));
        assertEquals(55.0, PromptShape.mean(values));
        assertEquals(100, values[0], "the caller's array is not sorted in place");
    }
}
