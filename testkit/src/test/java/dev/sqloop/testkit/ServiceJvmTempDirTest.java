package dev.sqloop.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A forked JVM's temp folder sits beside its log: what a SIGKILLed JVM leaves there (native libraries unpacked by
 * DuckDB, RocksDB, lz4, ONNX Runtime) stays out of /tmp, outlives the kill for the restart, and goes at close.
 */
class ServiceJvmTempDirTest {
    @Test
    void shouldGiveTheJvmATempFolderBesideItsLogThatCloseRemoves(@TempDir Path dir) throws Exception {
        ServiceJvm first = ServiceJvm.start("writer", List.of(System.getProperty("java.class.path")), List.of("-Xmx64m"),
                TempWriter.class.getName(), List.of(), Map.of(), dir.resolve("writer.log"));
        ServiceJvm second = null;
        try {
            Path tmp = first.tmpDir();
            assertEquals(dir.resolve("tmp-writer"), tmp);
            Path left = Path.of(first.await(Pattern.compile("wrote (\\S+)"), Duration.ofSeconds(60)));
            assertEquals(tmp, left.getParent(), "java.io.tmpdir of the forked JVM");
            first.kill9();
            assertTrue(Files.exists(left), "a SIGKILLed JVM's deleteOnExit never ran: its file is still there");

            second = first.restart(dir.resolve("writer-2.log"));
            Path again = Path.of(second.await(Pattern.compile("wrote (\\S+)"), Duration.ofSeconds(60)));
            assertEquals(tmp, again.getParent(), "a restart keeps the same folder");
            second.close();
            assertFalse(Files.exists(tmp), "close removes the folder, with what the killed incarnation left");
        } finally {
            // a failed assertion must not leave a JVM sleeping for five minutes
            first.close();
            if (second != null) second.close();
        }
    }

    @Test
    void shouldLeaveATempFolderTheCallerChoseAlone(@TempDir Path dir) throws Exception {
        Path own = Files.createDirectories(dir.resolve("own"));
        ServiceJvm jvm = ServiceJvm.start("writer", List.of(System.getProperty("java.class.path")),
                List.of("-Xmx64m", "-Djava.io.tmpdir=" + own), TempWriter.class.getName(), List.of(), Map.of(), dir.resolve("writer.log"));
        try {
            Path left = Path.of(jvm.await(Pattern.compile("wrote (\\S+)"), Duration.ofSeconds(60)));
            assertEquals(own, left.getParent());
            jvm.kill9();
            jvm.close();
            assertTrue(Files.exists(left), "not ours to delete");
            assertFalse(Files.exists(dir.resolve("tmp-writer")));
        } finally {
            jvm.close();
        }
    }

    /** Writes a temp file (deleted on a normal exit), prints its path, and waits to be killed. */
    public static final class TempWriter {
        public static void main(String[] args) throws Exception {
            Path file = Files.createTempFile("native-", ".so");
            file.toFile().deleteOnExit();
            System.out.println("wrote " + file);
            System.out.flush();
            Thread.sleep(300_000);
        }
    }
}
