package dev.sqloop.common.datasource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * A few distinct values of several columns of one table — what the schema linker shows as samples and the validator
 * indexes for exact comparisons — read in one round trip: a {@code SELECT DISTINCT … LIMIT} per column, unioned. On an
 * engine where every query costs (Trino: a few hundred milliseconds each) one query per column made loading a schema
 * of a hundred text columns take minutes. Columns whose union the engine refuses (an enum beside a varchar, a dialect
 * without derived-table limits) are read a column at a time.
 */
public final class DistinctValues {
    private DistinctValues() {}

    /**
     * Up to {@code limit} distinct non-null values of each column of {@code table} (a quoted reference), by column;
     * a column the engine could not read (nor alone) has none. Never throws for a refused query: values are a hint.
     *
     * @param quote quotes an identifier in the engine's dialect
     */
    public static Map<String, List<String>> read(Connection c, String table, List<String> columns, int limit,
                                                 UnaryOperator<String> quote, int timeoutSeconds) {
        if (columns.size() > 1) {
            Map<String, List<String>> together = query(c, table, columns, limit, quote, timeoutSeconds);
            if (together != null) return together;
        }
        Map<String, List<String>> out = new HashMap<>();
        for (String column : columns) {
            Map<String, List<String>> one = query(c, table, List.of(column), limit, quote, timeoutSeconds);
            if (one != null) out.putAll(one);
        }
        return out;
    }

    /**
     * The same read from the table's rows as they are, {@code SELECT cols FROM t LIMIT maxRows + 1}, for Hive: Hive
     * answers a plain projection with a limit from the table's files (a fetch task) but runs every DISTINCT, GROUP BY
     * or UNION as a MapReduce or Tez job of its own, seconds to tens of seconds each, so the union above made a Hive
     * schema's load take minutes. Distinct values come from the whole table when it has at most {@code maxRows} rows;
     * a larger table gives none, since values from part of it would pass for all of them where they are compared
     * exactly. Never throws: values are a hint.
     */
    public static Map<String, List<String>> readSmallTable(Connection c, String table, List<String> columns, int limit, int maxRows,
                                                          UnaryOperator<String> quote, int timeoutSeconds) {
        StringBuilder sql = new StringBuilder("SELECT ");
        for (int i = 0; i < columns.size(); i++) sql.append(i == 0 ? "" : ", ").append(quote.apply(columns.get(i)));
        sql.append(" FROM ").append(table).append(" LIMIT ").append(maxRows + 1);
        List<java.util.LinkedHashSet<String>> seen = new ArrayList<>();
        columns.forEach(col -> seen.add(new java.util.LinkedHashSet<>()));
        try (Statement st = c.createStatement()) {
            if (timeoutSeconds > 0) st.setQueryTimeout(timeoutSeconds);
            st.setFetchSize(Math.min(maxRows + 1, 10_000));
            try (ResultSet rs = st.executeQuery(sql.toString())) {
                int rows = 0;
                while (rs.next()) {
                    if (++rows > maxRows) return Map.of();
                    for (int i = 0; i < columns.size(); i++) {
                        String v = rs.getString(i + 1);
                        if (v != null && seen.get(i).size() < limit) seen.get(i).add(v);
                    }
                }
            }
        } catch (SQLException | RuntimeException e) {
            return Map.of();
        }
        Map<String, List<String>> values = new HashMap<>();
        for (int i = 0; i < columns.size(); i++) {
            if (!seen.get(i).isEmpty()) values.put(columns.get(i), List.copyOf(seen.get(i)));
        }
        return values;
    }

    /** One query for all of {@code columns}; null when the engine refused it. */
    private static Map<String, List<String>> query(Connection c, String table, List<String> columns, int limit,
                                                   UnaryOperator<String> quote, int timeoutSeconds) {
        StringBuilder sql = new StringBuilder();
        for (int i = 0; i < columns.size(); i++) {
            if (i > 0) sql.append(" UNION ALL ");
            String q = quote.apply(columns.get(i));
            sql.append("SELECT ").append(i).append(" AS k, v FROM (SELECT DISTINCT ").append(q).append(" AS v FROM ").append(table)
                    .append(" WHERE ").append(q).append(" IS NOT NULL LIMIT ").append(limit).append(") s").append(i);
        }
        Map<String, List<String>> values = new HashMap<>();
        try (Statement st = c.createStatement()) {
            if (timeoutSeconds > 0) st.setQueryTimeout(timeoutSeconds + columns.size());
            try (ResultSet rs = st.executeQuery(sql.toString())) {
                while (rs.next()) values.computeIfAbsent(columns.get(rs.getInt(1)), k -> new ArrayList<>()).add(rs.getString(2));
            }
        } catch (SQLException | RuntimeException e) {
            return null;
        }
        return values;
    }
}
