package dev.sqloop.testkit.engines;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class EngineProcessTest {

    @Test
    void shouldReadTheJavaVersionFromAJdkFolderName() {
        assertEquals(List.of(17), EngineProcess.featureVersions("java-17-openjdk-amd64"));
        assertEquals(List.of(17), EngineProcess.featureVersions("openjdk-17"));
        assertEquals(List.of(17), EngineProcess.featureVersions("jdk-17.0.2"));
        assertEquals(List.of(25), EngineProcess.featureVersions("temurin-25-jdk-amd64"));
        assertEquals(List.of(1), EngineProcess.featureVersions("java-1.17.0-openjdk-amd64"), "the 1.x alias is not a 17");
        assertEquals(List.of(), EngineProcess.featureVersions("default-java"));
    }

    @Test
    void shouldPreferTheConfiguredJavaThenThisJvm() throws IOException {
        assertEquals(Path.of("/opt/some/bin/java"), EngineProcess.java(v -> true, "/opt/some/bin/java", "none"));
        int own = Runtime.version().feature();
        assertEquals(Path.of(System.getProperty("java.home"), "bin", "java"), EngineProcess.java(v -> v == own, null, "none"));
        assertEquals(Path.of(System.getProperty("java.home"), "bin", "java"), EngineProcess.java(v -> v == own, " ", "none"));
        IOException e = assertThrows(IOException.class, () -> EngineProcess.java(v -> v == 7, null, "install a JDK 7"));
        assertEquals("install a JDK 7", e.getMessage());
    }

    @Test
    void shouldFailWithTheLogTailWhenTheProcessExitsAndDeleteItsDirectoryOnClose() throws IOException {
        EngineProcess engine = EngineProcess.inTempDir("Echo", "sqloop-engine-process-test-");
        Path dir = engine.dir();
        engine.start(List.of("sh", "-c", "echo started; echo broken; exit 3"));
        IOException e = assertThrows(IOException.class, () -> engine.awaitReady(Duration.ofSeconds(10), 50, () -> {
            throw new IOException("not yet");
        }));
        assertTrue(e.getMessage().startsWith("Echo exited (3): started\nbroken"), e.getMessage());
        engine.close();
        assertFalse(Files.exists(dir));
    }

    @Test
    void shouldStopTheProcessAtTheDeadlineAndNameTheLastReason() throws IOException {
        EngineProcess engine = EngineProcess.inTempDir("Sleeper", "sqloop-engine-process-test-");
        engine.start(List.of("sleep", "60"));
        IOException e = assertThrows(IOException.class, () -> engine.awaitReady(Duration.ofMillis(300), 50, () -> {
            throw new IOException("still asleep");
        }));
        assertTrue(e.getMessage().startsWith("Sleeper not ready within PT0.3S (last: still asleep)"), e.getMessage());
        assertFalse(engine.alive());
        assertFalse(Files.exists(engine.dir()));
    }

    @Test
    void shouldStopAFrozenProcess() throws IOException {
        EngineProcess engine = EngineProcess.inTempDir("Frozen", "sqloop-engine-process-test-");
        engine.start(List.of("sleep", "60"));
        engine.awaitReady(Duration.ofSeconds(5), 50, () -> { });
        engine.freeze();
        long t0 = System.nanoTime();
        engine.close();
        assertFalse(engine.alive());
        assertTrue((System.nanoTime() - t0) / 1_000_000 < 5000, "SIGTERM reached it after the thaw");
    }
}
