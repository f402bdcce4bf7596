package dev.sqloop.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A service in its own JVM on a classpath the caller gives (e.g. the launcher's, so it runs exactly what
 * {@code ./sqloop run SERVICE} deploys), configured only by the environment the caller gives ({@code SQLOOP_*}
 * inherited from this JVM are removed), its output in a log file. {@link #kill9()} is a real SIGKILL; {@link #restart}
 * starts the same command again with a new log file, so every incarnation's log stays for scanning. A {@link Watchdog}
 * stops it if this JVM ends first, however it ends.
 */
public final class ServiceJvm implements AutoCloseable {
    private final String name;
    private final List<String> command;
    private final Map<String, String> env;
    private final Path log;
    private final Process process;
    private final long startedNanos;
    /** Stops the service if this JVM ends without stopping it (killed); ends by itself when the service does. */
    private final Process watchdog;
    /** The temp folder {@link #start} gave it (shared by its restarts), removed by {@link #close()}; null when the caller chose one. */
    private final Path tmp;

    private ServiceJvm(String name, List<String> command, Map<String, String> env, Path log, Path tmp) throws IOException {
        this.name = name;
        this.tmp = tmp;
        this.command = List.copyOf(command);
        this.env = Map.copyOf(env);
        this.log = log;
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("SQLOOP_"));
        pb.environment().putAll(env);
        this.startedNanos = System.nanoTime();
        this.process = pb.start();
        this.watchdog = Watchdog.stopWhenGone(ProcessHandle.current().pid(), process.pid(), null, true);
    }

    /** {@code java jvmArgs -cp classpath mainClass args}, on this JVM's own JDK. */
    public static ServiceJvm start(String name, List<String> classpath, List<String> jvmArgs, String mainClass, List<String> args,
                                   Map<String, String> env, Path logFile) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmArgs);
        Path tmp = null;
        if (jvmArgs.stream().noneMatch(a -> a.startsWith("-Djava.io.tmpdir="))) {
            // Beside its log, not in /tmp: DuckDB, RocksDB and lz4 unpack their native libraries into the temp folder
            // and delete them at exit, ONNX Runtime a folder, so every SIGKILLed JVM left them behind (~220 MB in
            // /tmp after one suite run); here they go when the service is closed, or with the test's folder.
            tmp = Files.createDirectories(logFile.toAbsolutePath().getParent().resolve("tmp-" + name));
            cmd.add("-Djava.io.tmpdir=" + tmp);
        }
        cmd.add("-cp");
        cmd.add(String.join(java.io.File.pathSeparator, classpath));
        cmd.add(mainClass);
        cmd.addAll(args);
        return new ServiceJvm(name, cmd, env, logFile, tmp);
    }

    /**
     * {@code mainClass} on this JVM's own classpath and with its own {@code SQLOOP_*} environment (a broker, or a test's
     * worker), logging to {@code logFile}: for a process a test kills with SIGKILL, which no in-process object can simulate.
     */
    public static ServiceJvm fork(String mainClass, List<String> jvmArgs, List<String> args, Path logFile) throws IOException {
        Map<String, String> env = new java.util.HashMap<>();
        System.getenv().forEach((k, v) -> {
            if (k.startsWith("SQLOOP_")) env.put(k, v);
        });
        return start(mainClass, List.of(System.getProperty("java.class.path")), jvmArgs, mainClass, args, env, logFile);
    }

    /** The same command and environment again, logging to {@code logFile} (the old process must be gone). */
    public ServiceJvm restart(Path logFile) throws IOException {
        if (process.isAlive()) throw new IllegalStateException(name + " is still running");
        return new ServiceJvm(name, command, env, logFile, tmp);
    }

    public String name() {
        return name;
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

    /** The watchdog that stops this service if the JVM that started it ends first. */
    Process watchdog() {
        return watchdog;
    }

    public long startedNanos() {
        return startedNanos;
    }

    public String output() {
        try {
            return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e + ")";
        }
    }

    /** Waits for a line matching {@code pattern} and returns its first group (the whole match without one). */
    public String await(Pattern pattern, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            Matcher m = pattern.matcher(output());
            if (m.find()) return m.groupCount() > 0 ? m.group(1) : m.group();
            if (!process.isAlive()) throw new IllegalStateException(name + " exited with " + process.exitValue() + ":\n" + output());
            Thread.sleep(100);
        }
        throw new IllegalStateException(name + ": no line matching " + pattern + " within " + timeout + ":\n" + output());
    }

    /** SIGKILL: no shutdown hook runs, nothing is committed or flushed. */
    public void kill9() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) throw new IllegalStateException(name + " survived SIGKILL");
    }

    /** SIGTERM without waiting: several JVMs asked together then each waited for ({@link #stop}) stop side by side. */
    public void requestStop() {
        process.destroy();
    }

    /** SIGTERM (the services' shutdown hooks close their runners), then SIGKILL after {@code grace}. */
    public void stop(Duration grace) throws InterruptedException {
        requestStop();
        if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) kill9();
    }

    /** Stops it ({@link #stop} with 20 s of grace) and removes the temp folder it and its earlier incarnations used. */
    @Override
    public void close() {
        try {
            stop(Duration.ofSeconds(20));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        if (tmp != null && !process.isAlive()) Dirs.deleteQuietly(tmp);
    }

    /** The temp folder this JVM was given ({@code java.io.tmpdir}), or null when the caller set one. */
    Path tmpDir() {
        return tmp;
    }
}
