package dev.sqloop.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The launcher's own command: {@code ./sqloop test --help} says what {@code test} takes, instead of passing --help to
 * Maven (which printed Maven's help). Runs the real script; it starts no JVM and no build for this.
 */
class LauncherTest {
    private static final Path LAUNCHER = Path.of("..", "sqloop").toAbsolutePath().normalize();

    @Test
    void shouldDescribeItsTestCommandItselfOnHelp() throws Exception {
        assertTrue(Files.isExecutable(LAUNCHER), LAUNCHER + " is the launcher");
        for (String flag : new String[] {"--help", "-h"}) {
            ProcessBuilder pb = new ProcessBuilder("bash", LAUNCHER.toString(), "test", "-pl", "cli", flag).redirectErrorStream(true);
            pb.environment().put("SQLOOP_JAVA_HOME", System.getProperty("java.home"));
            Process p = pb.start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "answered at once");
            assertEquals(0, p.exitValue(), out);
            assertTrue(out.startsWith("usage: ./sqloop test [MAVEN OPTIONS...]"), out);
            assertTrue(out.contains("-DskipITs") && out.contains("-Dit.test=") && out.contains("Exit code"), out);
            assertFalse(out.contains("usage: mvn") || out.contains("running all tests"), "Maven is not run: " + out);
        }
    }

    /**
     * SQLOOP_BUILD=never never builds, even where a module the command needs is not built: the ITs run the launcher in
     * the middle of a Maven build of the same tree, and the launcher's build ("clean package") deleted the test classes
     * of the module under test once. The copy of the launcher stands in a folder with nothing built.
     */
    @Test
    void shouldNeverBuildWhenToldNotTo(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Path copy = Files.copy(LAUNCHER, dir.resolve("sqloop"));
        Files.writeString(dir.resolve("pom.xml"), "<project/>");
        for (String command : new String[] {"demo", "bench", "status"}) {
            ProcessBuilder pb = new ProcessBuilder("bash", copy.toString(), command, "--help").redirectErrorStream(true);
            pb.environment().put("SQLOOP_JAVA_HOME", System.getProperty("java.home"));
            pb.environment().put("SQLOOP_BUILD", "never");
            Process p = pb.start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "answered at once");
            assertEquals(2, p.exitValue(), command + ": " + out);
            assertTrue(out.contains("SQLOOP_BUILD=never") && out.contains("is not built"), command + ": " + out);
            assertFalse(out.contains("building") || Files.exists(dir.resolve(".sqloop/build.log")), "no build: " + out);
        }
    }
}
