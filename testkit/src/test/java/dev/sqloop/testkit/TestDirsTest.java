package dev.sqloop.testkit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class TestDirsTest {

    /** A run without failures leaves nothing behind: folders with their contents, and files. */
    @Test
    void shouldDeleteWhatTheTestsCreatedWhenNoneFailed() throws Exception {
        Path dir = TestDirs.create("testdirs-");
        Files.createDirectories(dir.resolve("a/b"));
        Files.writeString(dir.resolve("a/b/log.txt"), "kept until the run ends");
        Path file = TestDirs.file("testdirs-", ".txt");
        assertTrue(Files.exists(dir.resolve("a/b/log.txt")) && Files.exists(file));
        assertTrue(TestDirs.cleanUp().containsAll(java.util.List.of(dir, file)));
        assertFalse(Files.exists(dir), dir + " deleted with its contents");
        assertFalse(Files.exists(file));
    }

    /** JUnit's launcher finds the listener the way it finds every registered one. */
    @Test
    void shouldBeRegisteredWithTheJunitLauncher() {
        boolean found = java.util.ServiceLoader.load(org.junit.platform.launcher.TestExecutionListener.class).stream()
                .anyMatch(p -> p.type() == TestDirs.Cleanup.class);
        assertTrue(found, "META-INF/services names TestDirs.Cleanup");
    }
}
