package dev.sqloop.executor;

import static dev.sqloop.executor.ExecutorAssertions.fail;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.testkit.engines.TrinoServer;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 11 on the real (shared) Trino: table-function arguments read tables, so the executor's allow-list must
 * see them. Each query is first run without an allow-list to prove the engine really returns the other table.
 */
class TrinoSafeguardsIT {
    private static DatasourceConfig open;
    private static DatasourceConfig onlyOrders;
    private static ReadOnlyExecutor executor;

    @BeforeAll
    static void start() {
        TrinoServer trino = TrinoServer.shared();
        open = DatasourceConfig.of("tpch_open", Dialect.TRINO, trino.jdbcUrl("tpch", "tiny"), "sqloop", null)
                .withLimits(100, Duration.ofSeconds(120)).withPool(1, Duration.ofSeconds(5));
        onlyOrders = new DatasourceConfig("tpch_orders", Dialect.TRINO, open.jdbcUrl(), "sqloop", null, Set.of("tpch"),
                Set.of("tiny"), Set.of("orders"), 100, Duration.ofSeconds(120), Duration.ofSeconds(5), null, 1, java.util.Map.of());
        executor = new ReadOnlyExecutor();
    }

    @AfterAll
    static void close() {
        executor.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT * FROM TABLE(exclude_columns(input => TABLE(nation), columns => DESCRIPTOR(comment)))",
            "SELECT * FROM TABLE(exclude_columns(input => TABLE(tpch.tiny.nation), columns => DESCRIPTOR(comment)))",
            "SELECT * FROM TABLE(exclude_columns(input => TABLE(SELECT * FROM nation), columns => DESCRIPTOR(comment)))",
            "SELECT * FROM orders o, TABLE(exclude_columns(input => TABLE(nation), columns => DESCRIPTOR(comment))) n LIMIT 1",
            "SELECT * FROM TABLE(exclude_columns(input => TABLE(tpch.sf1.orders), columns => DESCRIPTOR(comment))) LIMIT 1"})
    void shouldSeeTablesInsideTableFunctionArguments(String sql) {
        QueryRunner.Result r = executor.run(open, sql);
        QueryRunner.Succeeded s = assertInstanceOf(QueryRunner.Succeeded.class, r, () -> "the engine runs it: " + r);
        assertTrue(s.execution().rowCount() > 0, "and returns the other table's rows");
        EngineError e = fail(executor, onlyOrders, sql);
        assertEquals(ErrorCategory.TABLE_NOT_FOUND, e.category(), e.toString());
        assertTrue(e.message().contains("allow-list"), e.message());
    }

    /**
     * A name without its schema or catalog resolves where the real session points (the URL's tpch/tiny, read from
     * trino-jdbc): it runs when that is allowed, and is refused, before the engine, when the URL points elsewhere.
     */
    @Test
    void shouldCheckNamesWithoutSchemaOrCatalogWhereTheSessionResolvesThem() {
        assertEquals(15_000, scalar(executor.run(onlyOrders, "SELECT count(*) FROM orders")), "tpch.tiny: the allowed place");
        DatasourceConfig sf1 = allowing("tpch_sf1_url", TrinoServer.shared().jdbcUrl("tpch", "sf1"), Set.of("tpch"), Set.of("tiny"));
        EngineError bare = fail(executor, sf1, "SELECT count(*) FROM orders");
        assertTrue(bare.message().contains("without its schema") && bare.message().contains("schema sf1"), bare.message());
        assertEquals(15_000, scalar(executor.run(sf1, "SELECT count(*) FROM tiny.orders")));
        DatasourceConfig memoryOnly = allowing("tpch_memory_only", open.jdbcUrl(), Set.of("memory"), Set.of());
        EngineError noCatalog = fail(executor, memoryOnly, "SELECT count(*) FROM tiny.orders");
        assertTrue(noCatalog.message().contains("without its catalog") && noCatalog.message().contains("catalog tpch"), noCatalog.message());
    }

    private static DatasourceConfig allowing(String name, String url, Set<String> catalogs, Set<String> schemas) {
        return new DatasourceConfig(name, Dialect.TRINO, url, "sqloop", null, catalogs, schemas, Set.of(), 100,
                Duration.ofSeconds(120), Duration.ofSeconds(5), null, 1, java.util.Map.of());
    }

    private static long scalar(QueryRunner.Result r) {
        QueryRunner.Succeeded s = assertInstanceOf(QueryRunner.Succeeded.class, r, r::toString);
        return ((Number) s.execution().preview().getFirst().getFirst()).longValue();
    }
}
