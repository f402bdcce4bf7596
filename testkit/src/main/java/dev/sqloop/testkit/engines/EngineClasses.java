package dev.sqloop.testkit.engines;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * An engine's own jars (Spark's or Hive's, from the classpath file its engines module writes), loaded apart from this
 * JVM's classes and never initialized: SHOW FUNCTIONS names a function's implementing class, and only the class's
 * supertypes tell an aggregate, a window function and a table generator apart.
 */
final class EngineClasses implements AutoCloseable {
    private final URLClassLoader loader;

    private EngineClasses(URLClassLoader loader) {
        this.loader = loader;
    }

    static EngineClasses of(Path classpathFile) {
        try {
            List<URL> urls = new ArrayList<>();
            for (String entry : Files.readString(classpathFile).strip().split(File.pathSeparator)) {
                if (!entry.isBlank()) urls.add(Path.of(entry).toUri().toURL());
            }
            // the platform loader as parent: none of this JVM's libraries (Jackson, JDBC drivers) mix with the engine's
            return new EngineClasses(new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader()));
        } catch (MalformedURLException e) {
            throw new IllegalArgumentException(e);
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + classpathFile, e);
        }
    }

    /** The class, loaded without running its static initializers; empty if it or a supertype cannot be loaded. */
    Optional<Class<?>> load(String name) {
        try {
            return Optional.of(Class.forName(name, false, loader));
        } catch (ClassNotFoundException | LinkageError e) {
            return Optional.empty();
        }
    }

    /** Whether {@code className} is {@code supertype} or extends or implements it. */
    boolean isA(String className, String supertype) {
        Optional<Class<?>> c = load(className);
        Optional<Class<?>> s = load(supertype);
        return c.isPresent() && s.isPresent() && s.get().isAssignableFrom(c.get());
    }

    /** The value of {@code attribute} of the annotation {@code annotation} on {@code className}, if it carries one. */
    @SuppressWarnings("unchecked")
    Optional<Object> annotation(String className, String annotation, String attribute) {
        Optional<Class<?>> c = load(className);
        Optional<Class<?>> a = load(annotation);
        if (c.isEmpty() || a.isEmpty()) return Optional.empty();
        try {
            java.lang.annotation.Annotation found = c.get().getAnnotation((Class<? extends java.lang.annotation.Annotation>) a.get());
            return found == null ? Optional.empty() : Optional.of(a.get().getMethod(attribute).invoke(found));
        } catch (ReflectiveOperationException | LinkageError e) {
            return Optional.empty();
        }
    }

    @Override
    public void close() {
        try {
            loader.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
