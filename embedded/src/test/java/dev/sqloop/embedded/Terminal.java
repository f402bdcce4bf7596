package dev.sqloop.embedded;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A tmux session for terminal tests: run a command in a real pseudo-terminal and read its screen. Each terminal has its
 * own tmux server (its own socket): on the shared default socket, a session started while the previous server was
 * exiting after its last session closed found "no server running" (seen in CI).
 */
final class Terminal implements AutoCloseable {
    private final String socket;
    private final String session;

    private Terminal(String socket, String session) {
        this.socket = socket;
        this.session = session;
    }

    /** Installs tmux with apt when the machine lacks it (tests start what they need). */
    static void ensureTmux() throws IOException, InterruptedException {
        if (run(List.of("sh", "-c", "command -v tmux")).isBlank()) {
            run(List.of("sh", "-c", "apt-get install -y -qq tmux || (apt-get update -qq && apt-get install -y -qq tmux)"));
        }
    }

    static Terminal start(String command) throws IOException, InterruptedException {
        String name = "sqloop-test-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        String socket = Path.of(System.getProperty("java.io.tmpdir"), name + ".tmux").toString();
        // the command from a script: tmux refuses a command line past its message size ("command too long"), and a
        // test JVM's classpath alone is longer
        Path script = Files.createTempFile(name, ".sh");
        Files.writeString(script, command + "\n");
        script.toFile().deleteOnExit();
        Process p = new ProcessBuilder(List.of("tmux", "-S", socket, "new-session", "-d", "-s", name, "-x", "200", "-y",
                "50", "sh " + script)).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("tmux new-session failed: " + out);
        }
        return new Terminal(socket, name);
    }

    String screen() throws IOException, InterruptedException {
        return run(List.of("tmux", "-S", socket, "capture-pane", "-p", "-t", session));
    }

    private static String run(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(new ArrayList<>(cmd)).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(60, TimeUnit.SECONDS);
        return out;
    }

    @Override
    public void close() throws IOException, InterruptedException {
        run(List.of("tmux", "-S", socket, "kill-server"));
        Files.deleteIfExists(Path.of(socket));
    }
}
