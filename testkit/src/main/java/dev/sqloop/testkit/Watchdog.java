package dev.sqloop.testkit;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Stops a process that a JVM started once that JVM has ended, whatever ended it, a SIGKILL included (no shutdown hook
 * runs then, so nothing inside the JVM can do it): a shell loop outside the JVM that outlives it. Without one, a test
 * JVM or a benchmark killed mid-run leaves its forked services and engines running, polling a broker that is gone and
 * holding CPU, memory and ports from whatever runs next.
 */
public final class Watchdog {
    private Watchdog() {}

    private static final String SCRIPT = """
            while kill -0 "$1" 2>/dev/null; do
              if [ "$4" = untilGone ] && ! kill -0 "$2" 2>/dev/null; then exit 0; fi
              sleep 2
            done
            kill -CONT "$2" 2>/dev/null; kill "$2" 2>/dev/null
            i=0; while kill -0 "$2" 2>/dev/null && [ $i -lt 20 ]; do sleep 1; i=$((i+1)); done
            kill -9 "$2" 2>/dev/null
            if [ -n "$3" ]; then rm -rf "$3"; fi
            """;

    /**
     * Once process {@code owner} has ended: thaws process {@code pid}, SIGTERM, SIGKILL after 20 s, then deletes
     * {@code dir} (null: nothing to delete). With {@code untilGone} the watch also ends, doing nothing, when {@code pid}
     * ends first (a process the caller stops or kills itself, as a crash test does); without it the watch lasts as long
     * as the owner (an engine shared by a test run, whose folder goes with the run).
     *
     * @return the watchdog's own process (it ends by itself)
     */
    public static Process stopWhenGone(long owner, long pid, Path dir, boolean untilGone) throws IOException {
        return new ProcessBuilder("sh", "-c", SCRIPT, "sqloop-watchdog", Long.toString(owner), Long.toString(pid),
                dir == null ? "" : dir.toString(), untilGone ? "untilGone" : "untilOwnerEnds")
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    }
}
