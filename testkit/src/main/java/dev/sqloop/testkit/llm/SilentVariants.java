package dev.sqloop.testkit.llm;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Plausible-but-wrong rewrites of a gold SQL (issue 50's {@link Fault#SILENT_VARIANT}): each runs wherever the gold
 * runs, on every dialect (plain text edits of constructs all of them share), and usually returns another answer. The
 * mistakes a model makes without any error: a comparison bound off by one, the first of several filters dropped, SUM
 * for AVG (or back), the sort reversed before a LIMIT, LIMIT one short, a join on the wrong key. Edits never touch
 * quoted literals or identifiers.
 */
public final class SilentVariants {
    private static final Pattern BOUND = Pattern.compile("(?<![<>!=])(>=|<=|>|<)(?![>=])");
    private static final Pattern FIRST_FILTER = Pattern.compile("(?is)\\bWHERE\\s+(.+?)\\s+AND\\s+");
    private static final Pattern AGGREGATE = Pattern.compile("(?i)\\b(SUM|AVG)\\s*\\(");
    private static final Pattern ORDER_LIMIT = Pattern.compile("(?is)\\bORDER\\s+BY\\s+(.+?)\\s+LIMIT\\s+(\\d+)\\s*$");
    private static final Pattern DIRECTION = Pattern.compile("(?i)\\b(ASC|DESC)\\b");
    private static final Pattern LIMIT = Pattern.compile("(?i)\\bLIMIT\\s+(\\d+)\\s*$");

    private SilentVariants() {}

    /** The variants that apply to {@code sql}, in a fixed order, each different from it; empty when none applies. */
    public static List<String> of(String sql) {
        String masked = mask(sql);
        Set<String> out = new LinkedHashSet<>();
        Matcher bound = BOUND.matcher(masked);
        if (bound.find()) {
            String op = bound.group(1);
            String flipped = switch (op) {
                case ">=" -> ">";
                case "<=" -> "<";
                case ">" -> ">=";
                default -> "<=";
            };
            out.add(sql.substring(0, bound.start(1)) + flipped + sql.substring(bound.end(1)));
        }
        Matcher filter = FIRST_FILTER.matcher(masked);
        if (filter.find() && balanced(filter.group(1)) && !filter.group(1).toLowerCase().contains("between")) {
            out.add(sql.substring(0, filter.start(1)) + sql.substring(filter.end()));
        }
        Matcher agg = AGGREGATE.matcher(masked);
        if (agg.find()) {
            String swapped = agg.group(1).equalsIgnoreCase("SUM") ? "AVG" : "SUM";
            out.add(sql.substring(0, agg.start(1)) + swapped + sql.substring(agg.end(1)));
        }
        Matcher order = ORDER_LIMIT.matcher(masked);
        if (order.find()) {
            String keys = sql.substring(order.start(1), order.end(1));
            Matcher dir = DIRECTION.matcher(mask(keys));
            String reversed = dir.find()
                    ? keys.substring(0, dir.start()) + (dir.group(1).equalsIgnoreCase("DESC") ? "ASC" : "DESC") + keys.substring(dir.end())
                    : keys.contains(",") ? keys.replaceFirst(",", " DESC,") : keys + " DESC";
            out.add(sql.substring(0, order.start(1)) + reversed + sql.substring(order.end(1)));
        }
        Matcher limit = LIMIT.matcher(masked);
        if (limit.find() && Integer.parseInt(limit.group(1)) >= 2) {
            out.add(sql.substring(0, limit.start(1)) + (Integer.parseInt(limit.group(1)) - 1) + sql.substring(limit.end(1)));
        }
        Injection join = OracleResponder.silentJoin("", sql);
        if (join != null) out.add(join.faultyAnswer());
        out.remove(sql);
        return new ArrayList<>(out);
    }

    /** {@code sql} with the insides of quoted literals and identifiers blanked, index for index. */
    static String mask(String sql) {
        StringBuilder b = new StringBuilder(sql);
        for (int i = 0; i < b.length(); i++) {
            char c = b.charAt(i);
            if (c != '\'' && c != '"' && c != '`') continue;
            int end = sql.indexOf(c, i + 1);
            if (end < 0) end = sql.length();
            for (int j = i + 1; j < end; j++) b.setCharAt(j, '_');
            i = end;
        }
        return b.toString();
    }

    private static boolean balanced(String s) {
        int depth = 0;
        for (char c : s.toCharArray()) {
            if (c == '(') depth++;
            else if (c == ')' && --depth < 0) return false;
        }
        return depth == 0;
    }
}
