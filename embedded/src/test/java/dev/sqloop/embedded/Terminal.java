package dev.sqloop.embedded;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A tmux session for terminal tests: run a command in a real pseudo-terminal and read its screen. */
final class Terminal implements AutoCloseable {
    private final String session;

    private Terminal(String session) {
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
        run(List.of("tmux", "new-session", "-d", "-s", name, "-x", "200", "-y", "50", command));
        return new Terminal(name);
    }

    String screen() throws IOException, InterruptedException {
        return run(List.of("tmux", "capture-pane", "-p", "-t", session));
    }

    private static String run(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(new ArrayList<>(cmd)).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(60, TimeUnit.SECONDS);
        return out;
    }

    @Override
    public void close() throws IOException, InterruptedException {
        run(List.of("tmux", "kill-session", "-t", session));
    }
}
