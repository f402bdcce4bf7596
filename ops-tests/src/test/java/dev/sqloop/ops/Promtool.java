package dev.sqloop.ops;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Prometheus' promtool: Debian's {@code prometheus} package, installed with apt if missing (as testkit does for PostgreSQL). */
final class Promtool {
    private static Path binary;

    private Promtool() {}

    record Result(int exit, String output) {}

    static synchronized Path binary() throws IOException, InterruptedException {
        if (binary != null) return binary;
        for (String p : List.of("/usr/bin/promtool", "/usr/local/bin/promtool")) {
            if (Files.isExecutable(Path.of(p))) return binary = Path.of(p);
        }
        if (!"root".equals(System.getProperty("user.name"))) throw new IOException("no promtool and not root to install Debian's prometheus package");
        Result r = null;
        // another test JVM may hold dpkg's lock (testkit installs PostgreSQL the same way): try a few times
        for (int attempt = 0; attempt < 5 && (r == null || r.exit() != 0); attempt++) {
            if (attempt > 0) Thread.sleep(15_000);
            exec(List.of("apt-get", "update"), 300);
            r = exec(List.of("apt-get", "install", "-y", "--no-install-recommends", "prometheus"), 600);
        }
        if (r.exit() != 0 || !Files.isExecutable(Path.of("/usr/bin/promtool"))) throw new IOException("installing prometheus failed:\n" + r.output());
        return binary = Path.of("/usr/bin/promtool");
    }

    /** The Prometheus server of the same package. */
    static synchronized Path prometheus() throws IOException, InterruptedException {
        Path server = binary().resolveSibling("prometheus");
        if (!Files.isExecutable(server)) throw new IOException("promtool at " + binary() + " but no prometheus beside it");
        return server;
    }

    static Result run(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(binary().toString());
        cmd.addAll(List.of(args));
        return exec(cmd, 120);
    }

    private static Result exec(List<String> cmd, int timeoutSeconds) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("DEBIAN_FRONTEND", "noninteractive");
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(cmd + " timed out");
        }
        return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }
}
