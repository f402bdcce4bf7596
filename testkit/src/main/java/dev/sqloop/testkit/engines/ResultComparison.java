package dev.sqloop.testkit.engines;

import java.math.BigDecimal;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Time;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import io.trino.jdbc.TrinoIntervalDayTime;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.select.OrderByElement;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.SelectItem;
import org.postgresql.util.PGInterval;

/**
 * Compares the result of a query on one engine with the result of the same question on another, the way
 * sql-eval scores the defog set: by values, not by column names or SQL text. Rows are a multiset unless the
 * query's outermost SELECT has an ORDER BY; then the order counts, except among rows that tie on every ORDER BY
 * key (engines may return ties in any order). Numbers compare with a relative tolerance of {@value #TOLERANCE}
 * (floating sums differ in the last digits between engines and runs); an integer equals the same number as a
 * double or decimal. A date equals a timestamp at midnight of that day ({@code date_trunc} returns a date on
 * Trino and a timestamp on PostgreSQL), and a day-to-second interval equals the same duration on either engine.
 * Strings, booleans and nulls compare exactly.
 */
public final class ResultComparison {
    public static final double TOLERANCE = 1e-6;

    /** A whole result: column names (for messages) and rows of JDBC values. */
    public record Table(List<String> columns, List<List<Object>> rows) {}

    private ResultComparison() {}

    /** Reads every row of {@code rs}. */
    public static Table read(ResultSet rs) throws SQLException {
        ResultSetMetaData md = rs.getMetaData();
        int n = md.getColumnCount();
        List<String> columns = new ArrayList<>(n);
        for (int i = 1; i <= n; i++) columns.add(md.getColumnLabel(i));
        List<List<Object>> rows = new ArrayList<>();
        while (rs.next()) {
            List<Object> row = new ArrayList<>(n);
            for (int i = 1; i <= n; i++) row.add(rs.getObject(i));
            rows.add(row);
        }
        return new Table(columns, rows);
    }

    /**
     * The output columns (0-based) the outermost ORDER BY of {@code sql} sorts on: empty when the query has no
     * ORDER BY (rows are a multiset), null when it has one on something not in the output (the order must then
     * match exactly).
     */
    public static List<Integer> orderKeys(String sql) {
        Statement st;
        try {
            st = CCJSqlParserUtil.parse(sql);
        } catch (JSQLParserException e) {
            throw new IllegalArgumentException("cannot read " + sql, e);
        }
        if (!(st instanceof Select select)) return List.of();
        List<OrderByElement> order = select.getOrderByElements();
        if (order == null || order.isEmpty()) return List.of();
        if (!(select instanceof PlainSelect ps)) return null;
        List<Integer> keys = new ArrayList<>();
        for (OrderByElement o : order) {
            int index = outputIndex(ps.getSelectItems(), o.getExpression());
            if (index < 0) return null;
            keys.add(index);
        }
        return keys;
    }

    private static int outputIndex(List<SelectItem<?>> items, Expression key) {
        if (key instanceof LongValue ordinal) return (int) ordinal.getValue() - 1;
        String text = key.toString().replace("\"", "").toLowerCase(Locale.ROOT);
        for (int i = 0; i < items.size(); i++) {
            SelectItem<?> item = items.get(i);
            if (item.getAlias() != null && item.getAlias().getName().replace("\"", "").equalsIgnoreCase(text)) return i;
        }
        for (int i = 0; i < items.size(); i++) {
            Expression e = items.get(i).getExpression();
            if (e.toString().replace("\"", "").equalsIgnoreCase(text)) return i;
            // ORDER BY name for a selected t.name
            if (key instanceof Column k && k.getTable() == null && e instanceof Column c && c.getColumnName().equalsIgnoreCase(k.getColumnName())) {
                return i;
            }
        }
        return -1;
    }

    /** Why {@code actual} differs from {@code expected}, or empty when they hold the same values. */
    public static Optional<String> difference(Table expected, Table actual, List<Integer> orderKeys) {
        if (expected.columns().size() != actual.columns().size()) {
            return Optional.of("columns " + expected.columns() + " vs " + actual.columns());
        }
        if (expected.rows().size() != actual.rows().size()) {
            return Optional.of(expected.rows().size() + " rows vs " + actual.rows().size() + " (first: " + first(expected) + " vs " + first(actual) + ")");
        }
        if (orderKeys == null) {
            for (int i = 0; i < expected.rows().size(); i++) {
                if (!sameRow(expected.rows().get(i), actual.rows().get(i))) {
                    return Optional.of("row " + i + ": " + expected.rows().get(i) + " vs " + actual.rows().get(i));
                }
            }
            return Optional.empty();
        }
        if (orderKeys.isEmpty()) return sameMultiset(expected.rows(), actual.rows(), 0);
        // ordered: compare the runs of rows that tie on the keys, each run as a multiset
        int start = 0;
        List<List<Object>> e = expected.rows();
        while (start < e.size()) {
            int end = start + 1;
            while (end < e.size() && sameKeys(e.get(start), e.get(end), orderKeys)) end++;
            Optional<String> d = sameMultiset(e.subList(start, end), actual.rows().subList(start, end), start);
            if (d.isPresent()) return d;
            start = end;
        }
        return Optional.empty();
    }

    private static String first(Table t) {
        return t.rows().isEmpty() ? "none" : t.rows().getFirst().toString();
    }

    private static boolean sameKeys(List<Object> a, List<Object> b, List<Integer> keys) {
        for (int k : keys) if (!same(a.get(k), b.get(k))) return false;
        return true;
    }

    private static Optional<String> sameMultiset(List<List<Object>> expected, List<List<Object>> actual, int offset) {
        boolean[] used = new boolean[actual.size()];
        for (int i = 0; i < expected.size(); i++) {
            boolean found = false;
            for (int j = 0; j < actual.size() && !found; j++) {
                if (!used[j] && sameRow(expected.get(i), actual.get(j))) {
                    used[j] = true;
                    found = true;
                }
            }
            if (!found) return Optional.of("row " + (offset + i) + " " + expected.get(i) + " not in the other result (e.g. " + actual.getFirst() + ")");
        }
        return Optional.empty();
    }

    private static boolean sameRow(List<Object> a, List<Object> b) {
        for (int i = 0; i < a.size(); i++) if (!same(a.get(i), b.get(i))) return false;
        return true;
    }

    /** One value against another, by the rules of the class comment. */
    public static boolean same(Object a, Object b) {
        if (a == null || b == null) return a == b;
        if (a instanceof Number x && b instanceof Number y) return sameNumber(x, y);
        if (a instanceof Number || b instanceof Number) return false;
        Duration da = duration(a);
        Duration db = duration(b);
        if (da != null && db != null) return da.equals(db);
        Object ta = temporal(a);
        Object tb = temporal(b);
        if (ta != null && tb != null) return ta.equals(tb);
        return a.equals(b);
    }

    private static boolean sameNumber(Number x, Number y) {
        if (isIntegral(x) && isIntegral(y)) return new BigDecimal(x.toString()).compareTo(new BigDecimal(y.toString())) == 0;
        double dx = x.doubleValue();
        double dy = y.doubleValue();
        if (Double.isNaN(dx) || Double.isNaN(dy)) return Double.isNaN(dx) && Double.isNaN(dy);
        return Math.abs(dx - dy) <= TOLERANCE * Math.max(1.0, Math.max(Math.abs(dx), Math.abs(dy)));
    }

    private static boolean isIntegral(Number n) {
        return n instanceof Long || n instanceof Integer || n instanceof Short || n instanceof Byte || n instanceof java.math.BigInteger;
    }

    /** A day-to-second interval as a Duration (PostgreSQL's PGInterval without months, Trino's interval day to second); else null. */
    private static Duration duration(Object v) {
        if (v instanceof PGInterval i && i.getYears() == 0 && i.getMonths() == 0) {
            return Duration.ofDays(i.getDays()).plusHours(i.getHours()).plusMinutes(i.getMinutes())
                    .plusNanos(Math.round(i.getSeconds() * 1_000_000_000L));
        }
        if (v instanceof TrinoIntervalDayTime i) return Duration.ofMillis(i.getMilliSeconds());
        return null;
    }

    /** Dates and timestamps as a LocalDateTime (a date at midnight), times as LocalTime; null if not temporal. */
    private static Object temporal(Object v) {
        return switch (v) {
            case Timestamp t -> t.toLocalDateTime();
            case java.sql.Date d -> d.toLocalDate().atStartOfDay();
            case Time t -> t.toLocalTime();
            case LocalDate d -> d.atStartOfDay();
            case LocalDateTime t -> t;
            case OffsetDateTime t -> t.atZoneSameInstant(java.time.ZoneId.systemDefault()).toLocalDateTime();
            case ZonedDateTime t -> t.withZoneSameInstant(java.time.ZoneId.systemDefault()).toLocalDateTime();
            case LocalTime t -> t;
            default -> null;
        };
    }
}
