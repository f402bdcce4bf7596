package dev.sqloop.testkit;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Installs a Debian package for a test that needs a program the machine lacks (PostgreSQL, Chromium). */
public final class Apt {
    private Apt() {}

    /** {@code apt-get update}, then {@code apt-get install --no-install-recommends pkg}, within {@code limit}; root only. */
    public static synchronized void install(String pkg, Duration limit) throws IOException {
        if (!"root".equals(System.getProperty("user.name"))) throw new IOException("no " + pkg + " installed and not root to install it");
        // another test JVM (or the machine) may hold dpkg's lock for a while: wait for it rather than fail
        exec(List.of("apt-get", "-o", "DPkg::Lock::Timeout=300", "update"), Duration.ofMinutes(10));
        exec(List.of("apt-get", "-o", "DPkg::Lock::Timeout=300", "install", "-y", "--no-install-recommends", pkg), limit.plusMinutes(5));
    }

    private static void exec(List<String> cmd, Duration limit) throws IOException {
        try {
            Process p = new ProcessBuilder(cmd).inheritIO().start();
            if (!p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IOException("failed: " + cmd);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted: " + cmd, e);
        }
    }
}
