package dev.sqloop.testkit.llm;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * A provider's automatic prompt cache as OpenAI documents it: a prompt of at least {@value #MIN_TOKENS} tokens whose
 * beginning equals the beginning of a prompt seen within the TTL is served from the cache for that common prefix,
 * counted as {@value #MIN_TOKENS} tokens plus whole {@value #BLOCK}-token blocks; a shorter prompt is never cached.
 * Prefixes are remembered per model by a hash at each block boundary, so the cost per call is one pass over its tokens.
 */
public final class PromptCache {
    public static final int MIN_TOKENS = 1024;
    public static final int BLOCK = 128;
    /** OpenAI keeps a prefix 5-10 minutes after its last use. */
    public static final Duration DEFAULT_TTL = Duration.ofMinutes(5);

    private final ConcurrentHashMap<Long, Long> lastUse = new ConcurrentHashMap<>();
    private final LongSupplier nanos;
    private final AtomicLong admitted = new AtomicLong();
    private final LongAdder promptTokens = new LongAdder();
    private final LongAdder cachedTokens = new LongAdder();
    private volatile long ttlNanos = DEFAULT_TTL.toNanos();

    public PromptCache() {
        this(System::nanoTime);
    }

    /** @param nanos the clock the TTL is measured on (tests step it) */
    public PromptCache(LongSupplier nanos) {
        this.nanos = nanos;
    }

    /** How long a prefix stays cached after its last use; zero turns the cache off. */
    public PromptCache ttl(Duration ttl) {
        ttlNanos = ttl.toNanos();
        return this;
    }

    /** The simulator's token count of a text: words and symbols, lower-cased (the unit of its usage reports). */
    public static String[] tokenize(String text) {
        if (text == null || text.isBlank()) return new String[0];
        return text.toLowerCase(Locale.ROOT).split("[^a-z0-9_]+|(?<=\\W)|(?=\\W)");
    }

    /**
     * One prompt ({@code system} then {@code user}) sent to {@code model}: the tokens of it served from the cache, after
     * which its own prefixes are cached.
     */
    public int admit(String model, String system, String user) {
        String[] s = tokenize(system);
        String[] u = tokenize(user);
        int total = s.length + u.length;
        promptTokens.add(total);
        long now = nanos.getAsLong();
        long ttl = ttlNanos;
        if (admitted.incrementAndGet() % 10_000 == 0) lastUse.values().removeIf(t -> now - t > ttl);
        if (total < MIN_TOKENS || ttl <= 0) return 0;
        long h = 1125899906842597L ^ (model == null ? 0 : model.hashCode());
        int cached = 0;
        boolean hitSoFar = true;
        for (int i = 0; i < total; i++) {
            h = 31 * h + (i < s.length ? s[i] : u[i - s.length]).hashCode();
            h = h * 0x9E3779B97F4A7C15L + 0x632BE59BD9B4E019L;
            int length = i + 1;
            if (length < MIN_TOKENS || (length - MIN_TOKENS) % BLOCK != 0) continue;
            Long seen = lastUse.put(h, now);
            if (hitSoFar && seen != null && now - seen <= ttl) cached = length;
            else hitSoFar = false;
        }
        cachedTokens.add(cached);
        return cached;
    }

    /** What Anthropic's cache did with a prompt's breakpoints: tokens read from it, and tokens written to it. */
    public record Breakpoints(int read, int written) {
        public static final Breakpoints NONE = new Breakpoints(0, 0);
    }

    /**
     * One prompt of {@code totalTokens} tokens sent to {@code model} with explicit cache breakpoints, as Anthropic
     * documents it: {@code prefixes} are the prompt's text up to each breakpoint, shortest first. The longest of them
     * seen within the TTL is read from the cache; the part after it up to the last breakpoint is written (and billed as
     * a write); a prefix shorter than {@value #MIN_TOKENS} tokens is never cached. Each prefix used is kept for a TTL
     * from now on, so a read refreshes it.
     */
    public Breakpoints admitBreakpoints(String model, java.util.List<String> prefixes, int totalTokens) {
        promptTokens.add(totalTokens);
        long now = nanos.getAsLong();
        long ttl = ttlNanos;
        if (admitted.incrementAndGet() % 10_000 == 0) lastUse.values().removeIf(t -> now - t > ttl);
        if (ttl <= 0 || prefixes.isEmpty()) return Breakpoints.NONE;
        int read = 0;
        int last = 0;
        for (String prefix : prefixes) {
            String[] tokens = tokenize(prefix);
            if (tokens.length < MIN_TOKENS) continue;
            // a key of its own: the exact prefix, not OpenAI's block hashes, so the two caches never answer for each other
            long h = 0x5DEECE66DL ^ (model == null ? 0 : model.hashCode());
            for (String t : tokens) h = (31 * h + t.hashCode()) * 0x9E3779B97F4A7C15L + 0x632BE59BD9B4E019L;
            Long seen = lastUse.put(h, now);
            if (seen != null && now - seen <= ttl) read = Math.max(read, tokens.length);
            last = Math.max(last, tokens.length);
        }
        int cappedRead = Math.min(read, totalTokens);
        int written = Math.max(0, Math.min(last, totalTokens) - cappedRead);
        cachedTokens.add(cappedRead);
        return new Breakpoints(cappedRead, written);
    }

    /** Prompt tokens admitted so far, and how many of them were served from the cache. */
    public record Stats(long promptTokens, long cachedTokens) {
        public double cachedShare() {
            return promptTokens == 0 ? 0 : (double) cachedTokens / promptTokens;
        }
    }

    public Stats stats() {
        return new Stats(promptTokens.sum(), cachedTokens.sum());
    }
}
