package dev.sqloop.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.embedded.pipeline.DemoBatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class MachineSpeedTest {
    /** One for the class: loading the embedding model is most of a probe's set-up. */
    private static final MachineSpeed.Probe PROBE = new MachineSpeed.Probe(DemoBatch.load());

    /** Every part does its real work: the demo's tasks round-trip, all its gold SQL parses, its questions embed. */
    @Test
    void shouldTimeEachPartOfTheProbeOnItsRealWork() {
        MachineSpeed m = PROBE.run(MachineSpeed.SLICES);
        assertTrue(m.jsonMs() > 0 && m.parseMs() > 0 && m.embedMs() > 0, m.toString());
        assertEquals(m.jsonMs() + m.parseMs() + m.embedMs(), m.totalMs(), 1e-9);
    }

    /** The samples taken once half the results were final are the steady state's; earlier ones are left out. */
    @Test
    void shouldKeepTheSamplesOfTheSteadyWindowOnly() throws Exception {
        AtomicInteger finished = new AtomicInteger();
        MachineSpeed.Sampler sampler = PROBE.during(finished::get, 1);
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (sampler.from(0).length < 2 && System.nanoTime() < deadline) Thread.sleep(10);
        finished.set(100);
        while (sampler.from(100).length < 2 && System.nanoTime() < deadline) Thread.sleep(10);
        sampler.stop();
        double[] all = sampler.from(0);
        double[] steady = sampler.from(100);
        assertTrue(steady.length >= 2 && all.length >= steady.length + 2, all.length + " samples, " + steady.length + " steady");
        for (double ms : steady) assertTrue(ms > 0);
        assertEquals(0, sampler.from(101).length, "no sample saw more results than there were");
        assertEquals(steady.length, sampler.between(100, 100).length, "a stretch's samples: those taken while its results were final");
        assertEquals(all.length - steady.length, sampler.between(0, 99).length, "the stretch before it holds the rest");
    }

    @Test
    void shouldSayHowFastTheProbeRanOverTheSteadyState() {
        String line = MachineSpeed.line(new double[] {500, 300, 400});
        assertTrue(line.startsWith("probe 400 ms mean over the steady state (3 samples, 300-500):"), line);
        assertNull(MachineSpeed.line(new double[0]), "no samples in the window: no line");
    }
}
