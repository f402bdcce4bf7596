package dev.sqloop.testkit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real processes: an owner, the process it watches, SIGKILLs. */
class WatchdogTest {
    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void stopLeftovers() {
        started.forEach(Process::destroyForcibly);
    }

    private Process sleeper() throws IOException {
        Process p = new ProcessBuilder("sleep", "300").start();
        started.add(p);
        return p;
    }

    @Test
    void shouldStopTheProcessAndDeleteItsFolderOnceTheOwnerIsKilled(@TempDir Path tmp) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("engine"));
        Files.writeString(dir.resolve("server.log"), "x");
        Process owner = sleeper();
        Process watched = sleeper();
        Process watchdog = Watchdog.stopWhenGone(owner.pid(), watched.pid(), dir, true);
        Thread.sleep(300);
        assertTrue(watched.isAlive() && watchdog.isAlive(), "nothing happens while the owner runs");
        owner.destroyForcibly().waitFor();
        assertTrue(watched.waitFor(15, TimeUnit.SECONDS), "the watched process ended after its owner was SIGKILLed");
        assertTrue(watchdog.waitFor(10, TimeUnit.SECONDS), "and the watchdog with it");
        assertFalse(Files.exists(dir), "its folder was deleted");
    }

    @Test
    void shouldEndAndLeaveEverythingAloneWhenTheProcessEndsFirst(@TempDir Path tmp) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("kept"));
        Process owner = sleeper();
        Process watched = sleeper();
        Process watchdog = Watchdog.stopWhenGone(owner.pid(), watched.pid(), dir, true);
        watched.destroyForcibly().waitFor();
        assertTrue(watchdog.waitFor(10, TimeUnit.SECONDS), "no watchdog lingers for a process killed on purpose");
        assertTrue(owner.isAlive());
        assertTrue(Files.isDirectory(dir));
    }

    @Test
    void shouldWatchAsLongAsTheOwnerWhenAskedTo(@TempDir Path tmp) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("engine"));
        Process owner = sleeper();
        Process watched = sleeper();
        Process watchdog = Watchdog.stopWhenGone(owner.pid(), watched.pid(), dir, false);
        watched.destroyForcibly().waitFor();
        assertFalse(watchdog.waitFor(3, TimeUnit.SECONDS), "an engine that died keeps its folder until the run ends");
        assertTrue(Files.isDirectory(dir));
        owner.destroyForcibly().waitFor();
        assertTrue(watchdog.waitFor(15, TimeUnit.SECONDS));
        assertFalse(Files.exists(dir));
    }

    /** A service JVM whose parent JVM is SIGKILLed stops too; the parent's own watchdog ends with the parent. */
    @Test
    void shouldStopAServiceJvmWhenTheJvmThatStartedItIsKilled(@TempDir Path tmp) throws Exception {
        ServiceJvm parent = ServiceJvm.start("parent", List.of(System.getProperty("java.class.path")), List.of("-Xmx64m"),
                Parent.class.getName(), List.of(tmp.resolve("child.log").toString()), Map.of(), tmp.resolve("parent.log"));
        try {
            long child = Long.parseLong(parent.await(Pattern.compile("child pid (\\d+)"), Duration.ofSeconds(60)));
            ProcessHandle handle = ProcessHandle.of(child).orElseThrow();
            assertTrue(handle.isAlive());
            parent.kill9();
            handle.onExit().get(30, TimeUnit.SECONDS);
            assertFalse(handle.isAlive(), "the child JVM ended after its parent was SIGKILLed");
            assertTrue(parent.watchdog().waitFor(10, TimeUnit.SECONDS), "the parent's watchdog ended with the parent");
        } finally {
            parent.close();
        }
    }

    /** Starts {@link Sleeper} as a {@link ServiceJvm} and prints its pid. */
    public static final class Parent {
        public static void main(String[] args) throws Exception {
            ServiceJvm child = ServiceJvm.start("child", List.of(System.getProperty("java.class.path")), List.of("-Xmx64m"),
                    Sleeper.class.getName(), List.of(), Map.of(), Path.of(args[0]));
            System.out.println("child pid " + child.pid());
            System.out.flush();
            Thread.sleep(300_000);
        }
    }

    public static final class Sleeper {
        public static void main(String[] args) throws Exception {
            Thread.sleep(300_000);
        }
    }
}
