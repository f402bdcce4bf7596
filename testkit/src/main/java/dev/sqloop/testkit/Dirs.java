package dev.sqloop.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Deleting the temp directories testkit's servers and brokers leave behind. */
public final class Dirs {
    private Dirs() {}

    /** Deletes {@code dir} and everything below it, best effort: a temp directory left behind is harmless. */
    public static void deleteQuietly(Path dir) {
        if (dir == null || !Files.exists(dir)) return;
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException ignored) {
                    // best effort: a temp directory left behind is harmless
                }
            });
        } catch (IOException ignored) {
            // best effort
        }
    }
}
