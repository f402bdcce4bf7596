package dev.sqloop.testkit.engines;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Properties;

/**
 * The six defog dev databases ({@code ../shared/datasets/defog}): loaded verbatim into PostgreSQL, and through
 * {@link PostgresToDuckDb} into DuckDB files. The shared folder is found by walking up from the working
 * directory to a sibling {@code shared/} folder, or taken from the system property {@value #SHARED_PROPERTY}.
 */
public final class DefogDatasets {
    public static final String SHARED_PROPERTY = "sqloop.shared.dir";
    public static final List<String> DATABASES = List.of("academic", "advising", "atis", "restaurants", "broker", "car_dealership");

    private DefogDatasets() {}

    /** The {@code shared/} folder. */
    public static Path sharedDir() {
        String override = System.getProperty(SHARED_PROPERTY);
        if (override != null && !override.isBlank()) return Path.of(override);
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            Path candidate = p.resolve("shared");
            if (Files.isDirectory(candidate.resolve("datasets/defog"))) return candidate;
            if (p.getParent() != null && Files.isDirectory(p.getParent().resolve("shared/datasets/defog"))) {
                return p.getParent().resolve("shared");
            }
        }
        throw new IllegalStateException("no shared/datasets/defog above " + Path.of("").toAbsolutePath()
                + "; set -D" + SHARED_PROPERTY + "=/path/to/shared");
    }

    public static Path defogDir() {
        return sharedDir().resolve("datasets/defog");
    }

    public static Path script(String database) {
        if (!DATABASES.contains(database)) throw new IllegalArgumentException("unknown defog database " + database);
        return defogDir().resolve("databases").resolve(database).resolve(database + ".sql");
    }

    public static Path questionsCsv() {
        return defogDir().resolve("questions.csv");
    }

    /**
     * Creates {@code database} on the server (if missing), runs its script verbatim as the superuser, and
     * grants the read-only role SELECT on its tables. Loading twice is a no-op.
     */
    public static void loadIntoPostgres(PostgresServer pg, String database) {
        try {
            pg.createDatabase(database);
            try (Connection c = pg.superuser(database); Statement st = c.createStatement()) {
                var rs = st.executeQuery("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'");
                rs.next();
                if (rs.getInt(1) == 0) st.execute(Files.readString(script(database)));
            }
            pg.grantReadOnly(database);
        } catch (SQLException e) {
            throw new IllegalStateException("loading " + database + " into PostgreSQL failed", e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes {@code database} into a new DuckDB file at {@code file} (translated); returns the file. */
    public static Path loadIntoDuckDb(String database, Path file) {
        try {
            PostgresToDuckDb.Translation t = PostgresToDuckDb.translate(Files.readString(script(database)));
            Files.createDirectories(file.toAbsolutePath().getParent());
            try (Connection c = DriverManager.getConnection("jdbc:duckdb:" + file.toAbsolutePath(), new Properties());
                 Statement st = c.createStatement()) {
                for (String s : PostgresToDuckDb.PRELUDE) st.execute(s);
                for (String s : t.statements()) {
                    try {
                        st.execute(s);
                    } catch (SQLException e) {
                        throw new IllegalStateException("DuckDB refused a translated statement of " + database + ": "
                                + e.getMessage() + "\n" + s.substring(0, Math.min(400, s.length())), e);
                    }
                }
                st.execute("CHECKPOINT");
            }
            return file;
        } catch (SQLException e) {
            throw new IllegalStateException("loading " + database + " into DuckDB failed", e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
