package dev.sqloop.executor;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.common.Dialect;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.datasource.CostBudget;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.error.ErrorCategory;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The warehouse cost guard: before a query runs, the engine plans it ({@code EXPLAIN}, never {@code EXPLAIN ANALYZE})
 * on the same read-only session and under the same time limit, and a plan whose estimate is over the datasource's
 * {@link CostBudget} is refused as {@code too_expensive} with the tables and the estimate in the message, so a repair
 * can aim at them. The text explained is the query the guard and the allow-lists already accepted; nothing else is
 * added but the engine's EXPLAIN prefix. An engine that gives no figure for a limit leaves that limit unchecked.
 */
final class CostGuard {
    /** How many tables the refusal names (largest first): enough to aim a repair, short enough for a prompt. */
    static final int NAMED_TABLES = 3;

    private CostGuard() {}

    /** The statement that asks {@code dialect}'s engine for its estimate of {@code query} without running it. */
    static String explainStatement(Dialect dialect, String query) {
        // a newline: the query's own leading comment cannot join the prefix, and its trailing one ends at the end
        return switch (dialect) {
            case POSTGRES, DUCKDB -> "EXPLAIN (FORMAT JSON)\n" + query;
            case TRINO, PRESTO -> "EXPLAIN (TYPE IO, FORMAT JSON)\n" + query;
            case SPARKSQL -> "EXPLAIN COST\n" + query;
            case HIVE -> "EXPLAIN\n" + query;
            // rows and marks per table; the executor does not ask (ClickHouse enforces the budget while reading)
            case CLICKHOUSE -> "EXPLAIN ESTIMATE\n" + query;
        };
    }

    /** Plans {@code query} on {@code c} with the datasource's time limit and reads the engine's estimate. */
    static CostEstimate estimate(Connection c, Dialect dialect, String query, DatasourceConfig ds) throws SQLException {
        StringBuilder plan = new StringBuilder();
        try (Statement st = c.createStatement(); Watchdog w = Watchdog.arm(st, ds)) {
            ReadOnlyExecutor.verbatim(st);
            st.setQueryTimeout(EngineProfile.timeoutSeconds(ds));
            try (ResultSet rs = st.executeQuery(explainStatement(dialect, query))) {
                // the plan is in the last column: DuckDB's first is explain_key; Hive prints one line per row
                int column = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    String line = rs.getString(column);
                    if (line != null) plan.append(line).append('\n');
                }
            }
        }
        return parse(dialect, plan.toString());
    }

    /** The estimate in an engine's EXPLAIN output; {@link CostEstimate#UNKNOWN} where it has none or reads otherwise. */
    static CostEstimate parse(Dialect dialect, String plan) {
        try {
            return switch (dialect) {
                case POSTGRES -> postgres(plan);
                case DUCKDB -> duckdb(plan);
                case TRINO, PRESTO -> trino(plan);
                case SPARKSQL -> spark(plan);
                case HIVE -> hive(plan);
                case CLICKHOUSE -> CostEstimate.UNKNOWN;
            };
        } catch (RuntimeException e) {
            // a plan in a shape this version does not know: no figure, so no refusal (the README says so)
            return CostEstimate.UNKNOWN;
        }
    }

    /**
     * Null when {@code estimate} is within {@code budget}, else the {@code too_expensive} error: which figures broke
     * which limit, and the largest scans by name.
     */
    static EngineError judge(CostEstimate estimate, CostBudget budget) {
        List<String> over = new ArrayList<>();
        double worst = 0;
        if (budget.maxScanRows() != null && estimate.scanRows() != null && estimate.scanRows() > budget.maxScanRows()) {
            over.add(whole(estimate.scanRows()) + " rows scanned (budget " + whole(budget.maxScanRows()) + ")");
            worst = Math.max(worst, estimate.scanRows() / budget.maxScanRows());
        }
        if (budget.maxScanBytes() != null && estimate.scanBytes() != null && estimate.scanBytes() > budget.maxScanBytes()) {
            over.add(size(estimate.scanBytes()) + " scanned (budget " + size(budget.maxScanBytes()) + ")");
            worst = Math.max(worst, estimate.scanBytes() / budget.maxScanBytes());
        }
        if (budget.maxCost() != null && estimate.cost() != null && estimate.cost() > budget.maxCost()) {
            over.add("a cost of " + cost(estimate.cost()) + " (budget " + cost(budget.maxCost()) + ")");
            worst = Math.max(worst, estimate.cost() / budget.maxCost());
        }
        if (over.isEmpty()) return null;
        List<String> named = estimate.scans().stream().limit(NAMED_TABLES).map(CostGuard::describe).toList();
        String message = "too expensive to run: the engine estimates " + String.join(" and ", over)
                + (named.isEmpty() ? "" : "; largest scans: " + String.join(", ", named)) + ". Not run.";
        String table = estimate.scans().isEmpty() ? null : estimate.scans().getFirst().table();
        return new EngineError(ErrorCategory.TOO_EXPENSIVE, message, table, List.of(), false, worst);
    }

    /** The limits of {@code budget} that {@code estimate} has no figure for, so they went unchecked ({@code _MAX_COST}…). */
    static List<String> unchecked(CostEstimate estimate, CostBudget budget) {
        List<String> out = new ArrayList<>();
        if (budget.maxScanRows() != null && estimate.scanRows() == null) out.add("_MAX_SCAN_ROWS");
        if (budget.maxScanBytes() != null && estimate.scanBytes() == null) out.add("_MAX_SCAN_BYTES");
        if (budget.maxCost() != null && estimate.cost() == null) out.add("_MAX_COST");
        return out;
    }

    private static String describe(CostEstimate.TableScan s) {
        List<String> figures = new ArrayList<>();
        if (s.rows() != null) figures.add(whole(s.rows()) + " rows");
        if (s.bytes() != null) figures.add(size(s.bytes()));
        return s.table() + (figures.isEmpty() ? "" : " (" + String.join(", ", figures) + ")");
    }

    static String whole(double v) {
        return String.format(Locale.ROOT, "%,d", Math.round(v));
    }

    /** A cost figure: whole above 100, else two decimals (PostgreSQL's small plans cost 1.56, not "2"). */
    static String cost(double v) {
        return v >= 100 ? whole(v) : String.format(Locale.ROOT, "%.2f", v);
    }

    static String size(double bytes) {
        String[] units = {"B", "kB", "MB", "GB", "TB", "PB"};
        int u = 0;
        double v = bytes;
        while (v >= 1000 && u < units.length - 1) {
            v /= 1000;
            u++;
        }
        return u == 0 ? Math.round(v) + " B" : String.format(Locale.ROOT, "%.1f %s", v, units[u]);
    }

    // ------------------------------------------------------------------ the engines' plans

    /** {@code EXPLAIN (FORMAT JSON)}: every node that reads a relation, its Plan Rows × Plan Width; the root's Total Cost. */
    static CostEstimate postgres(String json) {
        JsonNode plan = tree(json).path(0).path("Plan");
        if (plan.isMissingNode()) return CostEstimate.UNKNOWN;
        List<CostEstimate.TableScan> scans = new ArrayList<>();
        postgresScans(plan, scans);
        return CostEstimate.ofScans(scans, number(plan.get("Total Cost")));
    }

    private static void postgresScans(JsonNode node, List<CostEstimate.TableScan> scans) {
        if (node.hasNonNull("Relation Name")) {
            Double rows = number(node.get("Plan Rows"));
            Double width = number(node.get("Plan Width"));
            scans.add(new CostEstimate.TableScan(node.get("Relation Name").asText(), rows,
                    rows == null || width == null ? null : rows * width));
        }
        for (JsonNode child : node.path("Plans")) postgresScans(child, scans);
    }

    /** {@code EXPLAIN (FORMAT JSON)} (DuckDB 1.1+): every node naming a Table, its Estimated Cardinality; no bytes, no cost. */
    static CostEstimate duckdb(String json) {
        List<CostEstimate.TableScan> scans = new ArrayList<>();
        for (JsonNode root : tree(json)) duckdbScans(root, scans);
        return CostEstimate.ofScans(scans, null);
    }

    private static void duckdbScans(JsonNode node, List<CostEstimate.TableScan> scans) {
        JsonNode extra = node.path("extra_info");
        if (node.path("name").asText("").contains("SCAN") && extra.hasNonNull("Table")) {
            scans.add(new CostEstimate.TableScan(extra.get("Table").asText(), number(extra.get("Estimated Cardinality")), null));
        }
        for (JsonNode child : node.path("children")) duckdbScans(child, scans);
    }

    /**
     * {@code EXPLAIN (TYPE IO, FORMAT JSON)}: each input table's estimate (after the connector's pushdown: partition
     * pruning), and the query's cumulative CPU cost. Trino writes an unknown figure as {@code NaN}.
     */
    static CostEstimate trino(String json) {
        JsonNode io = tree(json);
        List<CostEstimate.TableScan> scans = new ArrayList<>();
        for (JsonNode input : io.path("inputTableColumnInfos")) {
            JsonNode t = input.path("table");
            String name = t.path("catalog").asText() + "." + t.path("schemaTable").path("schema").asText() + "."
                    + t.path("schemaTable").path("table").asText();
            JsonNode e = input.path("estimate");
            scans.add(new CostEstimate.TableScan(name, number(e.get("outputRowCount")), number(e.get("outputSizeInBytes"))));
        }
        return CostEstimate.ofScans(scans, number(io.path("estimate").get("cpuCost")));
    }

    private static final Pattern SPARK_STATISTICS = Pattern.compile(
            "Statistics\\(sizeInBytes=([0-9.]+)\\s*(B|KiB|MiB|GiB|TiB|PiB|EiB)(?:, rowCount=([0-9.E+-]+))?");
    private static final Pattern SPARK_RELATION = Pattern.compile(
            "^[\\s:+|-]*(?:HiveTableRelation \\[([^,\\]]+)|Relation ([^\\[\\s]+)\\[)");
    /** Spark's sizeInBytes when it knows nothing (spark.sql.defaultSizeInBytes, Long.MAX_VALUE): printed 8.0 EiB. */
    private static final double SPARK_UNKNOWN_SIZE = Math.pow(2, 62);

    /**
     * {@code EXPLAIN COST}: the optimized logical plan's relations (leaves) with their Statistics — sizeInBytes always
     * (from file sizes, or 8.0 EiB when nothing is known, which counts as unknown), rowCount only for tables with
     * statistics ({@code ANALYZE TABLE … COMPUTE STATISTICS}) under the cost-based optimizer. No cost figure.
     */
    static CostEstimate spark(String text) {
        int from = text.indexOf("== Optimized Logical Plan ==");
        if (from < 0) return CostEstimate.UNKNOWN;
        int to = text.indexOf("\n== ", from + 1);
        List<CostEstimate.TableScan> scans = new ArrayList<>();
        for (String line : text.substring(from, to < 0 ? text.length() : to).split("\n")) {
            Matcher r = SPARK_RELATION.matcher(line);
            Matcher s = SPARK_STATISTICS.matcher(line);
            if (!r.find() || !s.find()) continue;
            String name = (r.group(1) != null ? r.group(1) : r.group(2)).replace("`", "");
            double bytes = Double.parseDouble(s.group(1)) * switch (s.group(2)) {
                case "B" -> 1d;
                case "KiB" -> 1024d;
                case "MiB" -> Math.pow(1024, 2);
                case "GiB" -> Math.pow(1024, 3);
                case "TiB" -> Math.pow(1024, 4);
                case "PiB" -> Math.pow(1024, 5);
                default -> Math.pow(1024, 6);
            };
            Double rows = s.group(3) == null ? null : new BigDecimal(s.group(3)).doubleValue();
            scans.add(new CostEstimate.TableScan(name, rows, bytes >= SPARK_UNKNOWN_SIZE ? null : bytes));
        }
        return CostEstimate.ofScans(scans, null);
    }

    private static final Pattern HIVE_STATISTICS = Pattern.compile("Statistics: Num rows: (\\d+) Data size: (\\d+)");

    /** {@code EXPLAIN}: each TableScan's alias and its first Statistics line (Num rows, Data size); no cost figure. */
    static CostEstimate hive(String text) {
        List<CostEstimate.TableScan> scans = new ArrayList<>();
        String[] lines = text.split("\n");
        for (int i = 0; i < lines.length; i++) {
            if (!lines[i].strip().equals("TableScan")) continue;
            String alias = null;
            for (int j = i + 1; j < lines.length && j < i + 12; j++) {
                String l = lines[j].strip();
                if (alias == null && l.startsWith("alias: ")) alias = l.substring(7).strip();
                Matcher m = HIVE_STATISTICS.matcher(l);
                if (m.find()) {
                    scans.add(new CostEstimate.TableScan(alias == null ? "?" : alias, Double.parseDouble(m.group(1)),
                            Double.parseDouble(m.group(2))));
                    break;
                }
            }
        }
        return CostEstimate.ofScans(scans, null);
    }

    private static JsonNode tree(String json) {
        try {
            return JsonCodec.mapper().readTree(json);
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("not JSON: " + e.getMessage(), e);
        }
    }

    /** A finite number from a JSON number or text ("56", "NaN"); null when absent or not finite. */
    private static Double number(JsonNode n) {
        if (n == null || n.isNull() || n.isMissingNode()) return null;
        double v;
        if (n.isNumber()) {
            v = n.doubleValue();
        } else {
            try {
                v = Double.parseDouble(n.asText().strip());
            } catch (NumberFormatException e) {
                return null;
            }
        }
        return Double.isFinite(v) ? v : null;
    }
}
