package dev.sqloop.testkit.llm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The simulated provider cache counts cached tokens the way OpenAI documents them. */
class PromptCacheTest {
    private final AtomicLong clock = new AtomicLong();
    private final PromptCache cache = new PromptCache(clock::get);

    /** {@code n} distinct words: {@code 2n - 1} tokens, as the simulator counts a space between two words as one. */
    private static String words(String stem, int n) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < n; i++) s.append(i == 0 ? "" : " ").append(stem).append(i);
        return s.toString();
    }

    @Test
    void shouldCacheTheCommonPrefixInBlocksOf128TokensFrom1024On() {
        String prefix = words("schema", 650);
        assertEquals(1299, PromptCache.tokenize(prefix).length);
        assertEquals(0, cache.admit("m", prefix, words("first", 20)), "nothing seen yet");
        // common prefix 1,299 tokens (the user parts differ from their first token): 1,024 + 2 blocks of 128
        assertEquals(1280, cache.admit("m", prefix, words("second", 20)));
        assertEquals(0, cache.admit("other-model", prefix, words("second", 20)), "a cache per model");
    }

    @Test
    void shouldCacheNothingBelow1024TokensOrPastADifferenceEarlyInThePrompt() {
        String shortPrefix = words("s", 450);
        cache.admit("m", shortPrefix, words("a", 50));
        assertEquals(0, cache.admit("m", shortPrefix, words("b", 50)), "a prompt under 1,024 tokens is never cached");
        cache.admit("m", "one " + words("s", 800), "x");
        assertEquals(0, cache.admit("m", "two " + words("s", 800), "x"), "the first token differs: no common prefix");
    }

    @Test
    void shouldForgetAPrefixUnusedForLongerThanItsTtl() {
        cache.ttl(Duration.ofMinutes(5));
        String prefix = words("t", 550);
        cache.admit("m", prefix, "a");
        clock.addAndGet(Duration.ofMinutes(4).toNanos());
        assertEquals(1024, cache.admit("m", prefix, "b"), "within the TTL, and using it renews it");
        clock.addAndGet(Duration.ofMinutes(4).toNanos());
        assertEquals(1024, cache.admit("m", prefix, "c"));
        clock.addAndGet(Duration.ofMinutes(6).toNanos());
        assertEquals(0, cache.admit("m", prefix, "d"), "expired");
        assertEquals(new PromptCache.Stats(4L * 1100, 2048), cache.stats());
    }

    @Test
    void shouldReadAnExplicitBreakpointSeenWithinTheTtlAndWriteItOtherwise() {
        String prefix = words("schema", 650); // 1,299 tokens
        java.util.List<String> breakpoints = java.util.List.of(prefix);
        assertEquals(new PromptCache.Breakpoints(0, 1299), cache.admitBreakpoints("claude", breakpoints, 1340), "first use: a write");
        clock.addAndGet(Duration.ofMinutes(4).toNanos());
        assertEquals(new PromptCache.Breakpoints(1299, 0), cache.admitBreakpoints("claude", breakpoints, 1350), "within 5 min: a read");
        clock.addAndGet(Duration.ofMinutes(4).toNanos());
        assertEquals(new PromptCache.Breakpoints(1299, 0), cache.admitBreakpoints("claude", breakpoints, 1350), "the read refreshed it");
        clock.addAndGet(Duration.ofMinutes(6).toNanos());
        assertEquals(new PromptCache.Breakpoints(0, 1299), cache.admitBreakpoints("claude", breakpoints, 1350), "expired: written again");
        assertEquals(new PromptCache.Breakpoints(0, 1299), cache.admitBreakpoints("other", breakpoints, 1350), "a cache per model");
        assertEquals(0, cache.admit("claude", prefix, "x"), "OpenAI's automatic cache is a different cache");
    }

    @Test
    void shouldReadTheLongestCachedBreakpointAndWriteOnlyWhatFollowsIt() {
        String rules = words("rule", 600); // 1,199 tokens
        String schema = rules + " " + words("table", 300); // 1,799 tokens
        cache.admitBreakpoints("claude", java.util.List.of(rules), 1300);
        assertEquals(new PromptCache.Breakpoints(1199, 600), cache.admitBreakpoints("claude", java.util.List.of(rules, schema), 1900));
        assertEquals(PromptCache.Breakpoints.NONE, cache.admitBreakpoints("claude", java.util.List.of(words("short", 300)), 700),
                "a prefix under 1,024 tokens is never cached");
    }
}
