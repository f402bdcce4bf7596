package dev.sqloop.lab;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.datasource.ReadOnlyJdbc;
import dev.sqloop.common.datasource.Safeguards;
import dev.sqloop.executor.QueryRunner;
import dev.sqloop.executor.ReadOnlyExecutor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;

/**
 * Executor overhead over raw JDBC on DuckDB: the same queries through one plain read-only connection
 * (statement, timeout, read every row) and through {@link ReadOnlyExecutor} (guard, LIMIT wrapper, pool
 * borrow/return, preview conversion). Prints p50/p99 per query both ways and their ratio.
 * Usage: {@code ExecutorBenchmark [iterations] [duckdb-file]} (a 100k-row table is generated when no file is given).
 */
public final class ExecutorBenchmark {
    private static final int LIMIT = 1000;
    private static final List<String> QUERIES = List.of(
            "SELECT 1",
            "SELECT * FROM orders WHERE id = 42",
            "SELECT customer, sum(amount) AS total FROM orders GROUP BY customer ORDER BY customer",
            "SELECT * FROM orders WHERE customer = 7");

    private ExecutorBenchmark() {}

    public static void main(String[] args) throws Exception {
        int iterations = dev.sqloop.cli.Args.count(args, 0, 2000, "bench executor [ITERATIONS]: ITERATIONS");
        Path file = args.length > 1 ? Path.of(args[1]) : generate();
        DatasourceConfig plain = DatasourceConfig.of("bench", Dialect.DUCKDB, "jdbc:duckdb:" + file, null, null)
                .withLimits(LIMIT, Duration.ofSeconds(30)).withPool(1, Duration.ofSeconds(5));
        // the executor's own overhead, DuckDB in this JVM like the raw connection; a child process's: bench isolation
        DatasourceConfig ds = plain.withSafeguards(plain.safeguards().withIsolation(Safeguards.IN_PROCESS, null));
        // the raw connection gets exactly the executor's driver properties: DuckDB shares one instance per file
        Properties props = new Properties();
        props.putAll(ReadOnlyJdbc.driverProperties(ds));
        System.out.printf("DuckDB %s, %d iterations per query, row limit %d, JDK %s%n", file, iterations, LIMIT,
                System.getProperty("java.version"));
        System.out.printf("%-86s %9s %9s %9s %9s %7s %7s%n", "query", "raw p50", "raw p99", "exec p50", "exec p99", "x p50", "x p99");
        try (ReadOnlyExecutor executor = new ReadOnlyExecutor();
             Connection raw = DriverManager.getConnection(ds.jdbcUrl(), props)) {
            for (String sql : QUERIES) {
                for (int i = 0; i < Math.max(200, iterations / 5); i++) {
                    raw(raw, sql);
                    executor.run(ds, sql);
                }
                long[] rawNs = new long[iterations];
                long[] execNs = new long[iterations];
                for (int i = 0; i < iterations; i++) {
                    long t0 = System.nanoTime();
                    raw(raw, sql);
                    long t1 = System.nanoTime();
                    if (!(executor.run(ds, sql) instanceof QueryRunner.Succeeded)) throw new IllegalStateException("failed: " + sql);
                    long t2 = System.nanoTime();
                    rawNs[i] = t1 - t0;
                    execNs[i] = t2 - t1;
                }
                Arrays.sort(rawNs);
                Arrays.sort(execNs);
                double r50 = pct(rawNs, 0.50), r99 = pct(rawNs, 0.99), e50 = pct(execNs, 0.50), e99 = pct(execNs, 0.99);
                System.out.printf("%-86s %7.3fms %7.3fms %7.3fms %7.3fms %6.2fx %6.2fx%n",
                        sql.length() > 86 ? sql.substring(0, 83) + "..." : sql, r50, r99, e50, e99, e50 / r50, e99 / r99);
            }
        }
    }

    private static void raw(Connection c, String sql) throws Exception {
        try (Statement st = c.createStatement()) {
            st.setQueryTimeout(30);
            st.setMaxRows(LIMIT);
            try (ResultSet rs = st.executeQuery(sql)) {
                int n = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    for (int i = 1; i <= n; i++) rs.getObject(i);
                }
            }
        }
    }

    private static double pct(long[] sorted, double p) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)] / 1e6;
    }

    private static Path generate() throws Exception {
        Path dir = Files.createTempDirectory("sqloop-bench");
        Path file = dir.resolve("bench.duckdb");
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:" + file, new Properties()); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE orders AS SELECT range AS id, range % 100 AS customer, CAST((range * 7) % 1000 AS DECIMAL(10,2)) / 10 AS amount,"
                    + " DATE '2024-01-01' + CAST(range % 365 AS INTEGER) AS day, 'order ' || range AS note FROM range(100000)");
            st.execute("CHECKPOINT");
        }
        file.toFile().deleteOnExit();
        return file;
    }
}
