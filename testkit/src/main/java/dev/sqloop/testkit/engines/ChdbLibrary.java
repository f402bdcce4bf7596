package dev.sqloop.testkit.engines;

import dev.sqloop.testkit.ToolCache;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * chDB's {@code libchdb.so} (ClickHouse {@value #VERSION} in one shared library, 566 MB) for tests and the demo: fetched
 * once per machine with {@code npm pack} of its platform package (the npm registry is reachable where Maven Central is)
 * into testkit's {@link ToolCache}, and reused.
 */
public final class ChdbLibrary {
    /** The platform part of npm's {@code chdb}; its ClickHouse answers {@code version()} with 26.7.2.1. */
    public static final String PACKAGE = "@chdb/lib-linux-x64-gnu";
    public static final String VERSION = "26.7.3-stable.1";
    private static final Logger LOG = LoggerFactory.getLogger(ChdbLibrary.class);

    private ChdbLibrary() {}

    /** The library's path, fetched and unpacked on first use; a file lock keeps two test JVMs from fetching at once. */
    public static synchronized Path path() {
        try {
            return install();
        } catch (IOException e) {
            throw new IllegalStateException("chDB library not available: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted fetching the chDB library", e);
        }
    }

    /** {@link #path()} also set as the system property the binding reads ({@code sqloop.chdb.library}). */
    public static synchronized Path forThisJvm() {
        return use(path());
    }

    /**
     * {@code library} set for this JVM's chDB (the system property), with the exit guard below: for a process that
     * loads a library of its own ({@code SQLOOP_CHDB_LIBRARY}) as for one that loads {@link #path()}.
     */
    public static synchronized Path use(Path library) {
        Path p = library;
        System.setProperty("sqloop.chdb.library", p.toString());
        if (!exitGuarded) {
            exitGuarded = true;
            LIBC = com.sun.jna.Native.load("c", LibC.class);
            Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("sqloop-chdb-exit").unstarted(ChdbLibrary::haltAfterHooks));
        }
        return p;
    }

    private static boolean exitGuarded;
    private static volatile int exitStatus;

    /**
     * The status the exit guard ends the process with ({@code _exit} takes it; {@code System.exit}'s is not readable
     * from a shutdown hook): a command's entry point sets it before {@code System.exit}, so a failed demo still exits
     * non-zero. Test JVMs leave it 0.
     */
    public static void exitStatus(int status) {
        exitStatus = status;
    }

    private static final java.util.List<Thread> AWAITED = new java.util.concurrent.CopyOnWriteArrayList<>();
    private static volatile long awaitedMillis;

    /**
     * A shutdown hook of the caller's that the exit guard waits for, up to {@code bound}, before {@code _exit}: a command
     * whose Ctrl-C writes a partial report or closes a pipeline would otherwise be cut off after the guard's 2 s.
     */
    public static void exitAfter(Thread hook, Duration bound) {
        AWAITED.add(hook);
        awaitedMillis = Math.max(awaitedMillis, bound.toMillis());
    }

    /** Whether {@link #path()} answers without fetching (the library is in the tool cache already). */
    public static boolean installed() {
        Path dir = ToolCache.base().resolve(TOOL);
        return Files.exists(dir.resolve(".installed")) && Files.exists(dir.resolve("libchdb.so"));
    }

    /** Where {@link #path()} keeps the library. */
    public static Path cacheDir() {
        return ToolCache.base().resolve(TOOL);
    }

    private static final String TOOL = "chdb-lib-linux-x64-gnu-" + VERSION;

    /**
     * chDB's native exit handlers deadlocked on one of its mutexes (a local run) and crashed with SIGSEGV (a CI run,
     * after every test had passed: failsafe then fails the build) at JVM exit in a test JVM that had also run the
     * embedder (ONNX Runtime beside chDB). {@code Runtime.halt} still calls libc's {@code exit}, which runs those
     * handlers; a test JVM that loads chDB therefore ends with libc's {@code _exit} once the other shutdown hooks have
     * had {@value #EXIT_GRACE_MILLIS} ms. Surefire and failsafe have had their goodbye by then (the fork exits after it).
     * The crashes' likely cause, chDB's crash handlers installed over the JVM's, is removed at its root (the chdb
     * module's HostSignals); this guard stays for the exit handlers themselves.
     */
    private static void haltAfterHooks() {
        try {
            Thread.sleep(EXIT_GRACE_MILLIS);
            long until = System.currentTimeMillis() + awaitedMillis;
            for (Thread hook : AWAITED) hook.join(Math.max(1, until - System.currentTimeMillis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        System.out.flush();
        System.err.flush();
        LIBC._exit(exitStatus);
    }

    /** Loaded when the guard is registered, not inside the hook, where loading a library could itself stall. */
    private interface LibC extends com.sun.jna.Library {
        void _exit(int status);
    }

    private static LibC LIBC;

    static final long EXIT_GRACE_MILLIS = 2_000;

    private static Path jvmDatabase;

    /**
     * The library set for this JVM ({@link #forThisJvm()}) and the one database directory its chDB runs on: chDB keeps
     * one storage path per process, so every test in a JVM shares it (one database per test class keeps them apart).
     */
    public static synchronized Path jvmDatabaseDir() {
        forThisJvm();
        if (jvmDatabase == null) {
            try {
                jvmDatabase = dev.sqloop.testkit.TestDirs.create("sqloop-chdb-");
            } catch (IOException e) {
                throw new IllegalStateException("no temp directory for chDB: " + e.getMessage(), e);
            }
        }
        return jvmDatabase;
    }

    private static Path install() throws IOException, InterruptedException {
        return ToolCache.installed(TOOL, "libchdb.so", dir -> {
            Path log = dir.resolve("fetch.log");
            LOG.info("fetching {}@{} (178 MB) into {}", PACKAGE, VERSION, dir);
            ToolCache.run(dir, log, Duration.ofMinutes(10), ToolCache.npm().toString(), "pack", PACKAGE + "@" + VERSION, "--loglevel=error");
            Path tgz;
            try (var files = Files.list(dir)) {
                tgz = files.filter(f -> f.getFileName().toString().endsWith(".tgz")).findFirst().orElse(null);
            }
            if (tgz == null) throw new IOException("npm pack left no .tgz in " + dir + ":\n" + Files.readString(log));
            // only the library: the package also holds a Node addon sqloop does not use
            ToolCache.run(dir, log, Duration.ofMinutes(10), "tar", "xzf", tgz.getFileName().toString(), "--strip-components=1",
                    "package/libchdb.so");
            Files.delete(tgz);
        });
    }
}
