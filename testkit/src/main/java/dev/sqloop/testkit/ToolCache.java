package dev.sqloop.testkit;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tools the tests fetch once per machine (from npm: Redocly's linter, chDB's library), each in a folder of
 * {@code $SQLOOP_TOOLS_DIR} (default {@code ~/.cache/sqloop/tools}): installed under a file lock, so two test JVMs never
 * install at once, and marked complete ({@code .installed}) only when the install finished, so a cut one is redone.
 */
public final class ToolCache {
    private static final Logger LOG = LoggerFactory.getLogger(ToolCache.class);

    private ToolCache() {}

    /** What installs a tool into its (empty or half-filled) folder. */
    @FunctionalInterface
    public interface Installer {
        void install(Path dir) throws IOException, InterruptedException;
    }

    /** The tools' folder. */
    public static Path base() {
        return Path.of(System.getenv().getOrDefault("SQLOOP_TOOLS_DIR", System.getProperty("user.home") + "/.cache/sqloop/tools"));
    }

    /**
     * {@code name}'s folder, installed first when it is not complete or lacks {@code product} (the file the caller uses,
     * relative to the folder); returns the product's path.
     */
    public static Path installed(String name, String product, Installer installer) throws IOException, InterruptedException {
        Path dir = base().resolve(name);
        Path file = dir.resolve(product);
        Path done = dir.resolve(".installed");
        if (Files.exists(done) && Files.exists(file)) return file;
        Files.createDirectories(base());
        try (FileChannel lockFile = FileChannel.open(base().resolve(name + ".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
             FileLock ignored = lockFile.lock()) {
            if (Files.exists(done) && Files.exists(file)) return file;
            Files.createDirectories(dir);
            installer.install(dir);
            if (!Files.exists(file)) throw new IOException("installing " + name + " left no " + file);
            Files.writeString(done, name + "\n");
            return file;
        }
    }

    /** npm on the PATH, else Debian's {@code nodejs} and {@code npm} installed (tests install what they need). */
    public static synchronized Path npm() throws IOException {
        Path found = onPath("npm");
        if (found != null) return found;
        LOG.info("no npm: installing Debian's nodejs and npm");
        Apt.install("nodejs", Duration.ofMinutes(10));
        Apt.install("npm", Duration.ofMinutes(10));
        found = onPath("npm");
        if (found == null) throw new IOException("npm installed, yet not on the PATH");
        return found;
    }

    /** Runs {@code command} in {@code dir}, its output appended to {@code log}; fails with the log when it fails. */
    public static void run(Path dir, Path log, Duration limit, String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        if (!p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", command) + " did not finish in " + limit.toMinutes() + " min:\n" + Files.readString(log));
        }
        if (p.exitValue() != 0) throw new IOException(String.join(" ", command) + " exited " + p.exitValue() + ":\n" + Files.readString(log));
    }

    private static Path onPath(String program) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(java.io.File.pathSeparator)) {
            if (dir.isEmpty()) continue;
            Path p = Path.of(dir, program);
            if (Files.isExecutable(p)) return p;
        }
        Path usual = Path.of("/usr/bin", program);
        return Files.isExecutable(usual) ? usual : null;
    }
}
