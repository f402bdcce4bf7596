package dev.sqloop.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DuckDbProcessTest {

    @Test
    void shouldStartTheChildUnderTheCapOnThisJvmAndClasspath() {
        List<String> command = DuckDbProcess.command(2L << 30, Path.of("/tmp/child-1"));
        assertEquals(List.of("/bin/sh", "-c"), command.subList(0, 2));
        assertTrue(command.get(2).contains("ulimit -v \"$1\""), command.get(2));
        assertEquals(Long.toString((2L << 30) / 1024), command.get(4), "the cap in KiB");
        assertEquals(Path.of(System.getProperty("java.home"), "bin", "java").toString(), command.get(5));
        assertTrue(command.contains("-Xmx256m") && command.contains("-XX:+UseSerialGC") && command.contains("-XX:+ExitOnOutOfMemoryError"),
                command.toString());
        assertTrue(command.contains("-Djava.io.tmpdir=/tmp/child-1"), "the driver unpacks its library in the child's own directory");
        int cp = command.indexOf("-cp");
        assertEquals(System.getProperty("java.class.path"), command.get(cp + 1));
        assertEquals(DuckDbProcessMain.class.getName(), command.get(command.size() - 1));
    }

    @Test
    void shouldGiveTheChildNoneOfTheExecutorsSecrets() {
        Map<String, String> env = new HashMap<>(Map.of("PATH", "/usr/bin", "TZ", "UTC", "SQLOOP_DATASOURCE_PG_PASSWORD", "s3cret",
                "SQLOOP_KAFKA_SASL_JAAS_CONFIG", "…", "JAVA_TOOL_OPTIONS", "-Xmx8g", "SQLOOP_LLM_API_KEY", "k"));
        DuckDbProcess.environment(env);
        assertEquals(Map.of("PATH", "/usr/bin", "TZ", "UTC", "MALLOC_ARENA_MAX", "2"), env);
    }

    @Test
    void shouldFindTheDatabaseFileOfAUrl() {
        assertEquals(Path.of("/data/w.duckdb"), DuckDbProcess.databaseFile("jdbc:duckdb:/data/w.duckdb"));
        assertEquals(Path.of("/data/w.duckdb"), DuckDbProcess.databaseFile("jdbc:duckdb:/data/w.duckdb;session_init_sql_file=/x.sql"));
        assertEquals(Path.of("rel/w.duckdb"), DuckDbProcess.databaseFile("jdbc:duckdb:rel/w.duckdb"));
        assertNull(DuckDbProcess.databaseFile("jdbc:duckdb:"));
        assertNull(DuckDbProcess.databaseFile("jdbc:duckdb::memory:"));
        assertNull(DuckDbProcess.databaseFile("jdbc:duckdb:md:my_db"));
        assertNull(DuckDbProcess.databaseFile("jdbc:duckdb:ducklake:postgres:dbname=x"));
        assertFalse(DuckDbProcess.databaseFile("jdbc:duckdb:/w.duckdb").toString().contains(";"));
    }
}
