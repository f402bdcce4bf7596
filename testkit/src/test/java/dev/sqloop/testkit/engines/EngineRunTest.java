package dev.sqloop.testkit.engines;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The run's engines with real processes: a {@code sleep} stands for the engine and another for the run's owner (the
 * launcher). Two {@link EngineRun} instances on one folder stand for two test JVMs of the run.
 */
class EngineRunTest {
    private final List<Process> owners = new ArrayList<>();
    private final List<EngineProcess> engines = new ArrayList<>();

    @AfterEach
    void stopAll() {
        owners.forEach(Process::destroyForcibly);
        engines.forEach(e -> EngineProcess.stop(e.pid()));
    }

    /** A stand-in engine: a process with a folder, as an engine server has. */
    private record Fake(EngineProcess engine, int port) {}

    private Fake startFake(AtomicInteger starts) {
        try {
            starts.incrementAndGet();
            EngineProcess e = EngineProcess.inTempDir("Fake", "sqloop-engine-run-test-");
            e.start(List.of("sleep", "300"));
            engines.add(e);
            return new Fake(e, 40_000 + starts.get());
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private Fake shared(EngineRun run, AtomicInteger starts, EngineRun.Check<Fake> answers) {
        return run.shared("fake", () -> startFake(starts),
                f -> new EngineRun.Record(f.engine().pid(), f.engine().dir(), Map.of("port", Integer.toString(f.port()))),
                r -> new Fake(EngineProcess.attached("Fake", r.dir(), r.pid()), r.port("port")), answers);
    }

    private long owner() throws IOException {
        Process p = new ProcessBuilder("sleep", "300").start();
        owners.add(p);
        return p.pid();
    }

    @Test
    void shouldStartOnceForTheRunAndLetTheNextJvmAttach(@TempDir Path dir) throws Exception {
        long owner = owner();
        AtomicInteger starts = new AtomicInteger();
        Fake first = shared(new EngineRun(dir, owner), starts, f -> assertTrue(f.engine().alive()));
        Fake second = shared(new EngineRun(dir, owner), starts, f -> assertTrue(f.engine().alive()));
        assertEquals(1, starts.get(), "the second JVM attached instead of starting one");
        assertEquals(first.engine().pid(), second.engine().pid());
        assertEquals(first.port(), second.port(), "the record carries the ports");
        assertEquals(first.engine().dir(), second.engine().dir(), "and the folder (data files, the log)");
        second.engine().close();
        assertTrue(first.engine().alive(), "an attached engine's close leaves it to the run");
        assertTrue(Files.isDirectory(first.engine().dir()));
    }

    @Test
    void shouldStopTheEngineAndDeleteItsFolderWhenTheOwnerEnds(@TempDir Path dir) throws Exception {
        long owner = owner();
        Fake engine = shared(new EngineRun(dir, owner), new AtomicInteger(), f -> { });
        // The handle is taken while the engine runs: the watchdog may stop it before this thread looks again.
        ProcessHandle h = ProcessHandle.of(engine.engine().pid()).orElseThrow();
        owners.getFirst().destroyForcibly().waitFor();
        h.onExit().get(30, TimeUnit.SECONDS);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (Files.exists(engine.engine().dir()) && System.nanoTime() < deadline) Thread.sleep(100);
        assertFalse(Files.exists(engine.engine().dir()), "the watchdog deleted the engine's folder");
    }

    @Test
    void shouldReplaceAnEngineThatDiedOrDoesNotAnswer(@TempDir Path dir) throws Exception {
        long owner = owner();
        AtomicInteger starts = new AtomicInteger();
        Fake first = shared(new EngineRun(dir, owner), starts, f -> { });
        EngineProcess.stop(first.engine().pid());
        Fake second = shared(new EngineRun(dir, owner), starts, f -> { });
        assertEquals(2, starts.get(), "a dead engine's record is not used");
        assertNotEquals(first.engine().pid(), second.engine().pid());

        Fake third = shared(new EngineRun(dir, owner), starts, f -> {
            throw new IOException("no answer");
        });
        assertEquals(3, starts.get(), "an engine that does not answer is replaced");
        assertFalse(second.engine().alive(), "and stopped");
        assertTrue(third.engine().alive());
    }

    @Test
    void shouldShareOnlyWhenTheRunIsNamedAndItsOwnerRuns() throws Exception {
        assertTrue(EngineRun.of(null, "1").isEmpty());
        assertTrue(EngineRun.of("/tmp/x", " ").isEmpty());
        assertTrue(EngineRun.of("/tmp/x", Long.toString(ProcessHandle.current().pid())).isPresent());
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        assertTrue(EngineRun.of("/tmp/x", Long.toString(gone.pid())).isEmpty(), "an owner that ended shares nothing");
    }

    /** A recorded pid that now belongs to another process (pids are reused) is not the engine, and is never signalled. */
    @Test
    void aReusedPidIsNotTheRecordedEngine(@TempDir Path dir) throws Exception {
        Process other = new ProcessBuilder("sleep", "60").start();
        owners.add(other);
        EngineRun.Record fresh = new EngineRun.Record(other.pid(), dir, Map.of());
        assertTrue(fresh.running(), "the process the record was made for");
        Path file = dir.resolve("engine.properties");
        fresh.write(file);
        assertTrue(EngineRun.Record.read(file).running(), "its start time survives the file");
        EngineRun.Record older = new EngineRun.Record(other.pid(), dir, Map.of(), fresh.started() - 60_000);
        assertFalse(older.running(), "same pid, another start time: another process");
        assertFalse(new EngineRun.Record(other.pid(), dir, Map.of(), -1).running(), "a record without a start time");
        assertTrue(other.isAlive());
    }
}
