package dev.sqloop.executor;

import static dev.sqloop.executor.ExecutorAssertions.ok;
import static dev.sqloop.executor.ExecutorAssertions.onChild;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.datasource.Safeguards;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.testkit.engines.DemoWarehouse;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 44 (item 3), the engine-side boundary: DuckDB allocates outside its {@code memory_limit} for a single value (a
 * formatted width, a replace that multiplies a string, a list or string_agg of wide values), and checks for interruption
 * only between vectors. Each such query, sent straight to the datasource's DuckDB process with every static check
 * bypassed, must cost that process and never the executor: it ends within its timeout plus a few seconds as a failure of
 * that query, the executor's RSS stays put, and the next query runs in a fresh process.
 */
class DuckDbIsolationIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(3);
    /** The executor's own RSS may move by JIT, class loading and heap sizing; a bomb grew it by 2–5 GB before. */
    private static final long RSS_BOUND_MB = 128;
    @TempDir
    static Path dir;
    private static DatasourceConfig ds;
    private static ReadOnlyExecutor executor;

    @BeforeAll
    static void createWarehouse() {
        Path file = DemoWarehouse.create(dir.resolve("bombs.duckdb"));
        ds = DatasourceConfig.of("bombs", Dialect.DUCKDB, "jdbc:duckdb:" + file, null, null)
                .withLimits(100, TIMEOUT).withPool(1, Duration.ofSeconds(5))
                .withSafeguards(new Safeguards("512MB", 1, "256MB", "checked"));
        executor = new ReadOnlyExecutor();
    }

    @AfterAll
    static void close() {
        executor.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {
            // the outside probe's four (issue 44): 2–5 GB in the executor, no answer within 90 s on a 10 s timeout
            "SELECT printf('%1000000000d', 1)",
            "SELECT format('{:>1000000000}', 'x')",
            "SELECT length(regexp_replace(repeat('a', 99999), 'a', repeat('b', 99999), 'g'))",
            "SELECT length(replace(repeat('a',100000),'a',repeat('b',100000)))",
            // the same class: formatting widths, a pad, a value repeated into gigabytes
            "SELECT printf('%-1000000000s', 'x')",
            "SELECT lpad('x', 1000000000, 'y')",
            // one 4 GB block: below DuckDB's largest string, outside memory_limit, refused only by the address-space cap
            "SELECT length(repeat(repeat('x', 99999), 40000))",
            // rows as wide as the value checks allow, without the row limit: DuckDB materializes the 500 MB result whole
            "SELECT repeat('x', 99999) || i AS wide FROM range(5000) t(i)",
            // building lists and strings over many rows
            "SELECT length(list(repeat('x', 99999))::VARCHAR) FROM range(100000)",
            "SELECT length(string_agg(repeat('x', 99999), ',')) FROM range(100000)",
            "SELECT length(array_to_string(list_transform(range(100000), lambda i: repeat('y', 99999)), ','))"})
    void shouldCostOneDuckDbProcessAndNeverTheExecutor(String bomb) throws Exception {
        ok(executor, ds, "SELECT 1");
        List<Long> before = executor.childPids(ds);
        assertEquals(1, before.size(), "the datasource's one process: " + before);
        long rssBefore = rssKb(ProcessHandle.current().pid());

        long t0 = System.nanoTime();
        DuckDbWire.Reply reply = onChild(executor, ds, bomb);
        long tookMs = (System.nanoTime() - t0) / 1_000_000;
        long rssGrowthMb = (rssKb(ProcessHandle.current().pid()) - rssBefore) / 1024;
        EngineError e = reply.error();
        System.out.printf("%s: %s in %d ms, executor RSS %+d MB: %s%n", bomb, e == null ? "ran" : e.category(), tookMs,
                rssGrowthMb, e == null ? reply.rowCount() + " rows" : e.message().lines().findFirst().orElse(""));

        assertNotNull(e, bomb + " ran to the end: it is no bomb here, pick another");
        assertEquals(ErrorCategory.TIMEOUT, e.category(), "a resource failure of this query: " + e);
        assertFalse(e.infrastructure(), "the query's own failure, not the warehouse's");
        assertTrue(tookMs < TIMEOUT.toMillis() + 3000, "ended within the 3 s timeout + 3 s, took " + tookMs + " ms");
        assertTrue(rssGrowthMb < RSS_BOUND_MB, "the executor's RSS grew by " + rssGrowthMb + " MB");

        long t1 = System.nanoTime();
        assertEquals(1L, ((Number) ok(executor, ds, "SELECT count(*) FROM region WHERE r_regionkey = 0").preview().get(0).get(0)).longValue(),
                "the next query on the datasource runs");
        System.out.printf("  next query in %d ms%n", (System.nanoTime() - t1) / 1_000_000);
        List<Long> after = executor.childPids(ds);
        assertEquals(1, after.size(), after.toString());
        if (e.message().startsWith("INTERRUPT")) {
            // DuckDB stopped it itself between two vectors (list() sometimes is): a clean process is kept, under its cap
            assertEquals(before, after, "the process DuckDB's own interrupt left clean answers the next query");
            assertTrue(status(after.get(0)).get("VmSize") * 1024 < ds.safeguards().processMemoryBytes());
            return;
        }
        assertNotEquals(before, after, "the process that ran the bomb was replaced");
        assertFalse(ProcessHandle.of(before.get(0)).map(ProcessHandle::isAlive).orElse(false), "the bomb's process is gone");
    }

    /** The cap is the kernel's: the child's {@code RLIMIT_AS} is the datasource's process memory. */
    @Test
    void shouldRunDuckDbUnderTheAddressSpaceCap() throws Exception {
        ok(executor, ds, "SELECT 1");
        long pid = executor.childPids(ds).get(0);
        String limits = Files.readString(Path.of("/proc/" + pid + "/limits"));
        String line = limits.lines().filter(l -> l.startsWith("Max address space")).findFirst().orElseThrow();
        long cap = ds.safeguards().processMemoryBytes() / 1024 * 1024;
        assertTrue(line.matches("Max address space\\s+" + cap + "\\s+" + cap + "\\s+bytes\\s*"), line + ", expected " + cap);
        assertEquals("1000", Files.readString(Path.of("/proc/" + pid + "/oom_score_adj")).strip(),
                "a container's OOM killer takes a DuckDB process before the executor");
        Map<String, Long> status = status(pid);
        System.out.printf("DuckDB process %d, idle after a query: VmSize %d MB, VmRSS %d MB, VmHWM %d MB, threads %d; cap %d MB%n",
                pid, status.get("VmSize") / 1024, status.get("VmRSS") / 1024, status.get("VmHWM") / 1024, status.get("Threads"),
                cap >> 20);
        assertTrue(status.get("VmSize") * 1024 < cap, "its idle address space is below the cap");
    }

    /** A DuckDB error in the child reads exactly as in-process: the same classifier on the same exception. */
    @Test
    void shouldClassifyTheEnginesErrorsAsInProcess() {
        DatasourceConfig inProcess = ds.withSafeguards(ds.safeguards().withIsolation(Safeguards.IN_PROCESS, null));
        for (String sql : List.of("SELECT o_orderstat FROM orders", "SELECT * FROM order_s", "SELECT CAST('abc' AS integer)",
                "SELECT * FROM orders WHERE")) {
            EngineError child = ExecutorAssertions.fail(executor, ds, sql);
            EngineError local = ExecutorAssertions.fail(executor, inProcess, sql);
            assertEquals(local, child, sql);
        }
        String sql = "SELECT o_orderkey, o_totalprice, o_orderdate, o_comment, o_shippriority, [1, 2] AS l, {'a': 1.5} AS s"
                + " FROM orders ORDER BY o_orderkey";
        assertEquals(ok(executor, inProcess, sql).preview(), ok(executor, ds, sql).preview(), "the preview, cell types included");
    }

    /** A timeout the engine itself honours keeps the process: only what it cannot stop costs one. */
    @Test
    void shouldKeepTheProcessWhenTheEngineStopsAtTheTimeout() {
        ok(executor, ds, "SELECT 1");
        List<Long> before = executor.childPids(ds);
        EngineError e = ExecutorAssertions.fail(executor, ds, "SELECT count(*) FROM range(100000000000) a");
        assertEquals(ErrorCategory.TIMEOUT, e.category(), e.toString());
        assertTrue(e.message().startsWith("INTERRUPT"), "DuckDB's own interrupt: " + e.message());
        ok(executor, ds, "SELECT 1");
        assertEquals(before, executor.childPids(ds));
    }

    /** No orphans: a child ends when its executor does, also when the executor is killed with SIGKILL. */
    @Test
    void shouldEndTheProcessWhenTheExecutorIsKilled() throws Exception {
        Path file = Path.of(ds.jdbcUrl().substring("jdbc:duckdb:".length()));
        Process parent = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), OrphanCheck.class.getName(), file.toString())
                .redirectErrorStream(true).start();
        long child;
        long executorPid = parent.pid();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(parent.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            List<String> seen = new ArrayList<>();
            do {
                line = out.readLine();
                if (line != null) seen.add(line);
            } while (line != null && !line.startsWith("child "));
            assertNotNull(line, "the test executor printed its child: " + seen);
            child = Long.parseLong(line.substring("child ".length()).trim());
            assertTrue(ProcessHandle.of(child).map(ProcessHandle::isAlive).orElse(false), "running its query");
            parent.destroyForcibly();
            parent.waitFor(10, TimeUnit.SECONDS);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (ProcessHandle.of(child).map(ProcessHandle::isAlive).orElse(false) && System.nanoTime() < deadline) Thread.sleep(50);
        assertFalse(ProcessHandle.of(child).map(ProcessHandle::isAlive).orElse(false),
                "the child ended within 5 s of its executor's SIGKILL, mid-query");

        // the killed executor could not delete its children's temp directory: the next executor to start one does
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        assertEquals(1, abandoned(tmp, executorPid), "left behind by the killed executor");
        try (ReadOnlyExecutor next = new ReadOnlyExecutor()) {
            ok(next, ds.withPool(1, Duration.ofSeconds(5)), "SELECT 1");
        }
        assertEquals(0, abandoned(tmp, executorPid), "deleted by the next executor");
    }

    private static long abandoned(Path tmp, long executorPid) throws Exception {
        try (var dirs = Files.list(tmp)) {
            return dirs.filter(d -> d.getFileName().toString().startsWith("sqloop-duckdb-" + executorPid + "-")).count();
        }
    }

    @Test
    void shouldEndEveryProcessOnClose() {
        List<Long> pids;
        try (ReadOnlyExecutor local = new ReadOnlyExecutor()) {
            DatasourceConfig two = ds.withPool(2, Duration.ofSeconds(5));
            ok(local, two, "SELECT 1");
            pids = local.childPids(two);
            assertEquals(1, pids.size(), "started when a query needed one, not all at once");
        }
        for (long pid : pids) {
            assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "process " + pid + " ended with its executor");
        }
    }

    /** A parent for {@link #shouldEndTheProcessWhenTheExecutorIsKilled}: starts a child mid-query, prints its id, waits to be killed. */
    public static final class OrphanCheck {
        public static void main(String[] args) throws Exception {
            DatasourceConfig ds = DatasourceConfig.of("orphan", Dialect.DUCKDB, "jdbc:duckdb:" + args[0], null, null)
                    .withLimits(10, Duration.ofSeconds(600)).withPool(1, Duration.ofSeconds(5));
            ReadOnlyExecutor executor = new ReadOnlyExecutor();
            ok(executor, ds, "SELECT 1");
            System.out.println("child " + executor.childPids(ds).get(0));
            System.out.flush();
            // a query DuckDB cannot interrupt, on a 10-minute timeout: only the pipe closing can end the child in time
            onChild(executor, ds, "SELECT length(regexp_replace(repeat('a', 99999), 'a', repeat('b', 99999), 'g'))");
        }
    }

    static Map<String, Long> status(long pid) throws Exception {
        Map<String, Long> out = new java.util.HashMap<>();
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            String[] kv = line.split(":\\s+", 2);
            if (kv.length == 2 && kv[1].matches("\\d+( kB)?")) out.put(kv[0], Long.parseLong(kv[1].replace(" kB", "")));
        }
        return out;
    }

    private static long rssKb(long pid) throws Exception {
        return status(pid).get("VmRSS");
    }
}
