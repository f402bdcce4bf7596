package dev.sqloop.validator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.parse.FunctionCatalog;
import dev.sqloop.parse.SideEffectPolicy;
import dev.sqloop.testkit.engines.FunctionCatalogs;
import dev.sqloop.testkit.engines.FunctionRow;
import dev.sqloop.testkit.engines.HiveServer;
import dev.sqloop.testkit.engines.PostgresServer;
import dev.sqloop.testkit.engines.SparkThriftServer;
import dev.sqloop.testkit.engines.TrinoServer;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.Test;

/**
 * The committed function allow-lists against the live engines: each test regenerates a dialect's file from the real
 * engine's catalog (testkit FunctionCatalogs), writes it to {@code target/functions/<dialect>.tsv} for review and
 * copying, and fails on any difference from the committed file (a function the engine has that the file lacks, a row
 * the engine no longer has, a changed class or note, another engine version), printing it.
 */
class FunctionCatalogDriftIT {
    private static final Path OUT = Path.of("target", "functions");

    @Test
    void shouldMatchTheCommittedDuckDbCatalog() throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:")) {
            check(Dialect.DUCKDB, FunctionCatalogs.duckDb(c));
        }
    }

    @Test
    void shouldMatchTheCommittedPostgresCatalog() throws Exception {
        PostgresServer pg = PostgresServer.shared();
        // a database of its own: pg_proc is per database, and other tests' databases may hold their own functions
        pg.createDatabase("sqloop_functions");
        try (Connection c = pg.superuser("sqloop_functions")) {
            check(Dialect.POSTGRES, FunctionCatalogs.postgres(c));
        }
    }

    @Test
    void shouldMatchTheCommittedTrinoCatalog() throws Exception {
        try (Connection c = DriverManager.getConnection(TrinoServer.shared().jdbcUrl("memory"), "sqloop", null)) {
            check(Dialect.TRINO, FunctionCatalogs.trino(c));
        }
    }

    @Test
    void shouldMatchTheCommittedSparkCatalog() throws Exception {
        try (Connection c = SparkThriftServer.shared().connect("default")) {
            check(Dialect.SPARKSQL, FunctionCatalogs.spark(c, classpath(SparkThriftServer.CLASSPATH_PROPERTY)));
        }
    }

    @Test
    void shouldMatchTheCommittedHiveCatalog() throws Exception {
        try (Connection c = DriverManager.getConnection(HiveServer.shared().jdbcUrl("default"), "sqloop", "")) {
            check(Dialect.HIVE, FunctionCatalogs.hive(c, classpath(HiveServer.CLASSPATH_PROPERTY)));
        }
    }

    private static Path classpath(String property) {
        return Path.of(Objects.requireNonNull(System.getProperty(property), "-D" + property));
    }

    private static void check(Dialect dialect, FunctionCatalogs.Generated generated) throws IOException {
        Files.createDirectories(OUT);
        Path written = OUT.resolve(generated.dialect() + ".tsv");
        Files.writeString(written, generated.tsv());
        System.out.println(generated.counts() + " (" + generated.engine() + "); regenerated file: " + written.toAbsolutePath());
        generated.mixedOverloads().forEach(m -> System.out.println("  overloads classified differently (the strictest won): " + m));

        // the generator's own guarantee, checked against the policy itself rather than its copy in testkit
        List<String> allowedDenied = generated.rows().stream()
                .filter(r -> SideEffectPolicy.isDenied(r.name()) && !FunctionRow.REFUSED.equals(r.safety())).map(FunctionRow::line).toList();
        assertEquals(List.of(), allowedDenied, "names on SideEffectPolicy's deny-list must be refused");
        // the file must also load as sql-parse reads it
        FunctionCatalog.parse(generated.tsv(), written.toString());

        String resource = "/functions/" + FunctionCatalog.resourceName(dialect) + ".tsv";
        String committed;
        try (InputStream in = Objects.requireNonNull(FunctionCatalog.class.getResourceAsStream(resource), resource)) {
            committed = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        List<String> difference = FunctionCatalogs.difference(committed, generated);
        difference.forEach(d -> System.out.println(dialect + " drift: " + d));
        assertTrue(difference.isEmpty(), dialect + ": " + FunctionCatalogs.COMMITTED_DIR + "/" + generated.dialect()
                + ".tsv differs from the engine's catalog in " + difference.size() + " rows (printed above; review " + written.toAbsolutePath()
                + " and copy it if the engine is right):\n" + String.join("\n", difference.subList(0, Math.min(40, difference.size()))));
    }
}
