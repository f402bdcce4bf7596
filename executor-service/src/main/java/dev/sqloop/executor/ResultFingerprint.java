package dev.sqloop.executor;

import dev.sqloop.common.message.Execution;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * A digest of what a candidate SQL returned (issue 50), equal for two results the selector treats as the same answer:
 * row count and the preview's rows by value (column names ignored, numbers compared at 12 significant digits so 5 and
 * 5.0 agree), as a multiset unless the statement orders its rows (a top-level ORDER BY), then in order.
 *
 * <p>It sees what the executor keeps: the row count and the first {@link ReadOnlyExecutor#PREVIEW_ROWS} rows. Two results
 * differing only past the preview agree here; an unordered result larger than the preview may show other first rows on
 * another run, which makes agreeing candidates look different (an uncertain outcome, never a wrong pick).
 */
public final class ResultFingerprint {
    private static final MathContext DIGITS = new MathContext(12);

    private ResultFingerprint() {}

    public static String of(String sql, Execution execution) {
        boolean ordered = ordersRows(sql);
        List<String> rows = new ArrayList<>();
        for (List<Object> row : execution.preview()) {
            StringBuilder b = new StringBuilder();
            for (Object v : row) b.append(value(v)).append('\u001f');
            rows.add(b.toString());
        }
        if (!ordered) rows.sort(null);
        StringBuilder all = new StringBuilder(ordered ? "ordered\u001e" : "rows\u001e").append(execution.rowCount()).append('\u001e');
        rows.forEach(r -> all.append(r).append('\u001e'));
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(all.toString().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static String value(Object v) {
        if (v == null) return "\u2205";
        if (v instanceof Number n) {
            try {
                BigDecimal d = n instanceof BigDecimal b ? b : new BigDecimal(n.toString());
                d = d.round(DIGITS).stripTrailingZeros();
                return d.signum() == 0 ? "0" : d.toPlainString();
            } catch (NumberFormatException nanOrInfinity) {
                return n.toString();
            }
        }
        return v.toString();
    }

    /** Whether the statement's outermost query has ORDER BY (outside parentheses, quotes and comments). */
    static boolean ordersRows(String sql) {
        StringBuilder top = new StringBuilder();
        int depth = 0;
        for (int i = 0; i < sql.length(); i++) {
            char c = sql.charAt(i);
            if (c == '\'' || c == '"' || c == '`') {
                int end = sql.indexOf(c, i + 1);
                i = end < 0 ? sql.length() : end;
                top.append(' ');
            } else if (c == '-' && i + 1 < sql.length() && sql.charAt(i + 1) == '-') {
                int end = sql.indexOf('\n', i);
                i = end < 0 ? sql.length() : end;
                top.append(' ');
            } else if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth = Math.max(0, depth - 1);
                top.append(' ');
            } else if (depth == 0) {
                top.append(c);
            }
        }
        return java.util.regex.Pattern.compile("(?i)\\bORDER\\s+BY\\b").matcher(top).find();
    }
}
