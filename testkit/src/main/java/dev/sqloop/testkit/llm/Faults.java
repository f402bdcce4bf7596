package dev.sqloop.testkit.llm;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Random;

/**
 * Infrastructure faults the simulated LLM injects before answering, changeable while it runs: the next N
 * requests fail with a status (429 with Retry-After, 500…), are slow, or get a malformed body; or every
 * request fails; or a random share fails; plus a latency distribution for all answers.
 */
public final class Faults {
    /** What happens to one request. */
    public sealed interface Fault permits Status, Slow, Malformed {}

    public record Status(int code, Duration retryAfter) implements Fault {}

    public record Slow(Duration delay) implements Fault {}

    public record Malformed() implements Fault {}

    private final Deque<Fault> next = new ArrayDeque<>();
    private Status always;
    private double errorRate;
    private int errorRateStatus = 500;
    private Latency latency = Latency.NONE;

    /** The next {@code count} requests answer {@code status} (with a Retry-After in whole seconds when given). */
    public synchronized Faults failNext(int count, int status, Duration retryAfter) {
        for (int i = 0; i < count; i++) next.add(new Status(status, retryAfter));
        return this;
    }

    public synchronized Faults rateLimitNext(int count, Duration retryAfter) {
        return failNext(count, 429, retryAfter);
    }

    public synchronized Faults slowNext(int count, Duration delay) {
        for (int i = 0; i < count; i++) next.add(new Slow(delay));
        return this;
    }

    public synchronized Faults malformedNext(int count) {
        for (int i = 0; i < count; i++) next.add(new Malformed());
        return this;
    }

    /** Every request fails with {@code status} until {@link #clear()}. */
    public synchronized Faults failAlways(int status, Duration retryAfter) {
        always = new Status(status, retryAfter);
        return this;
    }

    /** A random share of requests fails with {@code status}. */
    public synchronized Faults errorRate(double probability, int status) {
        errorRate = probability;
        errorRateStatus = status;
        return this;
    }

    public synchronized Faults latency(Latency value) {
        latency = value;
        return this;
    }

    public synchronized Faults clear() {
        next.clear();
        always = null;
        errorRate = 0;
        latency = Latency.NONE;
        return this;
    }

    synchronized Fault take(Random random) {
        Fault f = next.poll();
        if (f != null) return f;
        if (always != null) return always;
        if (errorRate > 0 && random.nextDouble() < errorRate) return new Status(errorRateStatus, null);
        return null;
    }

    synchronized Duration latency(Random random) {
        return latency.next(random);
    }
}
