package dev.sqloop.embedded.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.cli.Args;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What an eval directory remembers between an interrupted run and its resumption. */
class RunStateTest {
    @Test
    void shouldSumTimeAndPipelineCountsAcrossRunsAndRefuseOtherOptions(@TempDir Path dir) throws Exception {
        RunState first = RunState.read(dir);
        first.options("llm=simulated faults=default seed=7 ts=0 gateway=null", dir);
        first.add(1, 2.0, Map.of("failed", 3L, "first_attempt_success", 1L));
        first.add(3, 1.0, null); // against a gateway: no counts
        first.write(dir);

        RunState resumed = RunState.read(dir);
        resumed.options("llm=simulated faults=default seed=7 ts=0 gateway=null", dir);
        resumed.add(1, 0.5, Map.of("failed", 2L));
        resumed.add(3, 1.0, Map.of("corrected_success", 4L));
        resumed.write(dir);

        RunState again = RunState.read(dir);
        assertEquals(Map.of(1, 2.5, 3, 2.0), again.seconds());
        assertEquals(Map.of("failed", 5L, "first_attempt_success", 1L), again.outcomes().get(1), "counts of both runs");
        assertFalse(again.outcomes().containsKey(3), "one run without counts: the configuration has none");
        Args.UsageException e = assertThrows(Args.UsageException.class, () -> again.options("llm=simulated faults=none seed=7 ts=0 gateway=null", dir));
        assertTrue(e.getMessage().contains("other options"), e.getMessage());
    }
}
