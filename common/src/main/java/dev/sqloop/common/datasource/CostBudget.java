package dev.sqloop.common.datasource;

import java.util.Locale;

/**
 * What one query may cost on a datasource by the engine's own estimate before it runs: the executor asks the engine
 * to plan the query (EXPLAIN) and refuses it as {@code too_expensive} when an estimate is over a limit. A null limit
 * is no limit; {@link #NONE} (every limit null, the default) means no estimate is asked for at all.
 *
 * @param maxScanRows  rows the plan's table scans are estimated to produce ({@code SQLOOP_DATASOURCE_<NAME>_MAX_SCAN_ROWS})
 * @param maxScanBytes bytes the plan's table scans are estimated to produce ({@code _MAX_SCAN_BYTES}: a number of bytes or
 *                     a size such as {@code 10GB}, {@code 512MiB})
 * @param maxCost      the engine's own cost figure for the whole plan ({@code _MAX_COST}: PostgreSQL's total cost, Trino's
 *                     CPU cost), in that engine's units
 */
public record CostBudget(Long maxScanRows, Long maxScanBytes, Double maxCost) {
    public static final CostBudget NONE = new CostBudget(null, null, null);

    public CostBudget {
        if (maxScanRows != null && maxScanRows < 1) throw new IllegalArgumentException("max scan rows must be >= 1, was " + maxScanRows);
        if (maxScanBytes != null && maxScanBytes < 1) throw new IllegalArgumentException("max scan bytes must be >= 1, was " + maxScanBytes);
        if (maxCost != null && !(maxCost > 0 && Double.isFinite(maxCost))) {
            throw new IllegalArgumentException("max cost must be a positive number, was " + maxCost);
        }
    }

    /** Whether any limit is set, so that the executor asks the engine for an estimate. */
    public boolean guarded() {
        return maxScanRows != null || maxScanBytes != null || maxCost != null;
    }

    /** A whole number of rows ({@code 1000000}, {@code 1_000_000}); null for blank. */
    public static Long rows(String value) {
        if (value == null || value.isBlank()) return null;
        try {
            return Long.parseLong(value.strip().replace("_", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("must be a whole number of rows, was '" + value + "'");
        }
    }

    /** Bytes as a plain number or a size ({@code 10GB}, {@code 512MiB}, as {@link Safeguards#bytes}); null for blank. */
    public static Long bytes(String value) {
        if (value == null || value.isBlank()) return null;
        String v = value.strip().replace("_", "");
        if (v.matches("\\d+")) return Long.parseLong(v);
        if (!v.toUpperCase(Locale.ROOT).replace(" ", "").matches("\\d+(\\.\\d+)?(B|KB|MB|GB|TB|KIB|MIB|GIB|TIB)")) {
            throw new IllegalArgumentException("must be bytes or a size such as 10GB or 512MiB, was '" + value + "'");
        }
        return Safeguards.bytes(v);
    }

    /** A positive number in the engine's cost units; null for blank. */
    public static Double cost(String value) {
        if (value == null || value.isBlank()) return null;
        try {
            return Double.parseDouble(value.strip().replace("_", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("must be a number, was '" + value + "'");
        }
    }

    @Override
    public String toString() {
        if (!guarded()) return "none";
        return "CostBudget[maxScanRows=" + maxScanRows + ", maxScanBytes=" + maxScanBytes + ", maxCost=" + maxCost + "]";
    }
}
