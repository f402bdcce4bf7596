package dev.sqloop.testkit.engines;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Generates sqloop's per-dialect function allow-lists from the live engines' own catalogs (DuckDB's {@code
 * duckdb_functions()}, PostgreSQL's {@code pg_proc}, Trino's {@code SHOW FUNCTIONS}, Spark's and Hive's {@code SHOW
 * FUNCTIONS} with each function's implementing class): every function is classified by rules plus each engine's
 * explicit decisions ({@link DuckDbFunctions}, {@link PostgresFunctions}, {@link TrinoFunctions}, {@link
 * SparkFunctions}, {@link HiveFunctions}), and written as the TSV that sql-parse's {@code FunctionCatalog} reads.
 */
public final class FunctionCatalogs {
    /** Where the committed files live, relative to the repository root. */
    public static final String COMMITTED_DIR = "sql-parse/src/main/resources/functions";
    /** The command that regenerates every file (the drift ITs write what they read under target/functions). */
    public static final String REGENERATE = "mvn -B -ntp -pl validator-service -am -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false"
            + " -Dit.test=FunctionCatalogDriftIT -Dfailsafe.failIfNoSpecifiedTests=false verify;"
            + " cp validator-service/target/functions/*.tsv " + COMMITTED_DIR + "/";

    /**
     * A generated catalog: the dialect's file name, the engine and version it was read from, how, its rows, and the
     * names whose overloads were classified differently (the strictest won: for a reviewer, not for the file).
     */
    public record Generated(String dialect, String engine, String source, List<FunctionRow> rows, List<String> mixedOverloads) {
        public Generated {
            rows = List.copyOf(rows);
            mixedOverloads = List.copyOf(mixedOverloads);
        }

        /** The file's text: comment header, then one line per row. */
        public String tsv() {
            StringBuilder b = new StringBuilder();
            b.append("# sqloop function allow-list: ").append(dialect).append('\n');
            b.append("# engine: ").append(engine).append('\n');
            b.append("# read from: ").append(source).append('\n');
            b.append("# regenerate: ").append(REGENERATE).append('\n');
            b.append("# classes: pure (computes from its arguments, the clock, randomness, the session's locale or time zone),"
                    + " sized (pure, but argument sizes set its result's: note count:N, width:N, bounds, format:N, replace:F,T,"
                    + " grows:K), refused (note: the family). See validator-service/PARSERS.md, \"Function allow-lists\".\n");
            b.append("# name\tkind\tclass\tnote\n");
            for (FunctionRow r : rows) b.append(r.line()).append('\n');
            return b.toString();
        }

        /** pure, sized and refused row counts, and distinct names. */
        public String counts() {
            Map<String, Integer> by = new LinkedHashMap<>(Map.of(FunctionRow.PURE, 0, FunctionRow.SIZED, 0, FunctionRow.REFUSED, 0));
            rows.forEach(r -> by.merge(r.safety(), 1, Integer::sum));
            long names = rows.stream().map(FunctionRow::name).distinct().count();
            return String.format("%s: %d rows (%d names): %d pure, %d sized, %d refused", dialect, rows.size(), names,
                    by.get(FunctionRow.PURE), by.get(FunctionRow.SIZED), by.get(FunctionRow.REFUSED));
        }
    }

    private FunctionCatalogs() {}

    /** DuckDB's functions, macros and table functions, read through {@code connection}. */
    public static Generated duckDb(Connection connection) throws SQLException {
        return DuckDbFunctions.generate(connection);
    }

    /** PostgreSQL's {@code pg_proc} as {@code connection}'s database holds it (a fresh database has only the built-ins). */
    public static Generated postgres(Connection connection) throws SQLException {
        return PostgresFunctions.generate(connection);
    }

    /** Trino's global functions and table functions ({@code SHOW FUNCTIONS}). */
    public static Generated trino(Connection connection) throws SQLException {
        return TrinoFunctions.generate(connection);
    }

    /**
     * Spark SQL's functions; {@code sparkClasspathFile} is the Spark Thrift Server's classpath (the engines module's
     * file), whose classes tell an aggregate, a window function and a generator apart.
     */
    public static Generated spark(Connection connection, Path sparkClasspathFile) throws SQLException {
        return SparkFunctions.generate(connection, sparkClasspathFile);
    }

    /** Hive's functions; {@code hiveClasspathFile} is HiveServer2's classpath, whose classes tell their kinds apart. */
    public static Generated hive(Connection connection, Path hiveClasspathFile) throws SQLException {
        return HiveFunctions.generate(connection, hiveClasspathFile);
    }

    /**
     * What differs between a committed file and a generated one, one line each: a function the engine has and the file
     * lacks ({@code + row}), a row the engine no longer has ({@code - row}), a changed class or note ({@code ~ old -> new}),
     * and a different engine line. Empty when they agree.
     */
    public static List<String> difference(String committed, Generated generated) {
        Map<String, FunctionRow> old = new LinkedHashMap<>();
        String oldEngine = null;
        for (String line : committed.split("\n")) {
            if (line.startsWith("# engine: ")) oldEngine = line.substring("# engine: ".length());
            if (line.startsWith("#") || line.isBlank()) continue;
            FunctionRow r = FunctionRow.parse(line);
            old.put(r.name() + "\t" + r.kind(), r);
        }
        List<String> out = new ArrayList<>();
        if (!Objects.equals(oldEngine, generated.engine())) out.add("engine: " + oldEngine + " -> " + generated.engine());
        Map<String, FunctionRow> now = new LinkedHashMap<>();
        generated.rows().forEach(r -> now.put(r.name() + "\t" + r.kind(), r));
        now.forEach((k, r) -> {
            FunctionRow before = old.get(k);
            if (before == null) out.add("+ " + r.line());
            else if (!before.equals(r)) out.add("~ " + before.line() + "  ->  " + r.safety() + "\t" + r.note());
        });
        old.forEach((k, r) -> {
            if (!now.containsKey(k)) out.add("- " + r.line());
        });
        return out;
    }

    /** The server's version, first word of {@code SELECT version()} (HiveServer2 and the Spark Thrift Server). */
    static String hiveServer2Version(java.sql.Connection c) throws java.sql.SQLException {
        try (java.sql.Statement st = c.createStatement(); java.sql.ResultSet rs = st.executeQuery("SELECT version()")) {
            rs.next();
            return rs.getString(1).split(" ")[0];
        }
    }

    /**
     * The names {@code SHOW FUNCTIONS} lists (HiveServer2 and the Spark Thrift Server), lower case, as a parsed query records
     * them: the last part of a qualified user function ({@code spark_catalog.default.f}), identifiers only.
     */
    static java.util.List<String> shownFunctions(java.sql.Connection c) throws java.sql.SQLException {
        java.util.List<String> names = new java.util.ArrayList<>();
        try (java.sql.Statement st = c.createStatement(); java.sql.ResultSet rs = st.executeQuery("SHOW FUNCTIONS")) {
            while (rs.next()) {
                String n = rs.getString(1);
                n = FunctionRow.lower(n.substring(n.lastIndexOf('.') + 1).strip());
                if (n.matches("[a-z_][a-z0-9_]*")) names.add(n);
            }
        }
        return names;
    }

}
