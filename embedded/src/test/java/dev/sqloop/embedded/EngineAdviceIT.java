package dev.sqloop.embedded;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.executor.EngineError;
import dev.sqloop.executor.QueryRunner;
import dev.sqloop.executor.ReadOnlyExecutor;
import dev.sqloop.generator.CorrectionStrategy;
import dev.sqloop.generator.ErrorPatternRegistry;
import dev.sqloop.testkit.engines.DefogDatasets;
import dev.sqloop.testkit.engines.DemoWarehouse;
import dev.sqloop.testkit.engines.HiveServer;
import dev.sqloop.testkit.engines.PostgresServer;
import dev.sqloop.testkit.engines.SparkThriftServer;
import dev.sqloop.testkit.engines.TrinoServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The repair's advice fits the fault on every engine's own wording (issue 46): an aggregate in WHERE, a window function in
 * WHERE and a column missing from GROUP BY, each run on the real engine, get the strategy that names the fix (HAVING, a
 * subquery, GROUP BY) and the category aggregation_error — and the dialect's error-pattern line, when one matches, does
 * not contradict it. The validator names each fault on the tree before any engine; where an engine's own wording
 * misleads (Hive reads a window function in WHERE as "Invalid column reference" to a column that exists), the
 * validator's advice is the one the repair gets, and the test requires that.
 */
class EngineAdviceIT {
    private record Engine(String name, DatasourceConfig ds, String table, String group, String number) {}

    private enum Fault {
        AGGREGATE_IN_WHERE("SELECT %2$s, count(*) AS n FROM %1$s WHERE count(*) > 2 GROUP BY %2$s", CorrectionStrategy.AGGREGATE_IN_WHERE),
        WINDOW_IN_WHERE("SELECT %2$s FROM %1$s WHERE row_number() OVER (ORDER BY %3$s) <= 3", CorrectionStrategy.WINDOW_IN_WHERE),
        MISSING_GROUP_BY("SELECT %2$s, %3$s, count(*) AS n FROM %1$s GROUP BY %2$s", CorrectionStrategy.AGGREGATION);

        final String template;
        final CorrectionStrategy expected;

        Fault(String template, CorrectionStrategy expected) {
            this.template = template;
            this.expected = expected;
        }
    }

    @Test
    void shouldAdviseWhatEachEnginesErrorNeeds(@TempDir Path dir) throws Exception {
        List<Engine> engines = new ArrayList<>();
        engines.add(new Engine("duckdb", limits(DatasourceConfig.of("duck", Dialect.DUCKDB, "jdbc:duckdb:" + DemoWarehouse.create(
                dir.resolve("demo.duckdb")), null, null)), "orders", "o_orderstatus", "o_totalprice"));
        PostgresServer pg = PostgresServer.shared();
        DefogDatasets.loadIntoPostgres(pg, "academic");
        engines.add(new Engine("postgres", limits(DatasourceConfig.of("pg", Dialect.POSTGRES, pg.jdbcUrl("academic"),
                PostgresServer.READER, PostgresServer.READER_PASSWORD)), "publication", "year", "citation_num"));
        TrinoServer trino = TrinoServer.shared();
        engines.add(new Engine("trino", limits(DatasourceConfig.of("tpch", Dialect.TRINO, trino.jdbcUrl("tpch", "tiny"), "sqloop", null))
                .withLimits(50, Duration.ofSeconds(60)), "orders", "orderstatus", "totalprice"));
        SparkThriftServer spark = SparkThriftServer.shared();
        try (Connection admin = spark.connect("default")) {
            DefogDatasets.loadIntoHiveServer2(admin, "academic", spark.dataDir());
        }
        engines.add(new Engine("sparksql", limits(DatasourceConfig.of("spark", Dialect.SPARKSQL, spark.jdbcUrl("academic"), null, null)),
                "publication", "year", "citation_num"));
        HiveServer hive = HiveServer.shared();
        try (Connection admin = DriverManager.getConnection(hive.jdbcUrl("default"), "sqloop", "")) {
            DefogDatasets.loadIntoHiveServer2(admin, "academic", hive.dataDir());
        }
        engines.add(new Engine("hive", limits(DatasourceConfig.of("hive", Dialect.HIVE, hive.jdbcUrl("academic"), "sqloop", null)),
                "publication", "year", "citation_num"));

        ErrorPatternRegistry registry = ErrorPatternRegistry.load();
        List<String> misfits = new ArrayList<>();
        try (ReadOnlyExecutor executor = new ReadOnlyExecutor()) {
            for (Engine e : engines) {
                for (Fault f : Fault.values()) {
                    String sql = f.template.formatted(e.table(), e.group(), e.number());
                    QueryRunner.Result r = executor.run(e.ds(), sql);
                    EngineError error = assertInstanceOf(QueryRunner.Failed.class, r, () -> e.name() + " ran " + sql).error();
                    CorrectionStrategy chosen = CorrectionStrategy.forIssue(error.category(), error.message());
                    List<dev.sqloop.common.message.Issue> found = dev.sqloop.validator.check.AggregationCheck.check(
                            dev.sqloop.parse.DialectParsers.forDialect(e.ds().dialect()).parse(sql));
                    CorrectionStrategy validator = found.isEmpty() ? null
                            : CorrectionStrategy.forIssue(found.getFirst().category(), found.getFirst().message());
                    if (validator != f.expected) misfits.add(e.name() + " " + f + ": the validator advises " + validator + " (" + found + ")");
                    boolean engineMisleads = e.name().equals("hive") && f == Fault.WINDOW_IN_WHERE;
                    Optional<ErrorPatternRegistry.ErrorPattern> line = registry.match(e.ds().dialect(), error.message());
                    System.out.printf("%-8s %-18s %-18s %-20s %s%n", e.name(), f, error.category().wireName(), chosen,
                            error.message().lines().findFirst().orElse(""));
                    if (!engineMisleads && chosen != f.expected) {
                        misfits.add(e.name() + " " + f + ": " + chosen + " for '" + error.message() + "'");
                    }
                    if (!engineMisleads && error.category() != dev.sqloop.common.error.ErrorCategory.AGGREGATION_ERROR) {
                        misfits.add(e.name() + " " + f + ": classified " + error.category() + " for '" + error.message() + "'");
                    }
                    String registryAdvice = line.map(ErrorPatternRegistry.ErrorPattern::guidance).orElse("").toLowerCase(Locale.ROOT);
                    if (f != Fault.MISSING_GROUP_BY && registryAdvice.contains("to group by")) {
                        misfits.add(e.name() + " " + f + ": the registry line says '" + registryAdvice + "'");
                    }
                }
            }
        }
        assertTrue(misfits.isEmpty(), String.join("\n", misfits));
        assertFalse(engines.isEmpty());
        assertEquals(5, engines.size());
    }

    private static DatasourceConfig limits(DatasourceConfig ds) {
        return ds.withLimits(50, Duration.ofSeconds(30)).withPool(1, Duration.ofSeconds(10));
    }
}
