package dev.sqloop.testkit.engines;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The translation on real data: DuckDB's embedded engine takes every translated defog script, and the demo warehouse builds. */
class DuckDbLoadIT {

    @Test
    void shouldLoadEveryDefogDatabaseIntoDuckDb(@TempDir Path dir) throws Exception {
        for (String db : DefogDatasets.DATABASES) {
            Path file = DefogDatasets.loadIntoDuckDb(db, dir.resolve(db + ".duckdb"));
            long inserts = PostgresToDuckDb.translate(java.nio.file.Files.readString(DefogDatasets.script(db))).statements().stream()
                    .filter(s -> s.startsWith("INSERT INTO "))
                    .map(s -> s.substring("INSERT INTO ".length()).split("[\\s(]")[0].toLowerCase()).distinct().count();
            try (Connection c = DriverManager.getConnection("jdbc:duckdb:" + file, new Properties()); Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT count(*) FROM duckdb_tables() WHERE estimated_size > 0")) {
                rs.next();
                assertEquals(inserts, rs.getLong(1), db + ": every table with INSERTs has rows");
            }
        }
    }

    @Test
    void shouldNotKeepTheLoadTimeMacroInTheFile(@TempDir Path dir) throws Exception {
        Path file = DefogDatasets.loadIntoDuckDb("broker", dir.resolve("broker.duckdb"));
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:" + file, new Properties()); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*) FROM duckdb_functions() WHERE function_name = 'to_char'")) {
            rs.next();
            assertEquals(0, rs.getLong(1));
        }
    }

    @Test
    void shouldGenerateTheTpchDemoWarehouse(@TempDir Path dir) throws Exception {
        Path file = DemoWarehouse.create(dir.resolve("demo.duckdb"));
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:" + file, new Properties()); Statement st = c.createStatement()) {
            for (String[] t : new String[][] {{"region", "5"}, {"nation", "25"}, {"supplier", "100"}, {"customer", "1500"},
                    {"orders", "15000"}, {"part", "2000"}, {"partsupp", "8000"}}) {
                try (ResultSet rs = st.executeQuery("SELECT count(*) FROM " + t[0])) {
                    rs.next();
                    assertEquals(Long.parseLong(t[1]), rs.getLong(1), t[0]);
                }
            }
            try (ResultSet rs = st.executeQuery("SELECT count(*) BETWEEN 55000 AND 65000 FROM lineitem")) {
                rs.next();
                assertEquals(true, rs.getBoolean(1));
            }
        }
    }
}
