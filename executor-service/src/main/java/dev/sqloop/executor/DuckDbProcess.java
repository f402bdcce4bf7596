package dev.sqloop.executor;

import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.runtime.InfrastructureException;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The executor's end of one DuckDB child process ({@link DuckDbProcessMain}): a JVM on the executor's own classpath,
 * started under an address-space cap ({@code RLIMIT_AS}, the datasource's {@code _PROCESS_MEMORY}), running one statement
 * at a time. A statement that has not answered at its timeout plus {@link #KILL_GRACE} is ended by killing the process:
 * DuckDB checks for interruption only between vectors, so a single huge value can run on for minutes after a cancel.
 */
final class DuckDbProcess {
    private static final Logger LOG = LoggerFactory.getLogger(DuckDbProcess.class);
    /** After the timeout: the child's own {@code setQueryTimeout} normally ends a statement well within it. */
    static final Duration KILL_GRACE = Duration.ofMillis(Watchdog.GRACE_MS);
    /** A start costs ~1.9 s of CPU (JVM, driver, opening the file): 2 s idle, up to 11 s seen at load 10 on 2 cores. */
    static final Duration START_TIMEOUT = Duration.ofSeconds(30);
    private static final int STDERR_TAIL = 4096;
    private static final boolean LINUX = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux");
    private static volatile boolean warnedUncapped;
    private static final ScheduledExecutorService DEADLINES = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "sqloop-duckdb-deadlines");
        t.setDaemon(true);
        return t;
    });

    private final Process process;
    private final DataOutputStream toChild;
    private final DataInputStream fromChild;
    private final StderrTail stderr;
    private final Path dir;
    private final long capBytes;
    private AllowListCheck.SessionScope scope;
    private volatile boolean killedAtDeadline;
    private volatile boolean closed;
    private volatile boolean spent;

    private DuckDbProcess(Process process, Path dir, long capBytes) {
        this.process = process;
        this.dir = dir;
        this.capBytes = capBytes;
        this.toChild = new DataOutputStream(new BufferedOutputStream(process.getOutputStream(), 1 << 16));
        this.fromChild = new DataInputStream(new BufferedInputStream(process.getInputStream(), 1 << 16));
        this.stderr = new StderrTail(process.getErrorStream(), "sqloop-duckdb-stderr-" + process.pid());
    }

    /**
     * Starts a child for {@code ds} in its own temp directory {@code dir} and waits until it has the file open.
     *
     * @throws StartFailed when it could not open the file (the engine's error) or did not come up
     */
    static DuckDbProcess start(DatasourceConfig ds, Path dir) throws StartFailed {
        Path file = databaseFile(ds.jdbcUrl());
        if (file != null && !Files.isRegularFile(file)) {
            // DuckDB's own answer, without a JVM started for it (the runner retries an unreachable warehouse)
            throw new StartFailed(EngineError.infrastructure("IO Error: Cannot open database \"" + file
                    + "\" in read-only mode: database does not exist"));
        }
        long cap = ds.safeguards().processMemoryBytes();
        DuckDbProcess p;
        try {
            Files.createDirectories(dir);
            ProcessBuilder pb = new ProcessBuilder(command(cap, dir));
            environment(pb.environment());
            p = new DuckDbProcess(pb.start(), dir, cap);
        } catch (IOException e) {
            deleteTree(dir);
            throw new StartFailed(EngineError.infrastructure("cannot start a DuckDB process for datasource " + ds.name() + ": " + e.getMessage()));
        }
        DuckDbProcess started = p;
        ScheduledFuture<?> deadline = DEADLINES.schedule(() -> {
            started.killedAtDeadline = true;
            started.kill();
        }, START_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        try {
            DuckDbWire.write(p.toChild, new DuckDbWire.Open(ds.name(), ds.jdbcUrl(), ds.properties(), ds.safeguards().memoryLimit(),
                    ds.safeguards().threads(), ds.safeguards().tempSize()));
            DuckDbWire.Ready ready = DuckDbWire.read(p.fromChild, DuckDbWire.Ready.class);
            if (ready.error() != null) {
                p.close();
                throw new StartFailed(ready.error());
            }
            p.scope = new AllowListCheck.SessionScope(ready.catalog(), ready.schemas(), ready.implicit());
            return p;
        } catch (IOException e) {
            String why = p.killedAtDeadline ? " within " + START_TIMEOUT.toSeconds() + " s" : ": " + p.ended(e);
            p.close();
            throw new StartFailed(EngineError.infrastructure("the DuckDB process for datasource " + ds.name() + " did not start" + why));
        } finally {
            deadline.cancel(false);
        }
    }

    /**
     * Runs one statement. The answer is the child's; when the child is gone instead (killed at the deadline, ended at
     * its memory cap, crashed) it is a {@code timeout} naming what happened, the one category the repair loop reads as
     * "too expensive: make it cheaper".
     */
    DuckDbWire.Reply run(DuckDbWire.Request request) {
        long killAfter = request.timeoutMillis() + KILL_GRACE.toMillis();
        ScheduledFuture<?> deadline = DEADLINES.schedule(() -> {
            killedAtDeadline = true;
            kill();
        }, killAfter, TimeUnit.MILLISECONDS);
        try {
            DuckDbWire.write(toChild, request);
            DuckDbWire.Reply reply = DuckDbWire.read(fromChild, DuckDbWire.Reply.class);
            // an allocation DuckDB refused may leave the heap grown and fragmented: a fresh process for the next query
            if (reply.error() != null && reply.error().message().startsWith("Out of Memory")) spent = true;
            return reply;
        } catch (IOException e) {
            if (closed) {
                // the executor is stopping: the runner hands the question on again, it is not this query's failure
                throw new InfrastructureException("the DuckDB process was stopped with the executor", e);
            }
            if (killedAtDeadline) {
                return DuckDbWire.Reply.error(EngineError.sql(ErrorCategory.TIMEOUT, "the query did not end within its timeout of "
                        + seconds(request.timeoutMillis()) + " and was stopped (sqloop ended the DuckDB process running it):"
                        + " make it cheaper, or build smaller values"));
            }
            String how = ended(e);
            kill();
            return DuckDbWire.Reply.error(EngineError.sql(ErrorCategory.TIMEOUT, "the DuckDB process running the query ended ("
                    + how + "): the query needs more memory than the process may use (" + (capBytes >> 20) + " MiB of address"
                    + " space, a 256 MB Java heap for the rows it returns); make it cheaper, or build smaller values"));
        } finally {
            deadline.cancel(false);
        }
    }

    AllowListCheck.SessionScope scope() {
        return scope;
    }

    long pid() {
        return process.pid();
    }

    /** Whether the next query may use this process: alive, not killed, not past an allocation failure. */
    boolean reusable() {
        return !spent && process.isAlive();
    }

    /** Ends the process at once (SIGKILL): nothing it holds is shared, the file is open read-only. */
    void kill() {
        // before the signal: a reply read just as the deadline fired must not return a dying process to the pool
        spent = true;
        process.destroyForcibly();
    }

    /** Kills the process, waits briefly for it to be reaped, and deletes its temp directory. */
    void close() {
        closed = true;
        kill();
        try {
            process.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        deleteTree(dir);
    }

    /** How the child ended: its exit status and the last line it wrote to stderr. */
    private String ended(IOException e) {
        try {
            if (!process.waitFor(2, TimeUnit.SECONDS)) return "no answer: " + e.getMessage();
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
        }
        int status = process.exitValue();
        String why = status > 128 ? "killed by signal " + (status - 128) : "exit status " + status;
        String last = stderr.lastLine(Duration.ofMillis(500));
        return last.isEmpty() ? why : why + ": " + last;
    }

    /** The file a {@code jdbc:duckdb:} URL opens, or null for an in-memory or remote database. */
    static Path databaseFile(String url) {
        String rest = url.startsWith("jdbc:duckdb:") ? url.substring("jdbc:duckdb:".length()) : "";
        // the driver reads options after ';' (session_init_sql_file=…)
        int options = rest.indexOf(';');
        if (options >= 0) rest = rest.substring(0, options);
        if (rest.isBlank() || rest.startsWith(":memory:") || rest.matches("^[a-z][a-z0-9+]*:.*")) return null;
        return Path.of(rest);
    }

    private static String seconds(long millis) {
        return millis % 1000 == 0 ? millis / 1000 + " s" : millis + " ms";
    }

    /**
     * {@code java} of this JVM with flags for a small footprint (serial GC, C1 only, a 256 MB heap, small code cache and
     * metaspace), on this JVM's classpath, wrapped in {@code sh -c "ulimit -v"} on Linux: {@code RLIMIT_AS} bounds what
     * the process can map, JVM and DuckDB together, so an allocation past it fails inside the child.
     */
    static List<String> command(long capBytes, Path dir) {
        List<String> java = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xms16m", "-Xmx256m", "-XX:ReservedCodeCacheSize=32m",
                "-XX:MaxMetaspaceSize=96m", "-XX:CompressedClassSpaceSize=32m", "-XX:-UsePerfData",
                // a Java OutOfMemoryError ends the child (the parent reports it) instead of leaving it half-broken
                "-XX:+ExitOnOutOfMemoryError", "-XX:-CreateCoredumpOnCrash", "-XX:ErrorFile=" + dir.resolve("hs_err_%p.log"),
                "--enable-native-access=ALL-UNNAMED", "-Dfile.encoding=UTF-8", "-Djava.io.tmpdir=" + dir,
                "-cp", System.getProperty("java.class.path"), DuckDbProcessMain.class.getName()));
        if (!LINUX) {
            if (!warnedUncapped) LOG.warn("DuckDB child processes run without an address-space cap on {}: RLIMIT_AS is Linux's",
                    System.getProperty("os.name"));
            warnedUncapped = true;
            return java;
        }
        List<String> capped = new ArrayList<>(List.of("/bin/sh", "-c",
                // no core files (a capped child can still be gigabytes); the OOM killer of a container's memory limit
                // picks a child before the executor; a cap that cannot be set is a start failure
                "ulimit -c 0; echo 1000 > /proc/self/oom_score_adj 2>/dev/null;"
                        + " ulimit -v \"$1\" || { echo \"sqloop: cannot set RLIMIT_AS to $1 KiB\" >&2; exit 97; }; shift; exec \"$@\"",
                "sqloop-duckdb", Long.toString(capBytes / 1024)));
        capped.addAll(java);
        return capped;
    }

    /**
     * The child sees none of the executor's environment (datasource passwords, Kafka credentials, API keys): only locale,
     * time zone and {@code MALLOC_ARENA_MAX=2}, which keeps glibc from reserving 64 MB of address space per thread.
     */
    static void environment(Map<String, String> env) {
        Map<String, String> kept = new java.util.HashMap<>();
        for (String name : List.of("PATH", "LANG", "LC_ALL", "TZ")) {
            String v = env.get(name);
            if (v != null) kept.put(name, v);
        }
        env.clear();
        env.putAll(kept);
        env.put("MALLOC_ARENA_MAX", "2");
    }

    static void deleteTree(Path dir) {
        if (dir == null || !Files.exists(dir)) return;
        try (Stream<Path> all = Files.walk(dir)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    // best effort: a temp directory
                }
            });
        } catch (IOException | RuntimeException e) {
            LOG.debug("could not delete {}: {}", dir, e.toString());
        }
    }

    /** Starting failed: the engine's error opening the file, or an infrastructure error. */
    static final class StartFailed extends Exception {
        final EngineError error;

        StartFailed(EngineError error) {
            super(error.message(), null, false, false);
            this.error = error;
        }
    }

    /** Drains the child's stderr (a full pipe would block it) and keeps its last few KB for the error message. */
    private static final class StderrTail {
        private final byte[] tail = new byte[STDERR_TAIL];
        private final Thread drainer;
        private int length;

        StderrTail(InputStream in, String name) {
            drainer = new Thread(() -> drain(in), name);
            drainer.setDaemon(true);
            drainer.start();
        }

        private void drain(InputStream in) {
            byte[] buf = new byte[4096];
            try (in) {
                int n;
                while ((n = in.read(buf)) > 0) append(buf, n);
            } catch (IOException e) {
                // the child ended
            }
        }

        private synchronized void append(byte[] buf, int n) {
            if (n >= tail.length) {
                System.arraycopy(buf, n - tail.length, tail, 0, tail.length);
                length = tail.length;
                return;
            }
            int keep = Math.min(length, tail.length - n);
            System.arraycopy(tail, length - keep, tail, 0, keep);
            System.arraycopy(buf, 0, tail, keep, n);
            length = keep + n;
        }

        /**
         * What the child last said about memory ({@code OutOfMemoryError}, the JVM's "insufficient memory", C++'s
         * {@code bad_alloc}), else its last line; waits up to {@code drained} for the pipe to be read to its end.
         */
        String lastLine(Duration drained) {
            try {
                drainer.join(drained.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            String text;
            synchronized (this) {
                text = new String(tail, 0, length, StandardCharsets.UTF_8);
            }
            List<String> lines = text.lines().map(l -> l.replaceFirst("^#+\\s*", "").strip())
                    .filter(l -> !l.isEmpty() && !l.startsWith("WARNING:")).toList();
            if (lines.isEmpty()) return "";
            String last = lines.get(lines.size() - 1);
            for (String l : lines) {
                String lower = l.toLowerCase(Locale.ROOT);
                if (lower.contains("memory") || lower.contains("bad_alloc") || lower.contains("terminate")) last = l;
            }
            return last.length() > 300 ? last.substring(0, 300) + "…" : last;
        }
    }
}
