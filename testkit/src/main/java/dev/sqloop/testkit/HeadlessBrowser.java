package dev.sqloop.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Debian's Chromium, headless, for tests that must see a page as a browser renders it: one run loads a local file,
 * writes a PNG screenshot of the window and reports what the page wrote to the console — console calls and uncaught
 * JavaScript errors ({@code Uncaught …}), which Chromium logs as {@code :CONSOLE} lines with
 * {@code --enable-logging=stderr}. Installs the {@code chromium} package first when there is none (as root, like
 * {@link dev.sqloop.testkit.engines.PostgresServer} installs PostgreSQL). Runs with {@code --no-sandbox}: tests run as root here.
 */
public final class HeadlessBrowser {
    private static final Logger LOG = LoggerFactory.getLogger(HeadlessBrowser.class);
    private static final List<Path> CANDIDATES = List.of(Path.of("/usr/bin/chromium"), Path.of("/usr/bin/chromium-browser"));
    private static final Pattern CONSOLE = Pattern.compile(":CONSOLE(?:\\(\\d+\\)|:\\d+)?\\] (.*)$");

    /**
     * @param screenshot the PNG of the window
     * @param console every message the page logged, with its source (empty for a clean page)
     * @param log Chromium's whole stderr (D-Bus and GPU complaints of a container included), for failure messages
     */
    public record Render(Path screenshot, List<String> console, String log) {}

    private HeadlessBrowser() {}

    /** Renders {@code page} in a {@code width} x {@code height} window. */
    public static Render render(Path page, int width, int height) throws IOException, InterruptedException {
        Path binary = binary();
        Path work = Files.createTempDirectory("sqloop-chromium-");
        try {
            Path screenshot = Files.createTempFile("sqloop-screenshot-", ".png");
            Files.delete(screenshot);
            Path err = work.resolve("stderr.log");
            List<String> cmd = List.of(binary.toString(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--no-first-run", "--hide-scrollbars", "--user-data-dir=" + work.resolve("profile"),
                    "--enable-logging=stderr", "--v=0", "--window-size=" + width + "," + height, "--screenshot=" + screenshot,
                    page.toAbsolutePath().toUri().toString());
            Process p = new ProcessBuilder(cmd).redirectOutput(work.resolve("stdout.log").toFile()).redirectError(err.toFile()).start();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("chromium did not finish in 60 s: " + cmd + "\n" + Files.readString(err));
            }
            String log = Files.readString(err);
            if (p.exitValue() != 0 || !Files.exists(screenshot)) {
                throw new IOException("chromium failed (exit " + p.exitValue() + "): " + cmd + "\n" + log);
            }
            List<String> console = new ArrayList<>();
            for (String line : log.lines().toList()) {
                Matcher m = CONSOLE.matcher(line);
                if (m.find()) console.add(m.group(1));
            }
            return new Render(screenshot, console, log);
        } finally {
            Dirs.deleteQuietly(work);
        }
    }

    /**
     * The document {@code page} (a file URI, a {@code #fragment} included) holds once loaded and its scripts have run,
     * as Chromium serializes it ({@code --dump-dom}): what a page's script did to it, for tests of that script.
     */
    public static String dom(java.net.URI page) throws IOException, InterruptedException {
        Path binary = binary();
        Path work = Files.createTempDirectory("sqloop-chromium-");
        try {
            Path out = work.resolve("dom.html");
            Path err = work.resolve("stderr.log");
            List<String> cmd = List.of(binary.toString(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--no-first-run", "--user-data-dir=" + work.resolve("profile"), "--dump-dom", page.toString());
            Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("chromium did not finish in 60 s: " + cmd + "\n" + Files.readString(err));
            }
            if (p.exitValue() != 0) throw new IOException("chromium failed (exit " + p.exitValue() + "): " + cmd + "\n" + Files.readString(err));
            return Files.readString(out);
        } finally {
            Dirs.deleteQuietly(work);
        }
    }

    /** Chromium's binary; installs Debian's package when there is none. */
    public static synchronized Path binary() throws IOException {
        Path found = installed();
        if (found != null) return found;
        LOG.info("installing chromium from Debian packages (~290 MB)");
        Apt.install("chromium", Duration.ofMinutes(15));
        found = installed();
        if (found == null) throw new IOException("chromium installed but no binary found in " + CANDIDATES);
        return found;
    }

    /**
     * Debian's {@code chromedriver} for the Chromium of {@link #binary()} (same package version), for tests that drive
     * pages with a WebDriver client (clicks, forms, console logs); installs {@code chromium-driver} when there is none.
     */
    public static synchronized Path driver() throws IOException {
        binary();
        Path driver = Path.of("/usr/bin/chromedriver");
        if (Files.isExecutable(driver)) return driver;
        LOG.info("installing chromium-driver from Debian packages");
        Apt.install("chromium-driver", Duration.ofMinutes(15));
        if (!Files.isExecutable(driver)) throw new IOException("chromium-driver installed but no " + driver);
        return driver;
    }

    private static Path installed() {
        return CANDIDATES.stream().filter(Files::isExecutable).findFirst().orElse(null);
    }
}
