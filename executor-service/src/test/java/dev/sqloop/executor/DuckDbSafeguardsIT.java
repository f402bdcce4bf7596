package dev.sqloop.executor;

import static dev.sqloop.executor.ExecutorAssertions.fail;
import static dev.sqloop.executor.ExecutorAssertions.ok;
import static dev.sqloop.executor.ExecutorAssertions.onChild;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.datasource.Safeguards;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.testkit.engines.DemoWarehouse;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 11 on a real DuckDB file: resource caps per datasource, a runaway query stopped at the timeout, the
 * executor's own allow-list, and hidden statements that must never reach the datasource's DuckDB session. Queries that
 * allocate outside {@code memory_limit}: {@link DuckDbIsolationIT}.
 */
class DuckDbSafeguardsIT {
    @TempDir
    static Path dir;
    private static DatasourceConfig ds;
    private static DatasourceConfig onlyOrders;
    private static ReadOnlyExecutor executor;

    @BeforeAll
    static void createWarehouse() throws Exception {
        Path file = DemoWarehouse.create(dir.resolve("caps.duckdb"));
        ds = DatasourceConfig.of("caps", Dialect.DUCKDB, "jdbc:duckdb:" + file, null, null)
                .withLimits(100, Duration.ofSeconds(3)).withPool(1, Duration.ofSeconds(5))
                .withSafeguards(new Safeguards("512MB", 2, "256MB", "checked"));
        // a second datasource on the same file must open it with the same settings (one DuckDB instance per file)
        onlyOrders = new DatasourceConfig("caps_orders", Dialect.DUCKDB, "jdbc:duckdb:" + file, null, null, Set.of(),
                Set.of(), Set.of("orders"), 100, Duration.ofSeconds(3), Duration.ofSeconds(5), null, 1, Map.of(),
                ds.safeguards());
        executor = new ReadOnlyExecutor();
    }

    @AfterAll
    static void close() {
        executor.close();
    }

    /**
     * DuckDB resolves a bare name in its system catalog too ({@code system.main}, {@code system.pg_catalog}): with a
     * list allowing {@code main}, a bare {@code duckdb_tables} listed every schema's tables and their DDL.
     */
    @Test
    void shouldRefuseABareNameThatResolvesInTheSystemCatalog() {
        DatasourceConfig onlyMain = new DatasourceConfig("caps_main", Dialect.DUCKDB, ds.jdbcUrl(), null, null, Set.of(),
                Set.of("main"), Set.of(), 100, Duration.ofSeconds(3), Duration.ofSeconds(5), null, 1, Map.of(), ds.safeguards());
        assertTrue(ok(executor, ds, "SELECT count(*) FROM duckdb_tables").rowCount() > 0, "the engine itself resolves it");
        for (String sql : new String[] {"SELECT * FROM duckdb_tables", "SELECT relname FROM pg_class", "SELECT count(*) FROM duckdb_columns"}) {
            EngineError e = fail(executor, onlyMain, sql);
            assertEquals(ErrorCategory.TABLE_NOT_FOUND, e.category(), sql + ": " + e);
            assertTrue(e.message().contains("system schema system."), e.message());
        }
        assertEquals(1, ok(executor, onlyMain, "SELECT count(*) FROM orders").rowCount(), "the list's own bare names still run");
    }

    /** The caps hold where the queries run: in the datasource's DuckDB process. */
    @Test
    void shouldOpenTheFileWithTheDatasourcesCaps() {
        DuckDbWire.Reply reply = onChild(executor, ds, "SELECT name, value FROM duckdb_settings() WHERE name IN "
                + "('memory_limit', 'threads', 'max_temp_directory_size', 'lock_configuration', 'enable_external_access')");
        assertNull(reply.error(), () -> reply.error().message());
        Map<String, String> settings = new HashMap<>();
        reply.execution(0).preview().forEach(row -> settings.put((String) row.get(0), (String) row.get(1)));
        assertTrue(settings.get("memory_limit").matches("(488\\.2 MiB|512\\.0 MB|500\\.0 MiB|.*MiB|.*MB)"), settings.toString());
        assertEquals("2", settings.get("threads"), settings.toString());
        assertEquals("true", settings.get("lock_configuration"), settings.toString());
        assertEquals("false", settings.get("enable_external_access"), settings.toString());
        assertFalse(settings.get("max_temp_directory_size").isBlank(), settings.toString());
    }

    @Test
    void shouldRefuseAnUninterruptibleValueBuilderAtOnceAndKeepMemoryBounded() throws Exception {
        long rssBefore = rssKb();
        long heapBefore = usedHeap();
        long t0 = System.nanoTime();
        EngineError e = fail(executor, ds, "SELECT range(150000000)");
        long tookMs = (System.nanoTime() - t0) / 1_000_000;
        long rssGrowthMb = (rssKb() - rssBefore) / 1024;
        long heapGrowthMb = (usedHeap() - heapBefore) / (1024 * 1024);
        System.out.printf("range(150000000): %s in %d ms, RSS +%d MB, heap +%d MB%n", e.category(), tookMs, rssGrowthMb, heapGrowthMb);
        assertTrue(tookMs < 3000 + 2000, "ended within the 3 s timeout + 2 s, took " + tookMs + " ms: " + e.message());
        assertEquals(ErrorCategory.TIMEOUT, e.category(), "a runaway query is a timeout (time or memory cap): " + e);
        // the bound: DuckDB's memory_limit (512 MB) plus slack for allocator caches; the Java heap sees no big value
        assertTrue(rssGrowthMb < 512 + 256, "RSS grew by " + rssGrowthMb + " MB");
        assertTrue(heapGrowthMb < 256, "heap grew by " + heapGrowthMb + " MB");
        assertEquals(1L, ((Number) ok(executor, ds, "SELECT 1 AS one").preview().get(0).get(0)).longValue(),
                "the pooled connection still answers");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            // streams in vectors: the timeout interrupts it
            "SELECT count(*) FROM range(100000000000) a",
            // holds every row: memory_limit (512 MB) ends it, or the timeout does
            "SELECT count(DISTINCT i::VARCHAR || 'padding-padding-padding') FROM range(400000000) t(i)",
            "SELECT max(i) FROM (SELECT i FROM range(300000000) t(i) ORDER BY i DESC)"})
    void shouldEndARunawayQueryAtTheTimeoutOrTheMemoryCap(String sql) throws Exception {
        long rssBefore = rssKb();
        long t0 = System.nanoTime();
        EngineError e = fail(executor, ds, sql);
        long tookMs = (System.nanoTime() - t0) / 1_000_000;
        long rssGrowthMb = (rssKb() - rssBefore) / 1024;
        System.out.printf("%s: %s in %d ms, RSS +%d MB: %s%n", sql, e.category(), tookMs, rssGrowthMb,
                e.message().lines().findFirst().orElse(""));
        assertEquals(ErrorCategory.TIMEOUT, e.category(), e.toString());
        assertTrue(tookMs < 3000 + 2000, "ended within the 3 s timeout + 2 s, took " + tookMs + " ms");
        assertTrue(rssGrowthMb < 512 + 256, "RSS grew by " + rssGrowthMb + " MB, the cap is 512 MB");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT 1 --\r; CREATE TEMP VIEW customer AS SELECT 1 AS c_custkey",
            "SELECT 1 --\r\n; CREATE TEMP TABLE t AS SELECT 1",
            "SELECT 1 /* /* */ ; CREATE TEMP VIEW customer AS SELECT 1 */",
            "SELECT 1 -- \r CREATE TEMP VIEW v AS SELECT 1",
            "SELECT $a$ x $a$; CREATE TEMP VIEW customer AS SELECT 1"})
    void shouldNeverLetAHiddenStatementReachThePooledConnection(String sql) throws Exception {
        EngineError e = fail(executor, ds, sql);
        assertTrue(e.category() == ErrorCategory.READ_ONLY_VIOLATION || e.category() == ErrorCategory.SYNTAX_ERROR, e.toString());
        // the datasource's one DuckDB process (pool size 1): the session every query of it runs in
        DuckDbWire.Reply views = onChild(executor, ds, "SELECT count(*) FROM duckdb_views() WHERE temporary AND NOT internal");
        assertNull(views.error(), () -> views.error().message());
        assertEquals(0L, views.execution(0).preview().get(0).get(0), "no temporary view survives in the DuckDB process");
        assertEquals(0L, ((Number) ok(executor, ds, "SELECT count(*) FROM customer WHERE c_custkey IS NULL")
                .preview().get(0).get(0)).longValue(), "customer is still the warehouse's table");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT * FROM customer",
            "SELECT * FROM orders WHERE o_custkey IN (SELECT c_custkey FROM customer)",
            "SELECT * FROM orders, LATERAL (SELECT * FROM customer WHERE c_custkey = o_custkey) x",
            "WITH o AS (SELECT * FROM main.customer) SELECT * FROM o",
            "SELECT (SELECT max(c_name) FROM customer) FROM orders",
            "SELECT * FROM unnest((SELECT list(c_name) FROM customer))",
            "SELECT * FROM orders JOIN (SELECT * FROM (SELECT * FROM nation) n) x ON true",
            "SELECT * FROM caps.main.customer"})
    void shouldEnforceTheAllowListWithoutTheValidator(String sql) {
        EngineError e = fail(executor, onlyOrders, sql);
        assertEquals(ErrorCategory.TABLE_NOT_FOUND, e.category(), e.toString());
        assertTrue(e.message().contains("allow-list"), e.message());
    }

    @Test
    void shouldRunWhatTheAllowListPermits() {
        assertTrue(ok(executor, onlyOrders, "SELECT count(*) FROM orders WHERE o_orderkey IN (SELECT o_orderkey FROM main.orders)").rowCount() == 1);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT current_setting('memory_limit')",
            "SELECT * FROM duckdb_settings()",
            "SELECT * FROM duckdb_secrets()",
            "SELECT getvariable('x')",
            "SELECT * FROM query('SELECT * FROM customer')",
            "SELECT * FROM query_table('customer')",
            "SELECT * FROM glob('/etc/*')",
            "SELECT * FROM sniff_csv('/etc/passwd')",
            "SELECT * FROM read_text('/etc/passwd')"})
    void shouldRefuseFunctionsThatReachOutsideTheQuery(String sql) {
        assertEquals(ErrorCategory.READ_ONLY_VIOLATION, fail(executor, ds, sql).category(), sql);
    }

    private static long usedHeap() {
        System.gc();
        var m = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        return m.getUsed();
    }

    private static long rssKb() throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) return Long.parseLong(line.replaceAll("\\D", ""));
        }
        return 0;
    }
}
