package dev.sqloop.lab;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.datasource.Safeguards;
import dev.sqloop.embedded.pipeline.DemoBatch;
import dev.sqloop.executor.QueryRunner;
import dev.sqloop.executor.ReadOnlyExecutor;
import dev.sqloop.testkit.engines.DemoWarehouse;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What running DuckDB in a child process costs over running it in the executor's JVM: the demo batch's gold SQL on the
 * demo warehouse through {@link ReadOnlyExecutor}, once per query on an in-process datasource and once on a process-isolated
 * one over the same file, in one JVM. Prints per query the p50 wall time and the CPU per run both ways (in-process: this
 * JVM; isolated: this JVM plus its DuckDB child) with their ratios, then the child's start. A figure, not a test.
 * Usage: {@code IsolationBenchmark [iterations]} ({@code ./sqloop bench isolation}).
 */
public final class IsolationBenchmark {
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private IsolationBenchmark() {}

    public static void main(String[] args) throws Exception {
        int iterations = dev.sqloop.cli.Args.count(args, 0, 20, "bench isolation [ITERATIONS]: ITERATIONS");
        Path dir = Files.createTempDirectory("sqloop-isolation-bench");
        Path file = DemoWarehouse.create(dir.resolve("warehouse.duckdb"));
        DatasourceConfig base = DatasourceConfig.of("bench_in", Dialect.DUCKDB, "jdbc:duckdb:" + file, null, null)
                .withPool(1, Duration.ofSeconds(30));
        DatasourceConfig inProcess = base.withSafeguards(base.safeguards().withIsolation(Safeguards.IN_PROCESS, null));
        DatasourceConfig isolated = new DatasourceConfig("bench_child", Dialect.DUCKDB, base.jdbcUrl(), null, null, base.allowedCatalogs(),
                base.allowedSchemas(), base.allowedTables(), base.rowLimit(), base.queryTimeout(), base.connectTimeout(),
                base.validationMode(), 1, base.properties(), base.safeguards().withIsolation(Safeguards.PROCESS, null));
        Map<String, String> queries = new LinkedHashMap<>();
        DemoBatch.load().items().forEach(i -> queries.putIfAbsent(i.id(), i.goldSql()));

        System.out.printf("DuckDB demo warehouse (TPC-H sf %.2f), %d gold queries, %d runs each way, %d cores, JDK %s, load %.1f%n",
                DemoWarehouse.DEFAULT_SCALE, queries.size(), iterations, Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"), OS.getSystemLoadAverage());
        try (ReadOnlyExecutor executor = new ReadOnlyExecutor()) {
            long wall0 = System.nanoTime();
            long cpu0 = cpuNanos();
            run(executor, isolated, "SELECT 1");
            System.out.printf("child start (JVM, open, first query): %.0f ms wall, %.0f ms CPU (executor + child)%n",
                    (System.nanoTime() - wall0) / 1e6, (cpuNanos() - cpu0) / 1e6);
            run(executor, inProcess, "SELECT 1");

            System.out.printf("%-6s %10s %10s %7s %10s %10s %7s%n", "query", "in p50", "child p50", "x wall", "in CPU", "child CPU", "x CPU");
            double[] sums = new double[4];
            List<Double> wallRatios = new ArrayList<>();
            for (Map.Entry<String, String> q : queries.entrySet()) {
                for (int i = 0; i < 3; i++) {
                    run(executor, inProcess, q.getValue());
                    run(executor, isolated, q.getValue());
                }
                Block in = block(executor, inProcess, q.getValue(), iterations);
                Block child = block(executor, isolated, q.getValue(), iterations);
                System.out.printf("%-6s %8.2fms %8.2fms %6.2fx %8.2fms %8.2fms %6.2fx%n", q.getKey(), in.p50Ms, child.p50Ms,
                        child.p50Ms / in.p50Ms, in.cpuMsPerRun, child.cpuMsPerRun, child.cpuMsPerRun / in.cpuMsPerRun);
                sums[0] += in.p50Ms;
                sums[1] += child.p50Ms;
                sums[2] += in.cpuMsPerRun;
                sums[3] += child.cpuMsPerRun;
                wallRatios.add(child.p50Ms / in.p50Ms);
            }
            double[] ratios = wallRatios.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            System.out.printf("%-6s %8.2fms %8.2fms %6.2fx %8.2fms %8.2fms %6.2fx   (sums over the queries; median wall ratio %.2fx)%n",
                    "all", sums[0], sums[1], sums[1] / sums[0], sums[2], sums[3], sums[3] / sums[2], ratios[ratios.length / 2]);
        }
    }

    private record Block(double p50Ms, double cpuMsPerRun) {}

    /** {@code n} runs in a row: each one's wall time, and the CPU of this JVM and its children over all of them. */
    private static Block block(ReadOnlyExecutor executor, DatasourceConfig ds, String sql, int n) {
        long[] wall = new long[n];
        long cpu0 = cpuNanos();
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            run(executor, ds, sql);
            wall[i] = System.nanoTime() - t0;
        }
        long cpu = cpuNanos() - cpu0;
        Arrays.sort(wall);
        return new Block(wall[(n - 1) / 2] / 1e6, cpu / 1e6 / n);
    }

    private static void run(ReadOnlyExecutor executor, DatasourceConfig ds, String sql) {
        QueryRunner.Result r = executor.run(ds, sql);
        if (!(r instanceof QueryRunner.Succeeded)) throw new IllegalStateException(ds.name() + " failed " + sql + ": " + r);
    }

    /** This JVM's CPU and its live children's (the DuckDB processes: nothing else is started here). */
    private static long cpuNanos() {
        long children = ProcessHandle.current().children()
                .mapToLong(p -> p.info().totalCpuDuration().map(Duration::toNanos).orElse(0L)).sum();
        return OS.getProcessCpuTime() + children;
    }
}
