package dev.sqloop.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.CostBudget;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.testkit.engines.DefogDatasets;
import dev.sqloop.testkit.engines.DefogQuestions;
import dev.sqloop.testkit.engines.PostgresServer;
import dev.sqloop.testkit.engines.SparkThriftServer;
import dev.sqloop.testkit.engines.TrinoServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiFunction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cost guard on real engines over the defog databases. Per engine: reading the largest defog table
 * (broker's sbTransaction, 56 rows) whole under a budget of half that read is refused as {@code too_expensive}, with
 * the table and the estimate in the message; the 120 gold queries under a realistic budget — ten full reads of that
 * table, in each of the engine's own figures — are never refused (false refusals counted and printed, as for the
 * validator), and every other outcome is what the query gives without the guard. The guard's own cost per query
 * (guarded run minus unguarded run, on warm pools) is printed.
 */
class CostGuardIT {
    /** Realistic: a query may read as much as ten full reads of the largest table, by each of the engine's figures. */
    static final int REALISTIC_FULL_READS = 10;
    private static ReadOnlyExecutor executor;
    @TempDir
    static Path dir;

    @BeforeAll
    static void setUp() {
        executor = new ReadOnlyExecutor();
    }

    @AfterAll
    static void tearDown() {
        executor.close();
    }

    /**
     * Copies of the defog databases under names of their own ({@code cost_<db>}), ANALYZEd as autovacuum would keep a
     * warehouse's tables: the shared databases' statistics are whatever autovacuum did so far (tables under 50 rows never
     * analyzed), and other tests' plans must not change under them.
     */
    @Test
    void shouldRefuseAFullReadOverBudgetAndNeverTheGoldSqlOnPostgres() throws Exception {
        PostgresServer pg = PostgresServer.shared();
        Map<String, DatasourceConfig> byDb = new HashMap<>();
        for (String db : DefogDatasets.DATABASES) {
            String copy = "cost_" + db;
            pg.createDatabase(copy);
            try (Connection c = pg.superuser(copy); Statement st = c.createStatement()) {
                ResultSet rs = st.executeQuery("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'");
                rs.next();
                if (rs.getInt(1) == 0) st.execute(Files.readString(DefogDatasets.script(db)));
                st.execute("ANALYZE");
            }
            pg.grantReadOnly(copy);
            byDb.put(db, DatasourceConfig.of("pg_cost_" + db, Dialect.POSTGRES, pg.jdbcUrl(copy), PostgresServer.READER,
                    PostgresServer.READER_PASSWORD).withLimits(1000, Duration.ofSeconds(20)).withPool(1, Duration.ofSeconds(5)));
        }
        check("postgres", byDb, "SELECT * FROM sbTransaction", "sbtransaction", (db, gold) -> gold);
    }

    @Test
    void shouldRefuseAFullReadOverBudgetAndNeverTheGoldSqlOnDuckDb() {
        Map<String, DatasourceConfig> byDb = new HashMap<>();
        for (String db : DefogDatasets.DATABASES) {
            Path file = DefogDatasets.loadIntoDuckDb(db, dir.resolve(db + ".duckdb"));
            // the default isolation: the estimate comes from the datasource's DuckDB child process, as the query would
            byDb.put(db, DatasourceConfig.of("duck_cost_" + db, Dialect.DUCKDB, "jdbc:duckdb:" + file, null, null)
                    .withLimits(1000, Duration.ofSeconds(20)).withPool(1, Duration.ofSeconds(5)));
        }
        check("duckdb", byDb, "SELECT * FROM sbTransaction", "sbtransaction", (db, gold) -> gold);
    }

    @Test
    void shouldRefuseAFullReadOverBudgetAndNeverTheGoldSqlOnTrino() {
        TrinoServer trino = TrinoServer.shared();
        DefogDatasets.loadIntoTrino(trino);
        Map<String, DatasourceConfig> byDb = new HashMap<>();
        for (String db : DefogDatasets.DATABASES) {
            byDb.put(db, DatasourceConfig.of("trino_cost_" + db, Dialect.TRINO, trino.jdbcUrl("memory", db), "sqloop", null)
                    .withLimits(1000, Duration.ofSeconds(30)).withPool(1, Duration.ofSeconds(5)));
        }
        check("trino", byDb, "SELECT * FROM sbtransaction", "sbtransaction", DefogDatasets::trinoQuery);
    }

    @Test
    void shouldRefuseAFullReadOverBudgetAndNeverTheGoldSqlOnSpark() throws Exception {
        SparkThriftServer spark = SparkThriftServer.shared();
        Map<String, DatasourceConfig> byDb = new HashMap<>();
        try (Connection admin = spark.connect("default")) {
            for (String db : DefogDatasets.DATABASES) {
                DefogDatasets.loadIntoHiveServer2(admin, db, spark.dataDir());
                byDb.put(db, DatasourceConfig.of("spark_cost_" + db, Dialect.SPARKSQL, spark.jdbcUrl(db), null, null)
                        .withLimits(1000, Duration.ofSeconds(60)).withPool(1, Duration.ofSeconds(10)));
            }
        }
        check("sparksql", byDb, "SELECT * FROM sbTransaction", "sbtransaction", (db, gold) -> gold);
    }

    /**
     * The engine's estimate of a full read of the largest table sets both budgets: half of it refuses that read, ten
     * times it is the realistic budget the gold SQL runs under.
     */
    private static void check(String engine, Map<String, DatasourceConfig> byDb, String fullRead, String table,
                              BiFunction<String, String, String> dialectOf) {
        DatasourceConfig broker = byDb.get("broker");
        CostEstimate full = estimate(broker, fullRead);
        System.out.printf("%s: estimate of a full read of the largest table (%s): rows %s, bytes %s, cost %s%n", engine, table,
                full.scanRows(), full.scanBytes(), full.cost());
        assertTrue(full.scanRows() != null || full.scanBytes() != null || full.cost() != null,
                engine + " gives some estimate for a full read: " + full);

        CostBudget small = new CostBudget(half(full.scanRows()), half(full.scanBytes()), full.cost() == null ? null : full.cost() / 2);
        QueryRunner.Result refused = executor.run(budgeted(broker, small), fullRead);
        QueryRunner.Failed f = assertInstanceOf(QueryRunner.Failed.class, refused, engine + ": over budget is refused");
        assertEquals(ErrorCategory.TOO_EXPENSIVE, f.error().category(), f.error().toString());
        String message = f.error().message().toLowerCase(Locale.ROOT);
        assertTrue(message.contains(table) && message.matches("(?s).*estimates \\d.*"), engine + ": the table and the estimate: " + message);
        assertNotNull(f.error().overBudget());
        assertTrue(f.error().overBudget() > 1.5 && f.error().overBudget() < 2.5, "twice over a half budget: " + f.error().overBudget());
        System.out.println(engine + " refusal: " + f.error().message());

        CostBudget realistic = new CostBudget(times(full.scanRows()), times(full.scanBytes()),
                full.cost() == null ? null : full.cost() * REALISTIC_FULL_READS);
        List<DefogQuestions.Question> questions = DefogQuestions.load();
        Map<Integer, String> falseRefusals = new TreeMap<>();
        List<String> changed = new ArrayList<>();
        double worst = 0;
        for (DefogQuestions.Question q : questions) {
            DatasourceConfig plain = byDb.get(q.database());
            String sql = dialectOf.apply(q.database(), q.firstGold());
            QueryRunner.Result unguarded = executor.run(plain, sql);
            QueryRunner.Result guarded = executor.run(budgeted(plain, realistic), sql);
            if (guarded instanceof QueryRunner.Failed g && g.error().category() == ErrorCategory.TOO_EXPENSIVE) {
                falseRefusals.put(q.index(), g.error().message());
            } else if (!outcome(guarded).equals(outcome(unguarded))) {
                changed.add("#" + q.index() + ": " + outcome(unguarded) + " became " + outcome(guarded));
            }
            if (guarded instanceof QueryRunner.Succeeded) {
                CostEstimate e = estimate(plain, sql);
                worst = Math.max(worst, ratio(e, realistic));
            }
        }
        // the guard's own cost, on warm pools and processes (the pass above started them): the first 40 questions once
        // each way (all 120 doubled the IT's time on Spark and Trino for the same median)
        List<Double> extra = new ArrayList<>();
        List<Double> plainMillis = new ArrayList<>();
        for (DefogQuestions.Question q : questions.subList(0, Math.min(40, questions.size()))) {
            DatasourceConfig plain = byDb.get(q.database());
            String sql = dialectOf.apply(q.database(), q.firstGold());
            long t0 = System.nanoTime();
            executor.run(plain, sql);
            long t1 = System.nanoTime();
            executor.run(budgeted(plain, realistic), sql);
            long t2 = System.nanoTime();
            plainMillis.add((t1 - t0) / 1e6);
            extra.add(((t2 - t1) - (t1 - t0)) / 1e6);
        }
        falseRefusals.forEach((i, why) -> System.out.println(engine + " false refusal of gold #" + i + ": " + why));
        System.out.printf("%s cost guard: full read of %s refused at half its estimate; gold SQL under %d full reads: %d/%d false"
                        + " refusals, highest estimate %.2f of the budget; guard's own cost per query: median %.1f ms, mean %.1f ms"
                        + " (unguarded query: median %.1f ms; %d queries, warm)%n", engine, table, REALISTIC_FULL_READS,
                falseRefusals.size(), questions.size(), worst, median(extra), extra.stream().mapToDouble(d -> d).average().orElse(0),
                median(plainMillis), questions.size());
        assertEquals(Map.of(), falseRefusals, engine + ": gold SQL refused under a realistic budget");
        assertEquals(List.of(), changed, engine + ": the guard changed no other outcome");
    }

    /** The engine's estimate through a connection of the datasource's own pool (DuckDB: the same settings in this JVM). */
    private static CostEstimate estimate(DatasourceConfig ds, String sql) {
        try (Connection c = executor.borrow(ds)) {
            return CostGuard.estimate(c, ds.dialect(), sql, ds);
        } catch (java.sql.SQLException e) {
            throw new AssertionError(ds.name() + ": " + e.getMessage(), e);
        }
    }

    private static double ratio(CostEstimate e, CostBudget b) {
        double r = 0;
        if (e.scanRows() != null && b.maxScanRows() != null) r = Math.max(r, e.scanRows() / b.maxScanRows());
        if (e.scanBytes() != null && b.maxScanBytes() != null) r = Math.max(r, e.scanBytes() / b.maxScanBytes());
        if (e.cost() != null && b.maxCost() != null) r = Math.max(r, e.cost() / b.maxCost());
        return r;
    }

    private static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        return sorted.isEmpty() ? 0 : sorted.get(sorted.size() / 2);
    }

    private static String outcome(QueryRunner.Result r) {
        return r instanceof QueryRunner.Failed f ? f.error().category().wireName() : "ran";
    }

    /** Named apart from the unguarded datasource: its own pool, so the two runs of a question do not share one. */
    private static DatasourceConfig budgeted(DatasourceConfig ds, CostBudget budget) {
        return new DatasourceConfig(ds.name() + "_guarded", ds.dialect(), ds.jdbcUrl(), ds.user(), ds.password(),
                ds.allowedCatalogs(), ds.allowedSchemas(), ds.allowedTables(), ds.rowLimit(), ds.queryTimeout(),
                ds.connectTimeout(), ds.validationMode(), ds.poolSize(), ds.properties(), ds.safeguards().withCost(budget));
    }

    private static Long half(Double v) {
        return v == null ? null : Math.max(1, Math.round(v / 2));
    }

    private static Long times(Double v) {
        return v == null ? null : Math.max(1, Math.round(v * REALISTIC_FULL_READS));
    }
}
