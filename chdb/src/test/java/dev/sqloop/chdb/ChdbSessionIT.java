package dev.sqloop.chdb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.testkit.engines.ChdbLibrary;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The binding against chDB itself: sessions, rows, settings fixed at connect, the engine's own errors. */
class ChdbSessionIT {
    private static Chdb engine;
    private static ChdbSession writer;

    @BeforeAll
    static void load() throws ChdbException {
        engine = Chdb.open(ChdbLibrary.jvmDatabaseDir());
        System.out.printf("chDB %s: library load %d ms, engine boot %d ms%n", engine.version(), engine.loadMillis(), engine.bootMillis());
        writer = engine.session(Map.of());
        writer.execute("CREATE DATABASE IF NOT EXISTS binding");
        writer.execute("CREATE OR REPLACE TABLE binding.t (id UInt32, name String, tags Array(String), big UInt64) ENGINE = MergeTree ORDER BY id");
        writer.execute("INSERT INTO binding.t SELECT number, concat('n', toString(number)), ['a', 'b'], 18446744073709551615 FROM numbers(1000)");
    }

    @AfterAll
    static void close() {
        if (writer != null) writer.close();
    }

    @Test
    void rowsColumnsAndTypesComeBackAsJavaValues() throws ChdbException {
        ChdbResult r = writer.query("SELECT id, name, tags, big, 1.5 AS f, NULL AS n FROM binding.t ORDER BY id LIMIT 2");
        assertEquals(List.of("id", "name", "tags", "big", "f", "n"), r.columns());
        assertEquals(List.of("UInt32", "String", "Array(String)", "UInt64", "Float64", "Nullable(Nothing)"), r.types());
        assertEquals(2, r.rows().size());
        assertEquals("[1, n1, [a, b], 18446744073709551615, 1.5, null]", r.rows().get(1).toString());
    }

    @Test
    void engineErrorsCarryClickHouseCodeAndName() {
        ChdbException e = assertThrows(ChdbException.class, () -> writer.query("SELECT t2.rn FROM (SELECT 1 AS x) t1"));
        assertEquals(47, e.code());
        assertEquals("UNKNOWN_IDENTIFIER", e.name());
        assertTrue(e.getMessage().contains("`t2.rn`"), e.getMessage());
    }

    @Test
    void aReadOnlySessionKeepsItsSettingsAndRefusesWrites() throws ChdbException {
        try (ChdbSession ro = engine.session(Map.of("readonly", "1", "max_result_rows", "10", "result_overflow_mode", "throw"))) {
            assertEquals(List.of(List.of(1L)), ro.query("SELECT getSetting('readonly')").rows());
            ChdbException insert = assertThrows(ChdbException.class, () -> ro.query("INSERT INTO binding.t (id) VALUES (5000)"));
            assertEquals("READONLY", insert.name());
            ChdbException loosen = assertThrows(ChdbException.class, () -> ro.query("SELECT 1 SETTINGS readonly = 0"));
            assertEquals(164, loosen.code());
            ChdbException tooMany = assertThrows(ChdbException.class, () -> ro.query("SELECT id FROM binding.t"));
            assertEquals("TOO_MANY_ROWS_OR_BYTES", tooMany.name(), tooMany.getMessage());
            // the next query's answer is its own: nothing of the failed one's output before it
            assertEquals(List.of(List.of(1000L)), ro.query("SELECT toInt64(count()) FROM binding.t").rows());
        }
        // the writer's session was never read-only
        assertEquals(List.of(List.of(0L)), writer.query("SELECT getSetting('readonly')").rows());
    }

    @Test
    void aSecondDirectoryInOneProcessIsRefusedWithTheReason() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Chdb.open(engine.path().resolveSibling("elsewhere")));
        assertTrue(e.getMessage().contains("one database directory per process"), e.getMessage());
    }

    /**
     * chDB's crash handlers replace the JVM's by default (HostSignals): then a trap the JVM raises on purpose kills the
     * process. After connections and queries the JVM's handlers are still installed, and its own traps still become
     * exceptions: compiled code dereferencing null traps on SIGSEGV, which the JVM's handler turns into NPEs.
     */
    @Test
    void theJvmKeepsItsSignalHandlersSoItsOwnTrapsStayExceptions() throws Exception {
        try (ChdbSession another = engine.session(Map.of("max_threads", "2"))) {
            assertEquals(List.of(List.of(1L)), another.query("SELECT count() = 1000 FROM binding.t").rows());
        }
        for (int signal : List.of(4, 7, 8, 11)) { // SIGILL, SIGBUS, SIGFPE, SIGSEGV
            assertTrue(mappedFile(HostSignals.handlerOf(signal)).endsWith("/libjvm.so"),
                    "signal " + signal + "'s handler is in " + mappedFile(HostSignals.handlerOf(signal)));
        }
        long npes = 0;
        for (int i = 0; i < 200_000; i++) {
            try {
                npes += lengthOf(i % 1000 == 0 ? null : "x") - 1;
            } catch (NullPointerException e) {
                npes++;
            }
        }
        assertEquals(200, npes, "every null dereference an exception, the process alive");
    }

    private static int lengthOf(String s) {
        return s.length();
    }

    /** The file mapped at {@code address} in this process ({@code /proc/self/maps}), or "" when none is. */
    private static String mappedFile(long address) throws java.io.IOException {
        for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/maps"))) {
            String[] f = line.trim().split("\\s+");
            String[] range = f[0].split("-");
            if (Long.compareUnsigned(address, Long.parseUnsignedLong(range[0], 16)) >= 0
                    && Long.compareUnsigned(address, Long.parseUnsignedLong(range[1], 16)) < 0) {
                return f.length > 5 ? f[5] : "";
            }
        }
        return "";
    }
}
