package dev.sqloop.lab;

import dev.sqloop.common.Dialect;
import dev.sqloop.parse.DialectParsers;
import dev.sqloop.parse.SqlRejection;
import dev.sqloop.parse.SqlText;
import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * What the largest texts the parsers may be asked to read cost (issue 44: 20,000 CTEs cost Trino's parser 63 s and
 * 7.7 GB, 5,000 nested CASEs 55 s): per dialect, inputs built up to {@link SqlText#MAX_CHARS} characters and the nesting
 * limit, and the probe's own inputs past them (refused before any parser), each parsed on this thread — wall time and
 * bytes allocated, median of five after three warm-ups — beside a gold-size query parsed in the same process (the ratio).
 * Usage: {@code ./sqloop bench parser-bounds}.
 */
public final class ParserBoundsBenchmark {
    private static final String GOLD = "SELECT a.name, COUNT(DISTINCT p.pid) AS n FROM author a JOIN writes w ON a.aid = w.aid"
            + " JOIN publication p ON w.pid = p.pid WHERE p.year > 2010 GROUP BY a.name ORDER BY n DESC LIMIT 10";

    private ParserBoundsBenchmark() {}

    public static void main(String[] args) {
        Map<String, String> inputs = new LinkedHashMap<>();
        inputs.put("gold query (baseline)", GOLD);
        inputs.put("CTE chain to the size limit", fill(i -> (i == 0 ? "WITH " : ", ") + "c" + i + " AS (SELECT " + i + " AS x)", " SELECT x FROM c0"));
        inputs.put("UNION ALL arms to the size limit", fill(i -> (i == 0 ? "" : " UNION ALL ") + "SELECT " + i + " AS x", ""));
        inputs.put("select list to the size limit", "SELECT " + fill(i -> (i == 0 ? "" : ", ") + i + " AS c" + i, ""));
        inputs.put("IN list to the size limit", "SELECT 1 AS x FROM t WHERE x IN (" + fill(i -> (i == 0 ? "" : ", ") + i, ")"));
        inputs.put("AND chain to the size limit", "SELECT 1 AS x FROM t WHERE " + fill(i -> (i == 0 ? "" : " AND ") + "x <> " + i, ""));
        inputs.put("+ chain to the size limit", "SELECT " + fill(i -> (i == 0 ? "" : " + ") + "1", " AS x"));
        inputs.put("CASE nested to the depth limit", "SELECT " + "CASE WHEN x = 1 THEN ".repeat(SqlText.MAX_DEPTH) + "1"
                + " ELSE 0 END".repeat(SqlText.MAX_DEPTH) + " AS y FROM t");
        inputs.put("calls nested to the depth limit", "SELECT " + "abs(".repeat(SqlText.MAX_DEPTH - 1) + "1" + ")".repeat(SqlText.MAX_DEPTH - 1) + " AS y");
        inputs.put("probe: 20,000 CTEs (598 kB)", ctes(20_000));
        inputs.put("probe: 5,000 nested CASEs", "SELECT " + "CASE WHEN x = 1 THEN ".repeat(5000) + "1" + " ELSE 0 END".repeat(5000) + " AS y FROM t");
        System.out.printf("%-9s %-34s %8s %-9s %10s %10s %8s%n", "dialect", "input", "chars", "verdict", "ms", "alloc MB", "x gold");
        for (Dialect d : Dialect.values()) {
            double goldMs = 0;
            for (Map.Entry<String, String> in : inputs.entrySet()) {
                double[] m = measure(d, in.getValue());
                if (goldMs == 0) goldMs = m[0];
                System.out.printf("%-9s %-34s %8d %-9s %10.2f %10.1f %8.0f%n", d.wireName(), in.getKey(), in.getValue().length(),
                        m[2] > 0 ? "refused" : "parsed", m[0], m[1] / 1e6, m[0] / goldMs);
            }
        }
    }

    /** Median wall ms, median bytes allocated, and 1 when refused. */
    private static double[] measure(Dialect d, String sql) {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        double[] ms = new double[5];
        double[] bytes = new double[5];
        boolean refused = false;
        for (int round = -3; round < 5; round++) {
            long a0 = threads.getCurrentThreadAllocatedBytes();
            long t0 = System.nanoTime();
            try {
                DialectParsers.forDialect(d).parse(sql);
                refused = false;
            } catch (SqlRejection r) {
                refused = true;
            }
            if (round >= 0) {
                ms[round] = (System.nanoTime() - t0) / 1e6;
                bytes[round] = threads.getCurrentThreadAllocatedBytes() - a0;
            }
        }
        java.util.Arrays.sort(ms);
        java.util.Arrays.sort(bytes);
        return new double[] {ms[2], bytes[2], refused ? 1 : 0};
    }

    /** Pieces appended while the text (with {@code tail}) stays within the size limit. */
    private static String fill(IntFunction<String> piece, String tail) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; ; i++) {
            String next = piece.apply(i);
            if (b.length() + next.length() + tail.length() + 40 > SqlText.MAX_CHARS) break;
            b.append(next);
        }
        return b.append(tail).toString();
    }

    private static String ctes(int n) {
        StringBuilder b = new StringBuilder("WITH c0 AS (SELECT 1 AS x)");
        for (int i = 1; i < n; i++) b.append(", c").append(i).append(" AS (SELECT x FROM c").append(i - 1).append(')');
        return b.append(" SELECT x FROM c").append(n - 1).toString();
    }
}
