package dev.sqloop.testkit;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Java process started from this JVM's own JDK and classpath: used for a broker or a worker that a
 * test kills with SIGKILL (kill -9), which no in-process object can simulate.
 */
public final class ForkedJvm implements AutoCloseable {
    private final Process process;
    private final Path log;

    private ForkedJvm(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    public static ForkedJvm start(String mainClass, List<String> jvmArgs, List<String> args, Path logFile) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmArgs);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(mainClass);
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(logFile.toFile());
        return new ForkedJvm(pb.start(), logFile);
    }

    public long pid() {
        return process.pid();
    }

    public boolean alive() {
        return process.isAlive();
    }

    public Path logFile() {
        return log;
    }

    /** SIGKILL: no shutdown hooks, no final commit, no flush. */
    public void kill9() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** SIGTERM, then SIGKILL if it has not exited within {@code grace}. */
    public void stop(Duration grace) throws InterruptedException {
        process.destroy();
        if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) kill9();
    }

    @Override
    public void close() {
        try {
            stop(Duration.ofSeconds(20));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
