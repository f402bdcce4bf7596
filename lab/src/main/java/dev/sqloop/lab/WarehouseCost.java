package dev.sqloop.lab;

import dev.sqloop.embedded.pipeline.DemoBatch;
import dev.sqloop.common.datasource.DuckDbReadOnly;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

/**
 * The warehouse's own work per question. The bench's warehouse is DuckDB, an engine that runs inside the executor's
 * process, so its query execution (native code, invisible to JFR) is counted in the executor's CPU; a deployment's
 * engine (Trino, Hive, Spark, PostgreSQL) runs elsewhere and spends that CPU on its own machines, as the LLM does.
 * Measured after the run the way the embedding is: the batch's SQL on a copy of the warehouse, DuckDB on one thread
 * (the caller's), times the queries each question ran.
 *
 * @param queriesPerQuestion records the execute stage took per question (an attempt that reached execution)
 * @param cpuMillisEach      CPU per query of the batch's gold SQL, on this thread
 */
record WarehouseCost(double queriesPerQuestion, double cpuMillisEach) {
    static final WarehouseCost NONE = new WarehouseCost(0, 0);

    /** {@code rounds} passes over {@code sqls} after one to warm up, as the executor runs them (at most 1,000 rows read). */
    static WarehouseCost measure(Path warehouse, List<String> sqls, double queriesPerQuestion, int rounds) {
        if (queriesPerQuestion <= 0 || sqls.isEmpty()) return NONE;
        try {
            Path copy = Files.createTempFile("sqloop-bench-warehouse", ".duckdb");
            try {
                // a copy: the executor holds the warehouse open with its own settings in this very process
                Files.copy(warehouse, copy, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                Properties p = DuckDbReadOnly.properties();
                p.setProperty("threads", "1"); // DuckDB then executes on the calling thread, whose CPU clock sees it
                try (Connection c = DriverManager.getConnection("jdbc:duckdb:" + copy, p); Statement st = c.createStatement()) {
                    st.setMaxRows(1000);
                    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
                    long start = 0;
                    for (int round = 0; round <= rounds; round++) {
                        if (round == 1) start = threads.getCurrentThreadCpuTime();
                        for (String sql : sqls) {
                            try (ResultSet rs = st.executeQuery(sql)) {
                                while (rs.next()) rs.getObject(1);
                            }
                        }
                    }
                    return new WarehouseCost(queriesPerQuestion, (threads.getCurrentThreadCpuTime() - start) / 1e6 / ((long) rounds * sqls.size()));
                }
            } finally {
                Files.deleteIfExists(copy);
            }
        } catch (Exception e) {
            throw new IllegalStateException("measuring the warehouse's CPU per query: " + e.getMessage(), e);
        }
    }

    /** The batch's gold SQL against what the run executed: the {@code execute} topic's offsets in {@code traffic}. */
    static WarehouseCost of(Path warehouse, dev.sqloop.embedded.pipeline.DemoBatch batch, java.util.Map<String, KafkaTraffic.Usage> traffic,
                            int questions) {
        KafkaTraffic.Usage executed = traffic.get(dev.sqloop.common.topic.Topics.EXECUTE.name());
        if (executed == null || questions == 0) return NONE;
        return measure(warehouse, batch.items().stream().map(dev.sqloop.embedded.pipeline.DemoBatch.Item::goldSql).toList(),
                (double) executed.offsets() / questions, 5);
    }

    double perQuestion() {
        return queriesPerQuestion * cpuMillisEach;
    }

    /** The report's line: what the engine's own work is per question, and sqloop's CPU without it. */
    String line(double sqloopItself) {
        return String.format(Locale.ROOT, "%.2f queries per question × %.2f ms of DuckDB CPU each (the batch's gold SQL on a copy, one "
                        + "thread, measured after the run) = %.1f ms per question of the engine's own work inside the executor's CPU; "
                        + "sqloop itself without it %.1f ms", queriesPerQuestion, cpuMillisEach, perQuestion(), sqloopItself - perQuestion());
    }
}
