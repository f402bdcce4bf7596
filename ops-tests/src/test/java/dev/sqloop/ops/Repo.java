package dev.sqloop.ops;

import java.nio.file.Files;
import java.nio.file.Path;

/** The repository root (system property {@code sqloop.root}, set by the module's surefire configuration). */
final class Repo {
    private Repo() {}

    static Path root() {
        Path root = Path.of(System.getProperty("sqloop.root", "..")).toAbsolutePath().normalize();
        if (!Files.isDirectory(root.resolve("helm/sqloop"))) throw new IllegalStateException("no helm/sqloop under " + root);
        return root;
    }

    static Path chart() {
        return root().resolve("helm/sqloop");
    }
}
