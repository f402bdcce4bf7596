package dev.sqloop.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.CostBudget;
import dev.sqloop.common.error.ErrorCategory;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Reading the engines' plans and judging an estimate against a budget (pure logic; CostGuardIT runs the engines). */
class CostGuardTest {
    /** PostgreSQL 15's EXPLAIN (FORMAT JSON) of a join, as the server prints it (trimmed to the fields read). */
    static final String POSTGRES_PLAN = """
            [{"Plan": {"Node Type": "Hash Join", "Startup Cost": 1.45, "Total Cost": 3.02, "Plan Rows": 56, "Plan Width": 72,
              "Plans": [
                {"Node Type": "Seq Scan", "Parent Relationship": "Outer", "Relation Name": "sbtransaction", "Alias": "t",
                 "Startup Cost": 0.00, "Total Cost": 1.56, "Plan Rows": 56, "Plan Width": 40},
                {"Node Type": "Hash", "Plan Rows": 20, "Plan Width": 32, "Plans": [
                  {"Node Type": "Seq Scan", "Relation Name": "sbcustomer", "Alias": "c", "Total Cost": 1.20, "Plan Rows": 20,
                   "Plan Width": 32}]}]}}]
            """;

    /** DuckDB 2.0's EXPLAIN (FORMAT JSON), captured from the driver (explain_value of physical_plan). */
    static final String DUCKDB_PLAN = """
            [{"name": "PROJECTION", "children": [{"name": "PERFECT_HASH_GROUP_BY", "children": [
              {"name": "SEQ_SCAN", "children": [], "extra_info": {"Table": "memory.main.t", "Type": "Sequential Scan",
               "Projections": "k", "Filters": ["(k = 3)"], "Estimated Cardinality": "9091"}}],
              "extra_info": {"Groups": "#0", "Estimated Cardinality": "11"}}], "extra_info": {"Estimated Cardinality": "11"}}]
            """;

    /** Hive 4.0.1's EXPLAIN of a filtered aggregate on defog's sbtransaction, captured from the test server (trimmed). */
    static final String HIVE_PLAN = """
            STAGE PLANS:
              Stage: Stage-1
                Map Reduce
                  Map Operator Tree:
                      TableScan
                        alias: sbtransaction
                        filterExpr: (sbtxtype = 'sell') (type: boolean)
                        Statistics: Num rows: 65 Data size: 12896 Basic stats: COMPLETE Column stats: NONE
                        Filter Operator
                          predicate: (sbtxtype = 'sell') (type: boolean)
                          Statistics: Num rows: 4 Data size: 793 Basic stats: COMPLETE Column stats: NONE
                          Select Operator
                            expressions: sbtxcustid (type: varchar(20))
                            Statistics: Num rows: 4 Data size: 793 Basic stats: COMPLETE Column stats: NONE
            """;

    @Test
    void shouldReadHiveTableScansBeforeTheirFilters() {
        CostEstimate e = CostGuard.parse(Dialect.HIVE, HIVE_PLAN);
        assertEquals(65.0, e.scanRows());
        assertEquals(12896.0, e.scanBytes());
        assertNull(e.cost());
        assertEquals("sbtransaction", e.scans().getFirst().table());
    }

    @Test
    void shouldReadPostgresScansAndTotalCost() {
        CostEstimate e = CostGuard.parse(Dialect.POSTGRES, POSTGRES_PLAN);
        assertEquals(76.0, e.scanRows());
        assertEquals(56 * 40 + 20 * 32.0, e.scanBytes());
        assertEquals(3.02, e.cost());
        assertEquals(List.of("sbtransaction", "sbcustomer"), e.scans().stream().map(CostEstimate.TableScan::table).toList());
    }

    @Test
    void shouldReadDuckDbCardinalityWithoutBytesOrCost() {
        CostEstimate e = CostGuard.parse(Dialect.DUCKDB, DUCKDB_PLAN);
        assertEquals(9091.0, e.scanRows());
        assertNull(e.scanBytes());
        assertNull(e.cost());
        assertEquals("memory.main.t", e.scans().getFirst().table());
    }

    @Test
    void shouldTreatAPlanItCannotReadAsNoEstimate() {
        assertEquals(CostEstimate.UNKNOWN, CostGuard.parse(Dialect.POSTGRES, "Seq Scan on t  (cost=0.00..1.56 rows=56 width=40)"));
        assertEquals(CostEstimate.UNKNOWN, CostGuard.parse(Dialect.SPARKSQL, "Error occurred during query planning: boom"));
        CostEstimate trino = CostGuard.parse(Dialect.TRINO, """
                {"inputTableColumnInfos": [{"table": {"catalog": "memory", "schemaTable": {"schema": "s", "table": "t"}},
                  "estimate": {"outputRowCount": "NaN", "outputSizeInBytes": "NaN", "cpuCost": "NaN"}}],
                 "estimate": {"outputRowCount": "NaN", "cpuCost": "NaN"}}""");
        assertNull(trino.scanRows(), "NaN is no figure");
        assertNull(trino.cost());
        assertEquals("memory.s.t", trino.scans().getFirst().table());
        assertNull(CostGuard.judge(trino, new CostBudget(1L, 1L, 1.0)), "no figure, no refusal");
        assertEquals(List.of("_MAX_SCAN_ROWS", "_MAX_SCAN_BYTES", "_MAX_COST"), CostGuard.unchecked(trino, new CostBudget(1L, 1L, 1.0)),
                "each unchecked limit is named (the executor logs it once per datasource)");
        assertEquals(List.of("_MAX_COST"), CostGuard.unchecked(CostGuard.parse(Dialect.DUCKDB, DUCKDB_PLAN), new CostBudget(10L, null, 1.0)));
    }

    @Test
    void shouldRefuseOverAnyLimitNamingTheLargestTablesAndTheEstimate() {
        CostEstimate e = CostGuard.parse(Dialect.POSTGRES, POSTGRES_PLAN);
        assertNull(CostGuard.judge(e, CostBudget.NONE));
        assertNull(CostGuard.judge(e, new CostBudget(76L, 3000L, 3.02)), "at the limit is within it");
        EngineError rows = CostGuard.judge(e, new CostBudget(38L, null, null));
        assertEquals(ErrorCategory.TOO_EXPENSIVE, rows.category());
        assertEquals("too expensive to run: the engine estimates 76 rows scanned (budget 38); largest scans: sbtransaction"
                + " (56 rows, 2.2 kB), sbcustomer (20 rows, 640 B). Not run.", rows.message());
        assertEquals("sbtransaction", rows.identifier());
        assertEquals(2.0, rows.overBudget());
        EngineError all = CostGuard.judge(e, new CostBudget(50L, 1000L, 1.0));
        assertTrue(all.message().contains("76 rows scanned (budget 50) and 2.9 kB scanned (budget 1.0 kB) and a cost of 3.02 (budget 1.00)"),
                all.message());
        assertEquals(3.02, all.overBudget(), 1e-9, "the worst ratio: cost 3.02 over 1");
        assertTrue(!all.infrastructure());
    }

    @Test
    void shouldExplainTheCheckedQueryWithTheEnginesOwnPrefixOnly() {
        String q = "SELECT 1 -- trailing comment";
        assertEquals("EXPLAIN (FORMAT JSON)\n" + q, CostGuard.explainStatement(Dialect.POSTGRES, q));
        assertEquals("EXPLAIN (TYPE IO, FORMAT JSON)\n" + q, CostGuard.explainStatement(Dialect.TRINO, q));
        assertEquals("EXPLAIN COST\n" + q, CostGuard.explainStatement(Dialect.SPARKSQL, q));
        for (Dialect d : Dialect.values()) {
            String explain = CostGuard.explainStatement(d, q);
            assertTrue(explain.endsWith("\n" + q) && !explain.toUpperCase().contains("ANALYZE"), d + ": planned, never run: " + explain);
        }
    }
}
