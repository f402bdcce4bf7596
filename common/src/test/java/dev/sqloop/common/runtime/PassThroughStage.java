package dev.sqloop.common.runtime;

import java.time.Duration;

/** Forwards each {@link Probe} to the next topic with one more hop, after an optional simulated wait. */
public final class PassThroughStage implements Stage<Probe> {
    private final String name;
    private final String next;
    private final Duration work;

    public PassThroughStage(String name, String next, Duration work) {
        this.name = name;
        this.next = next;
        this.work = work;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Class<Probe> inputType() {
        return Probe.class;
    }

    @Override
    public Outcome process(Probe input) throws InterruptedException {
        if (!work.isZero()) Thread.sleep(work);
        return Outcome.forward(next, new Probe(input.id(), input.seq(), input.hops() + 1));
    }
}
