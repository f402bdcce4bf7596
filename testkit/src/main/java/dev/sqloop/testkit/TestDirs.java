package dev.sqloop.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

/**
 * Temporary folders and files of tests: deleted when the test run of their JVM ends with no failure, kept when a test
 * failed (their paths printed), so a failure's logs and work folders stay readable. Each `./sqloop test` used to leave
 * ~115 MB in the temporary folder (a broker's log, a gateway's state, an eval's reports per integration test).
 */
public final class TestDirs {
    private static final Set<Path> CREATED = ConcurrentHashMap.newKeySet();
    private static final AtomicBoolean FAILED = new AtomicBoolean();

    private TestDirs() {}

    /** A new empty folder named {@code prefix…} in the temporary folder, deleted after a run without failures. */
    public static Path create(String prefix) throws IOException {
        return created(Files.createTempDirectory(prefix));
    }

    /** A new empty file named {@code prefix…suffix} in the temporary folder, deleted after a run without failures. */
    public static Path file(String prefix, String suffix) throws IOException {
        return created(Files.createTempFile(prefix, suffix));
    }

    private static Path created(Path path) {
        CREATED.add(path);
        return path;
    }

    /** Deletes what this JVM created unless a test failed; answers what was deleted. */
    static List<Path> cleanUp() {
        if (FAILED.get()) return List.of();
        List<Path> deleted = List.copyOf(CREATED);
        deleted.forEach(Dirs::deleteQuietly); // a folder with its contents, or a file
        CREATED.removeAll(deleted);
        return deleted;
    }

    /** Registered through {@code META-INF/services}: the JUnit launcher of every test JVM calls it. */
    public static final class Cleanup implements TestExecutionListener {
        @Override
        public void executionFinished(TestIdentifier test, TestExecutionResult result) {
            if (result.getStatus() == TestExecutionResult.Status.FAILED) FAILED.set(true);
        }

        @Override
        public void testPlanExecutionFinished(TestPlan plan) {
            if (FAILED.get() && !CREATED.isEmpty()) {
                System.err.println("sqloop: a test failed, so its temporary folders stay for a look: " + CREATED);
            }
            cleanUp();
        }
    }
}
