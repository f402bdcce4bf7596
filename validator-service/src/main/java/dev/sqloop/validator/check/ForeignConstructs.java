package dev.sqloop.validator.check;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.Issue;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * SQL of another dialect, named before a warehouse round trip with its equivalent in the datasource's own: MySQL's
 * backticks and {@code LIMIT offset, count}, SQL Server's {@code SELECT TOP n} and {@code [bracketed names]},
 * PostgreSQL's {@code ::} casts where the engine has none, and functions of other engines ({@code IFNULL},
 * {@code DATE_FORMAT}, {@code GETDATE}, …) that the datasource's dialect lacks. An engine often says only
 * {@code syntax error at or near "5"} for {@code SELECT TOP 5}; a correction prompt that names {@code TOP} and
 * {@code LIMIT} has the evidence the model needs (an outside run ended both such questions {@code unchanged_sql}).
 *
 * <p>The syntax rules read the text with each dialect's string and comment rules; the function rules apply only to a
 * function the dialect's allow-list does not hold, so a dialect that has the function is never told otherwise.
 */
public final class ForeignConstructs {
    private ForeignConstructs() {}

    /** How {@code function}, unknown to {@code dialect}, is written there; null when no equivalent is known. */
    public static String equivalent(Dialect dialect, String function) {
        Map<Dialect, String> byDialect = FUNCTIONS.get(function);
        if (byDialect == null) return null;
        String own = byDialect.get(dialect == Dialect.PRESTO ? Dialect.TRINO : dialect == Dialect.HIVE ? Dialect.SPARKSQL : dialect);
        return own;
    }

    private static final Map<Dialect, String> COALESCE = all("COALESCE(a, b)");

    /** Foreign function → its equivalent per dialect (Hive reads Spark's entry, Presto Trino's). */
    private static final Map<String, Map<Dialect, String>> FUNCTIONS = Map.ofEntries(
            Map.entry("ifnull", COALESCE), Map.entry("isnull", COALESCE), Map.entry("nvl", COALESCE),
            Map.entry("nvl2", all("CASE WHEN a IS NOT NULL THEN b ELSE c END")),
            Map.entry("iif", all("CASE WHEN condition THEN a ELSE b END")),
            Map.entry("if", all("CASE WHEN condition THEN a ELSE b END")),
            Map.entry("len", all("length(s)")), Map.entry("datalength", all("octet_length(s)")),
            Map.entry("charindex", per("strpos(s, sub)", "strpos(s, sub)", "strpos(s, sub)", "instr(s, sub)")),
            Map.entry("instr", per("strpos(s, sub)", "strpos(s, sub)", "strpos(s, sub)", "instr(s, sub)")),
            Map.entry("locate", per("strpos(s, sub)", "strpos(s, sub)", "strpos(s, sub)", "locate(sub, s)")),
            Map.entry("getdate", all("current_timestamp")), Map.entry("sysdate", all("current_timestamp")),
            Map.entry("curdate", all("current_date")), Map.entry("curtime", all("current_time")),
            Map.entry("now", all("current_timestamp")),
            Map.entry("date_format", per("to_char(ts, 'YYYY-MM-DD')", "date_format(ts, '%Y-%m-%d')", "strftime(ts, '%Y-%m-%d')",
                    "date_format(ts, 'yyyy-MM-dd')")),
            Map.entry("strftime", per("to_char(ts, 'YYYY-MM-DD')", "date_format(ts, '%Y-%m-%d')", "strftime(ts, '%Y-%m-%d')",
                    "date_format(ts, 'yyyy-MM-dd')")),
            Map.entry("to_char", per("to_char(ts, 'YYYY-MM-DD')", "date_format(ts, '%Y-%m-%d') or format_datetime(ts, 'yyyy-MM-dd')",
                    "strftime(ts, '%Y-%m-%d')", "date_format(ts, 'yyyy-MM-dd')")),
            Map.entry("format_datetime", per("to_char(ts, 'YYYY-MM-DD')", "format_datetime(ts, 'yyyy-MM-dd')",
                    "strftime(ts, '%Y-%m-%d')", "date_format(ts, 'yyyy-MM-dd')")),
            Map.entry("dateadd", per("ts + interval '1 day'", "date_add('day', 1, ts)", "ts + INTERVAL 1 DAY", "date_add(ts, 1)")),
            Map.entry("date_add", per("ts + interval '1 day'", "date_add('day', 1, ts)", "ts + INTERVAL 1 DAY", "date_add(ts, 1)")),
            Map.entry("adddate", per("ts + interval '1 day'", "date_add('day', 1, ts)", "ts + INTERVAL 1 DAY", "date_add(ts, 1)")),
            Map.entry("date_sub", per("ts - interval '1 day'", "date_add('day', -1, ts)", "ts - INTERVAL 1 DAY", "date_sub(ts, 1)")),
            Map.entry("datediff", per("(end_date::date - start_date::date) for days, or age(end, start)",
                    "date_diff('day', start, end)", "date_diff('day', start, end)", "datediff(end, start)")),
            Map.entry("date_diff", per("(end_date::date - start_date::date) for days, or age(end, start)",
                    "date_diff('day', start, end)", "date_diff('day', start, end)", "datediff(end, start)")),
            Map.entry("timestampdiff", per("extract(epoch FROM end - start)", "date_diff('second', start, end)",
                    "date_diff('second', start, end)", "unix_timestamp(end) - unix_timestamp(start)")),
            Map.entry("datepart", per("extract(field FROM ts) or date_part('field', ts)", "extract(field FROM ts), or year(ts)",
                    "date_part('field', ts)", "extract(field FROM ts), or year(ts)")),
            Map.entry("date_part", per("date_part('field', ts)", "extract(field FROM ts), or year(ts)", "date_part('field', ts)",
                    "extract(field FROM ts), or year(ts)")),
            Map.entry("group_concat", per("string_agg(x, ',')", "array_join(array_agg(x), ',')", "string_agg(x, ',')",
                    "concat_ws(',', collect_list(x))")),
            Map.entry("listagg", per("string_agg(x, ',')", "array_join(array_agg(x), ',')", "string_agg(x, ',')",
                    "concat_ws(',', collect_list(x))")),
            Map.entry("string_agg", per("string_agg(x, ',')", "array_join(array_agg(x), ',')", "string_agg(x, ',')",
                    "concat_ws(',', collect_list(x))")),
            Map.entry("substring_index", per("split_part(s, delimiter, n)", "split_part(s, delimiter, n)",
                    "split_part(s, delimiter, n)", "substring_index(s, delimiter, n)")),
            Map.entry("str_to_date", per("to_date(s, 'YYYY-MM-DD') or to_timestamp(s, …)", "date_parse(s, '%Y-%m-%d')",
                    "strptime(s, '%Y-%m-%d')", "to_date(s, 'yyyy-MM-dd')")),
            Map.entry("to_date", per("to_date(s, 'YYYY-MM-DD')", "date_parse(s, '%Y-%m-%d') or CAST(s AS DATE)",
                    "strptime(s, '%Y-%m-%d') or CAST(s AS DATE)", "to_date(s, 'yyyy-MM-dd')")),
            Map.entry("unix_timestamp", per("extract(epoch FROM ts)", "to_unixtime(ts)", "epoch(ts)", "unix_timestamp(ts)")),
            Map.entry("from_unixtime", per("to_timestamp(n)", "from_unixtime(n)", "to_timestamp(n)", "from_unixtime(n)")),
            Map.entry("convert", all("CAST(x AS type)")),
            Map.entry("truncate", per("trunc(x, n)", "truncate(x)", "trunc(x, n)", "round(x, n)")),
            Map.entry("rand", per("random()", "rand()", "random()", "rand()")),
            Map.entry("random", per("random()", "rand()", "random()", "rand()")),
            Map.entry("ilike", per("x ILIKE p", "lower(x) LIKE lower(p)", "x ILIKE p", "lower(x) LIKE lower(p)")));

    private static Map<Dialect, String> all(String same) {
        return per(same, same, same, same);
    }

    private static Map<Dialect, String> per(String postgres, String trino, String duckdb, String spark) {
        return Map.of(Dialect.POSTGRES, postgres, Dialect.TRINO, trino, Dialect.DUCKDB, duckdb, Dialect.SPARKSQL, spark);
    }

    private static final Set<Dialect> DOUBLE_QUOTED_NAMES = EnumSet.of(Dialect.POSTGRES, Dialect.DUCKDB, Dialect.TRINO, Dialect.PRESTO);

    /** Foreign syntax in {@code sql}, each an error naming the construct and this dialect's equivalent. */
    public static List<Issue> syntax(String sql, Dialect dialect) {
        List<Issue> out = new ArrayList<>();
        List<String> tokens = tokens(sql, dialect);
        boolean hiveLike = dialect == Dialect.HIVE || dialect == Dialect.SPARKSQL;
        String name = dialect.displayName();
        for (int i = 0; i < tokens.size(); i++) {
            String t = tokens.get(i);
            String u = t.toUpperCase(Locale.ROOT);
            if (t.startsWith("`") && DOUBLE_QUOTED_NAMES.contains(dialect)) {
                add(out, "backtick quotes (" + t + ") are MySQL's, Hive's and Spark's; " + name + " quotes a name with double quotes: \""
                        + t.substring(1, Math.max(1, t.length() - 1)) + "\"", "`");
            } else if (u.equals("TOP") && i > 0 && isSelectStart(tokens, i) && i + 1 < tokens.size()
                    && (tokens.get(i + 1).matches("\\d+") || tokens.get(i + 1).equals("("))) {
                add(out, "SELECT TOP " + tokens.get(i + 1) + " is SQL Server's; " + name + " writes LIMIT "
                        + (tokens.get(i + 1).matches("\\d+") ? tokens.get(i + 1) : "n") + " at the end of the query", "TOP");
            } else if (u.equals("LIMIT") && dialect != Dialect.HIVE && i + 3 < tokens.size() && tokens.get(i + 1).matches("\\d+")
                    && tokens.get(i + 2).equals(",") && tokens.get(i + 3).matches("\\d+")) {
                String offset = tokens.get(i + 1);
                String count = tokens.get(i + 3);
                add(out, "LIMIT " + offset + ", " + count + " (offset, count) is MySQL's; " + name + " writes "
                        + (dialect == Dialect.TRINO || dialect == Dialect.PRESTO ? "OFFSET " + offset + " LIMIT " + count
                        : "LIMIT " + count + " OFFSET " + offset), "LIMIT");
            } else if (t.equals("::") && (hiveLike || dialect == Dialect.TRINO || dialect == Dialect.PRESTO)) {
                add(out, "x::type is PostgreSQL's cast; " + name + " writes CAST(x AS type)", "::");
            } else if (t.startsWith("[") && t.endsWith("]") && t.length() > 2 && !t.contains(",") && !t.contains("'")
                    && (t.substring(1, t.length() - 1).strip().contains(" ") || hiveLike && !subscript(tokens, i))) {
                // Hive and Spark have no [x] literal: a bracketed name not subscripting something is SQL Server's quoting
                add(out, "a bracketed name " + t + " is SQL Server's quoting; " + name + " quotes a name with "
                        + (hiveLike ? "backticks: `" : "double quotes: \"") + t.substring(1, t.length() - 1)
                        + (hiveLike ? "`" : "\""), "[");
            } else if (u.equals("ILIKE") && dialect == Dialect.HIVE) {
                add(out, "Hive has no ILIKE; write lower(x) LIKE lower(pattern)", "ILIKE");
            }
        }
        return out;
    }

    /** Keywords an expression follows: a bracket after one starts the expression, it subscripts nothing. */
    private static final Set<String> EXPRESSION_KEYWORDS = Set.of("SELECT", "DISTINCT", "ALL", "BY", "WHERE", "AND", "OR", "NOT",
            "ON", "WHEN", "THEN", "ELSE", "HAVING", "IN", "CASE", "BETWEEN", "LIKE", "IS", "QUALIFY");

    /** Whether the bracket at {@code at} follows a name or a closing bracket: a subscript ({@code arr[i]}), not quoting. */
    private static boolean subscript(List<String> tokens, int at) {
        if (at == 0) return false;
        String prev = tokens.get(at - 1);
        if (EXPRESSION_KEYWORDS.contains(prev.toUpperCase(Locale.ROOT))) return false;
        char last = prev.charAt(prev.length() - 1);
        return Character.isLetterOrDigit(last) || last == '_' || last == ')' || last == ']' || last == '`';
    }

    private static boolean isSelectStart(List<String> tokens, int at) {
        int j = at - 1;
        String prev = tokens.get(j).toUpperCase(Locale.ROOT);
        if ((prev.equals("DISTINCT") || prev.equals("ALL")) && j > 0) prev = tokens.get(j - 1).toUpperCase(Locale.ROOT);
        return prev.equals("SELECT");
    }

    private static void add(List<Issue> out, String message, String identifier) {
        if (out.stream().noneMatch(i -> identifier.equals(i.identifier()))) {
            out.add(new Issue(SchemaCheck.STAGE, ErrorCategory.SYNTAX_ERROR, message, identifier, List.of()));
        }
    }

    /**
     * Words, numbers, punctuation, {@code ::}, backtick-quoted names and bracketed spans, outside string literals and
     * comments; double-quoted spans are skipped (names, or strings on Hive/Spark).
     */
    static List<String> tokens(String sql, Dialect dialect) {
        boolean backslash = dialect == Dialect.HIVE || dialect == Dialect.SPARKSQL;
        List<String> out = new ArrayList<>();
        int n = sql.length();
        int i = 0;
        while (i < n) {
            char c = sql.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
            } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                while (i < n && sql.charAt(i) != '\n' && sql.charAt(i) != '\r') i++;
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                int end = sql.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2;
            } else if (c == '\'' || c == '"') {
                int j = i + 1;
                while (j < n) {
                    char d = sql.charAt(j);
                    if (backslash && d == '\\') j += 2;
                    else if (d == c && j + 1 < n && sql.charAt(j + 1) == c) j += 2;
                    else if (d == c) break;
                    else j++;
                }
                i = j + 1;
            } else if (c == '`') {
                int end = sql.indexOf('`', i + 1);
                int stop = end < 0 ? n : end + 1;
                out.add(sql.substring(i, stop));
                i = stop;
            } else if (c == '[') {
                int end = sql.indexOf(']', i + 1);
                if (end > 0 && sql.substring(i + 1, end).matches("[A-Za-z_][A-Za-z0-9_ ]*")) {
                    out.add(sql.substring(i, end + 1));
                    i = end + 1;
                } else {
                    out.add("[");
                    i++;
                }
            } else if (c == ':' && i + 1 < n && sql.charAt(i + 1) == ':') {
                out.add("::");
                i += 2;
            } else if (Character.isLetterOrDigit(c) || c == '_') {
                int s = i;
                while (i < n && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '_' || sql.charAt(i) == '$')) i++;
                out.add(sql.substring(s, i));
            } else {
                out.add(String.valueOf(c));
                i++;
            }
        }
        return out;
    }
}
