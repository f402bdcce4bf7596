package dev.sqloop.testkit.llm;

import java.time.Duration;
import java.util.Random;

/** How long the simulated LLM takes to answer: none, fixed, or lognormal around a median (real LLM latencies are skewed). */
@FunctionalInterface
public interface Latency {
    Latency NONE = random -> Duration.ZERO;

    Duration next(Random random);

    static Latency fixed(Duration d) {
        return random -> d;
    }

    /** exp(N(ln median, sigma²)): half the calls faster than {@code median}, a long tail above it. */
    static Latency lognormal(Duration median, double sigma) {
        double mu = Math.log(Math.max(1, median.toMillis()));
        return random -> Duration.ofMillis(Math.round(Math.exp(mu + sigma * random.nextGaussian())));
    }
}
