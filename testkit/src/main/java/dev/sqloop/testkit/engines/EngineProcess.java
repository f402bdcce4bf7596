package dev.sqloop.testkit.engines;

import dev.sqloop.testkit.Dirs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The operating-system side of an engine server that testkit runs in its own JVM (Trino, Spark Thrift Server,
 * Hive): a private temp directory, the process started in it with its output in {@code server.log}, waiting for
 * it to be ready, signals, and stopping it and deleting the directory. The servers keep only what is their own:
 * configuration, command line and what "ready" means.
 */
final class EngineProcess implements AutoCloseable {
    private static final Pattern JDK_FEATURE = Pattern.compile("-(\\d+)(?=[-.]|$)");

    private final String name;
    private final Path dir;
    /** Null when attached to a process another JVM started ({@link #attached}). */
    private volatile Process process;
    private volatile ProcessHandle handle;
    /** Whether {@link #close()} stops the process: not for an engine of the test run ({@link EngineRun}). */
    private final boolean owned;

    private EngineProcess(String name, Path dir, ProcessHandle handle, boolean owned) {
        this.name = name;
        this.dir = dir;
        this.handle = handle;
        this.owned = owned;
    }

    /** A fresh temp directory for the server named {@code name} (in messages); the process starts later. */
    static EngineProcess inTempDir(String name, String prefix) throws IOException {
        return new EngineProcess(name, Files.createTempDirectory(prefix), null, true);
    }

    /**
     * The engine another JVM of the test run started (its record's process and folder): signals and figures work on
     * it; {@link #close()} leaves it running, the run stops it.
     */
    static EngineProcess attached(String name, Path dir, long pid) {
        return new EngineProcess(name, dir, ProcessHandle.of(pid).orElseThrow(() -> new IllegalStateException(name + " " + pid + " is gone")),
                false);
    }

    /** SIGCONT to a process this JVM did not start (one a crashed test left frozen); nothing if it is gone. */
    static void resume(long pid) {
        try {
            signal(pid, "CONT");
        } catch (RuntimeException e) {
            // gone meanwhile
        }
    }

    /** Stops a process this JVM did not start: thaws it, SIGTERM, SIGKILL after 20 s. */
    static void stop(long pid) {
        ProcessHandle.of(pid).ifPresent(h -> {
            resume(pid);
            h.destroy();
            try {
                h.onExit().get(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                h.destroyForcibly();
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                h.destroyForcibly();
            }
        });
    }

    Path dir() {
        return dir;
    }

    Path logFile() {
        return dir.resolve("server.log");
    }

    /** Runs {@code command} in the directory, standard output and error going to {@link #logFile()}. */
    void start(List<String> command) throws IOException {
        if (process != null) throw new IllegalStateException(name + " already started");
        // no standard input: the server may outlive this JVM (EngineRun)
        process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(logFile().toFile()).start();
        handle = process.toHandle();
    }

    /** A check that returns once the server is ready and throws while it is not (its message says why). */
    @FunctionalInterface
    interface Readiness {
        void check() throws Exception;
    }

    /**
     * Runs {@code ready} every {@code pollMs} until it passes. Fails at once, with the tail of the log, if the
     * process exits; at the deadline the server is stopped and the failure names the last reason it was not ready.
     */
    void awaitReady(Duration within, long pollMs, Readiness ready) throws IOException {
        long deadline = System.nanoTime() + within.toNanos();
        String last = "not checked yet";
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) throw new IOException(name + " exited (" + process.exitValue() + "): " + tail());
            try {
                ready.check();
                return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for " + name, e);
            } catch (Exception e) {
                last = e.getMessage() == null ? e.toString() : e.getMessage();
            }
            sleep(pollMs);
        }
        close();
        throw new IOException(name + " not ready within " + within + " (last: " + last + "): " + tail());
    }

    /** The last 40 lines of the server's log, for failure messages. */
    String tail() {
        try {
            List<String> lines = Files.readAllLines(logFile());
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no log)";
        }
    }

    boolean alive() {
        ProcessHandle h = handle;
        return h != null && h.isAlive();
    }

    long pid() {
        return handle.pid();
    }

    /** CPU time the server process has used so far. */
    Duration cpuTime() {
        return handle.info().totalCpuDuration().orElseThrow(() -> new IllegalStateException("no CPU time for " + pid()));
    }

    /** Resident memory of the server process in MB, from /proc (0 where there is none). */
    long rssMegabytes() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid()), "status"))) {
                if (line.startsWith("VmRSS:")) return Long.parseLong(line.replaceAll("\\D", "")) / 1024;
            }
        } catch (IOException | NumberFormatException e) {
            // not Linux, or the process is gone
        }
        return 0;
    }

    /** SIGSTOP: the server keeps its port and accepts TCP connections but answers nothing (a hung warehouse). */
    void freeze() {
        signal("STOP");
    }

    /** SIGCONT after {@link #freeze()}. */
    void thaw() {
        signal("CONT");
    }

    private void signal(String signal) {
        signal(pid(), signal);
    }

    private static void signal(long pid, String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + pid + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /**
     * Stops the server (thawing it first: a stopped process does not act on SIGTERM) and deletes its directory; an
     * engine of the test run is left running (its watchdog stops it when the run ends).
     */
    @Override
    public void close() {
        if (!owned) return;
        Process p = process;
        if (p != null) {
            if (p.isAlive()) {
                try {
                    thaw();
                } catch (RuntimeException e) {
                    // it may have exited meanwhile; destroyForcibly below ends it either way
                }
            }
            p.destroy();
            try {
                if (!p.waitFor(20, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    p.waitFor(20, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                p.destroyForcibly();
            }
        }
        Dirs.deleteQuietly(dir);
    }

    /**
     * The {@code java} to run an engine with: {@code configured} (a system property's value, may be null), else
     * this JVM's own if its version fits, else the first JDK under /usr/lib/jvm whose folder name carries
     * a fitting version ({@code java-17-openjdk-amd64}, {@code temurin-25-jdk-amd64}). {@code missing} says what
     * to install when there is none.
     */
    static Path java(IntPredicate version, String configured, String missing) throws IOException {
        if (configured != null && !configured.isBlank()) return Path.of(configured);
        if (version.test(Runtime.version().feature())) return Path.of(System.getProperty("java.home"), "bin", "java");
        Path jvms = Path.of("/usr/lib/jvm");
        if (Files.isDirectory(jvms)) {
            try (Stream<Path> jdks = Files.list(jvms)) {
                Optional<Path> found = jdks.filter(p -> featureVersions(p.getFileName().toString()).stream().anyMatch(version::test))
                        .map(p -> p.resolve("bin/java")).filter(Files::isExecutable).sorted().findFirst();
                if (found.isPresent()) return found.get();
            }
        }
        throw new IOException(missing);
    }

    /** The Java feature versions a JDK folder's name may carry: {@code -17-}, {@code -17.0.2}, a trailing {@code -17}. */
    static List<Integer> featureVersions(String folder) {
        Matcher m = JDK_FEATURE.matcher(folder);
        return m.results().map(r -> Integer.parseInt(r.group(1))).toList();
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
