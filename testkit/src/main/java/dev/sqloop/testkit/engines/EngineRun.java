package dev.sqloop.testkit.engines;

import dev.sqloop.testkit.Watchdog;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The heavy engines (Trino, Hive, Spark Thrift Server) of one test run, shared by every test JVM of the run instead of
 * one per Maven module: {@code ./sqloop test} names a folder for the run's records ({@value #DIR_ENV}) and the process
 * whose end stops them ({@value #OWNER_ENV}, the launcher itself). The first JVM that needs an engine starts it and
 * writes its record (process id, folder, ports); the next JVMs find the record, check the engine answers and use it.
 * An engine started for the run is not stopped by the JVM that started it: a watchdog started with it stops it (and
 * deletes its folder) once the owner has exited, however the run ends, a SIGKILL included. Without the two variables
 * (plain {@code mvn verify}, an IDE) each JVM starts its own and stops it at exit, as before.
 *
 * <p>Test classes run one after the other, so an engine has one user at a time; what a class loads into an engine
 * (the defog databases) is loaded idempotently against the engine's own state, not the JVM's.
 */
final class EngineRun {
    static final String DIR_ENV = "SQLOOP_TEST_ENGINES";
    static final String OWNER_ENV = "SQLOOP_TEST_ENGINES_OWNER";
    private static final Logger LOG = LoggerFactory.getLogger(EngineRun.class);

    private final Path dir;
    private final long owner;

    EngineRun(Path dir, long owner) {
        this.dir = dir;
        this.owner = owner;
    }

    /** The run this JVM belongs to: both variables set and the owner still running; else empty (engines per JVM). */
    static Optional<EngineRun> current() {
        return of(System.getenv(DIR_ENV), System.getenv(OWNER_ENV));
    }

    static Optional<EngineRun> of(String dir, String owner) {
        if (dir == null || dir.isBlank() || owner == null || owner.isBlank()) return Optional.empty();
        long pid;
        try {
            pid = Long.parseLong(owner.strip());
        } catch (NumberFormatException e) {
            throw new IllegalStateException(OWNER_ENV + " must be a process id, not '" + owner + "'");
        }
        if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) return Optional.of(new EngineRun(Path.of(dir), pid));
        LOG.warn("{}={} is not running: engines are started per JVM", OWNER_ENV, pid);
        return Optional.empty();
    }

    /** What another JVM needs to use a running engine: its process, its folder and named values (ports). */
    record Record(long pid, Path dir, Map<String, String> values, long started) {
        Record {
            values = Map.copyOf(values);
        }

        /** A record of a process this JVM just started: its start time tells it from a later process given its pid. */
        Record(long pid, Path dir, Map<String, String> values) {
            this(pid, dir, values, startMillis(pid));
        }

        private static long startMillis(long pid) {
            return ProcessHandle.of(pid).flatMap(h -> h.info().startInstant()).map(java.time.Instant::toEpochMilli).orElse(-1L);
        }

        /**
         * The recorded engine is still running: its pid is alive and started when the recorded one did. Pids are reused
         * (pid_max 32,768 here): a dead engine's pid may belong to any process by now, which must never be signalled.
         */
        boolean running() {
            return started >= 0 && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false) && startMillis(pid) == started;
        }

        int port(String name) {
            String v = values.get(name);
            if (v == null) throw new IllegalStateException("no " + name + " in the engine's record");
            return Integer.parseInt(v);
        }

        void write(Path file) throws IOException {
            Properties p = new Properties();
            p.setProperty("pid", Long.toString(pid));
            p.setProperty("dir", dir.toString());
            p.setProperty("started", Long.toString(started));
            values.forEach((k, v) -> p.setProperty("value." + k, v));
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            try (Writer w = Files.newBufferedWriter(tmp)) {
                p.store(w, "a running test engine (testkit EngineRun)");
            }
            Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        }

        static Record read(Path file) throws IOException {
            Properties p = new Properties();
            try (Reader r = Files.newBufferedReader(file)) {
                p.load(r);
            }
            Map<String, String> values = new TreeMap<>();
            p.stringPropertyNames().stream().filter(k -> k.startsWith("value."))
                    .forEach(k -> values.put(k.substring("value.".length()), p.getProperty(k)));
            return new Record(Long.parseLong(p.getProperty("pid")), Path.of(p.getProperty("dir")), values,
                    Long.parseLong(p.getProperty("started", "-1")));
        }
    }

    /** Something that proves an attached engine answers (a query); throws while it does not. */
    @FunctionalInterface
    interface Check<T> {
        void check(T engine) throws Exception;
    }

    /**
     * The run's engine called {@code name}: the one in its record if that process is alive and passes {@code answers},
     * else a new one from {@code start}, recorded and watched so that it stops with the run. Holds a file lock while
     * deciding, so two JVMs of a parallel build do not both start one.
     */
    <T> T shared(String name, Supplier<T> start, Function<T, Record> record, Function<Record, T> attach, Check<T> answers) {
        try {
            Files.createDirectories(dir);
            Path file = dir.resolve(name + ".properties");
            try (FileChannel ch = FileChannel.open(dir.resolve(name + ".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                 FileLock ignored = ch.lock()) {
                if (Files.isRegularFile(file)) {
                    Record r = Record.read(file);
                    if (r.running()) {
                        EngineProcess.resume(r.pid()); // a test that froze it may have crashed before thawing it
                        T engine = attach.apply(r);
                        try {
                            answers.check(engine);
                            LOG.info("{}: using the run's engine (pid {}, {})", name, r.pid(), r.values());
                            return engine;
                        } catch (Exception e) {
                            LOG.warn("{}: the run's engine (pid {}) does not answer ({}); starting another", name, r.pid(), e.toString());
                            EngineProcess.stop(r.pid());
                        }
                    }
                    Files.delete(file);
                }
                T engine = start.get();
                Record r = record.apply(engine);
                Watchdog.stopWhenGone(owner, r.pid(), r.dir(), false); // the folder stays until the run ends
                r.write(file);
                LOG.info("{}: started for the run (pid {}, {}); stops when process {} ends", name, r.pid(), r.values(), owner);
                return engine;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("sharing " + name + " through " + dir, e);
        }
    }
}
