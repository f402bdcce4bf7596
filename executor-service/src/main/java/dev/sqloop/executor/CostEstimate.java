package dev.sqloop.executor;

import java.util.Comparator;
import java.util.List;

/**
 * What an engine's plan says a query will read and cost before it runs ({@link CostGuard}). Each figure is the
 * engine's own, null where that engine does not estimate it; what each figure means per engine, and how far it can
 * be trusted, is in the executor-service README ("Cost guard").
 *
 * @param scanRows  rows the plan's table scans produce, summed over the scans
 * @param scanBytes bytes the plan's table scans produce, summed over the scans
 * @param cost      the engine's cost figure for the whole plan, in its own units (PostgreSQL total cost, Trino CPU cost)
 * @param scans     each table scan with its own rows and bytes, largest first
 */
record CostEstimate(Double scanRows, Double scanBytes, Double cost, List<TableScan> scans) {
    static final CostEstimate UNKNOWN = new CostEstimate(null, null, null, List.of());

    CostEstimate {
        scans = scans == null ? List.of() : scans.stream()
                .sorted(Comparator.comparingDouble((TableScan s) -> s.rows() == null ? -1 : s.rows())
                        .thenComparingDouble(s -> s.bytes() == null ? -1 : s.bytes()).reversed())
                .toList();
    }

    /** One table read by the plan: its name as the engine printed it, its rows and bytes (null: not estimated). */
    record TableScan(String table, Double rows, Double bytes) {}

    /** An estimate from the scans alone, summing what each gives (a figure no scan gives stays null). */
    static CostEstimate ofScans(List<TableScan> scans, Double cost) {
        return new CostEstimate(sum(scans, true), sum(scans, false), cost, scans);
    }

    private static Double sum(List<TableScan> scans, boolean rows) {
        Double total = null;
        for (TableScan s : scans) {
            Double v = rows ? s.rows() : s.bytes();
            if (v != null) total = total == null ? v : total + v;
        }
        return total;
    }
}
