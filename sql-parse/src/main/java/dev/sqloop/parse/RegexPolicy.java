package dev.sqloop.parse;

import dev.sqloop.common.Dialect;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Locale;
import java.util.Set;

/**
 * Hive and Spark evaluate regular expressions with {@code java.util.regex}, which backtracks and cannot be
 * interrupted: {@code '<60 a>!' RLIKE '(.*a){12}$'} keeps a core busy until the server is killed (Hive even does
 * it while compiling, under a lock every session shares). On those dialects a query that uses a regex function
 * or operator has every string literal checked, and a pattern with a quantified group that itself contains a
 * quantifier or an alternation ({@code (a+)+}, {@code (.*a){12}}, {@code (a|a)*}), a back-reference, or more
 * than {@value #MAX_UNBOUNDED} unbounded quantifiers is refused. Trino (re2j), PostgreSQL and DuckDB (RE2) are
 * linear or interruptible and are not restricted.
 *
 * <p>A lexical check shared by the validator and the executor's guard, so they cannot disagree.
 */
public final class RegexPolicy {
    /** How a datasource treats regular expressions on engines that cannot interrupt them. */
    public enum Mode {
        /** Refuse patterns that can backtrack exponentially (the default). */
        CHECKED,
        /** Refuse every regex function and operator. */
        REFUSED,
        /** No restriction (the engine is trusted to bound them). */
        ALLOWED;

        public static Mode fromWire(String s) {
            if (s == null || s.isBlank()) return CHECKED;
            return Mode.valueOf(s.trim().toUpperCase(Locale.ROOT));
        }
    }

    static final int MAX_UNBOUNDED = 3;
    /** Functions whose argument is a Java regex on Hive/Spark ({@code split} and {@code str_to_map} too). */
    public static final Set<String> REGEX_FUNCTIONS = Set.of("rlike", "regexp", "regexp_like", "regexp_extract",
            "regexp_extract_all", "regexp_replace", "regexp_count", "regexp_instr", "regexp_substr", "split",
            "str_to_map", "sentences");
    private static final Set<String> REGEX_OPERATORS = Set.of("RLIKE", "REGEXP");

    private RegexPolicy() {}

    /**
     * Where each regex function takes its pattern (1-based), as the parsers name the call: also the operators
     * ({@code a RLIKE p} and {@code a LIKE p} become calls of those names), Spark's {@code LIKE}, which compiles its
     * pattern into a Java regex ({@code %} is {@code .*}), and {@code parse_url}, which builds one from its key.
     */
    private static final java.util.Map<String, java.util.List<Integer>> PATTERN_ARGS = java.util.Map.ofEntries(
            java.util.Map.entry("rlike", java.util.List.of(2)), java.util.Map.entry("regexp", java.util.List.of(2)),
            java.util.Map.entry("regexp_like", java.util.List.of(2)), java.util.Map.entry("regexp_extract", java.util.List.of(2)),
            java.util.Map.entry("regexp_extract_all", java.util.List.of(2)), java.util.Map.entry("regexp_replace", java.util.List.of(2)),
            java.util.Map.entry("regexp_count", java.util.List.of(2)), java.util.Map.entry("regexp_instr", java.util.List.of(2)),
            java.util.Map.entry("regexp_substr", java.util.List.of(2)), java.util.Map.entry("split", java.util.List.of(2)),
            java.util.Map.entry("str_to_map", java.util.List.of(2, 3)), java.util.Map.entry("parse_url", java.util.List.of(3)),
            java.util.Map.entry("like", java.util.List.of(2)), java.util.Map.entry("ilike", java.util.List.of(2)));

    /**
     * The tree's reading of one call on Hive/Spark: a pattern that is not a plain string literal (built by {@code concat},
     * {@code repeat}, a column) cannot be judged before it runs, so it is refused; a literal one is judged as
     * {@link #dangerous} judges it ({@code LIKE} patterns after their translation to a regex). Null when acceptable.
     */
    static SqlRejection checkCall(Dialect dialect, ValueExpr.Call call) {
        if (!applies(dialect)) return null;
        java.util.List<Integer> at = PATTERN_ARGS.get(call.name());
        if (at == null) return null;
        for (int i : at) {
            ValueExpr arg = call.arg(i);
            if (arg == null) continue;
            while (arg instanceof ValueExpr.Cast c) arg = c.inner();
            if (!(arg instanceof ValueExpr.Text text)) {
                return SqlRejection.readOnly("the " + (call.name().endsWith("like") ? "pattern of " + call.name().toUpperCase(Locale.ROOT)
                        : "regular expression of " + call.name() + "()") + " is computed by an expression; " + dialect.wireName()
                        + " evaluates it with a backtracking regex it cannot interrupt, so only a string literal can be checked"
                        + " before it runs: write the pattern as a literal", call.name());
            }
            String pattern = call.name().endsWith("like") ? likeToRegex(text.value())
                    : call.name().equals("parse_url") ? "(&|^)" + text.value() + "=([^&]*)" : text.value();
            String why = dangerous(pattern);
            // even two unbounded quantifiers cost the square of the subject: on a subject built from constants
            // (repeat('a', 100000)) that is minutes of uninterruptible matching
            ValueExpr subject = call.arg(1);
            if (why == null && unbounded(pattern) >= 2 && subject != null
                    && ValueSizePolicy.constantSize(dialect, subject) > MAX_CONSTANT_SUBJECT) {
                why = "a subject built from constants matched by more than one unbounded quantifier";
            }
            if (why != null) {
                return SqlRejection.readOnly("pattern '" + shorten(text.value()) + "' can backtrack without bound (" + why + "); "
                        + dialect.wireName() + " cannot interrupt it", call.name());
            }
        }
        return null;
    }

    /** The longest subject built from constants a pattern with several unbounded quantifiers may be matched against. */
    static final int MAX_CONSTANT_SUBJECT = 1_000;

    /** How many unbounded quantifiers ({@code *}, {@code +}, {@code {n,}}) a pattern has outside character classes. */
    static int unbounded(String pattern) {
        int count = 0;
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            if (c == '\\') {
                i++;
            } else if (c == '[') {
                i = classEnd(pattern, i) - 1;
            } else if (c == '*' || c == '+' && (i == 0 || "*+?}".indexOf(pattern.charAt(i - 1)) < 0)) {
                count++;
            } else if (c == '{' && pattern.indexOf('}', i) > 0 && pattern.substring(i + 1, pattern.indexOf('}', i)).matches("\\d*,")) {
                count++;
            }
        }
        return count;
    }

    /** A LIKE pattern as Spark and Hive compile it: {@code %} is {@code .*}, {@code _} is {@code .}, the rest literal. */
    static String likeToRegex(String like) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < like.length(); i++) {
            char c = like.charAt(i);
            if (c == '\\' && i + 1 < like.length()) {
                char e = like.charAt(++i);
                b.append(Character.isLetterOrDigit(e) ? String.valueOf(e) : "\\" + e);
            } else if (c == '%') {
                b.append(".*");
            } else if (c == '_') {
                b.append('.');
            } else {
                b.append(Character.isLetterOrDigit(c) ? String.valueOf(c) : "\\" + c);
            }
        }
        return b.toString();
    }

    /** Whether regular expressions are restricted on this dialect at all. */
    public static boolean applies(Dialect dialect) {
        return dialect == Dialect.HIVE || dialect == Dialect.SPARKSQL;
    }

    /** Refuses {@code sql} (a Hive/Spark text) if it uses a regex in a way {@code mode} forbids. */
    public static void check(String sql, Dialect dialect, Mode mode) throws SqlRejection {
        String why = violation(sql, dialect, mode);
        if (why != null) throw SqlRejection.readOnly(why, "RLIKE");
    }

    /** Why {@code sql} is refused under {@code mode}, or null. */
    public static String violation(String sql, Dialect dialect, Mode mode) {
        if (!applies(dialect) || mode == Mode.ALLOWED) return null;
        Scan scan = scan(sql);
        if (!scan.usesRegex) return null;
        if (mode == Mode.REFUSED) {
            return "regular expressions are not allowed on this datasource: " + dialect.wireName()
                    + " cannot interrupt a backtracking pattern";
        }
        for (String literal : scan.literals) {
            String why = dangerous(literal);
            if (why != null) {
                return "regular expression '" + shorten(literal) + "' can backtrack without bound (" + why + "); "
                        + dialect.wireName() + " cannot interrupt it";
            }
        }
        return null;
    }

    /** Why a Java regex can backtrack exponentially or polynomially without bound, or null. */
    public static String dangerous(String pattern) {
        // per open group: does it contain a quantifier or an alternation?
        Deque<boolean[]> groups = new ArrayDeque<>();
        boolean[] top = new boolean[2];
        int unbounded = 0;
        int n = pattern.length();
        int i = 0;
        while (i < n) {
            char c = pattern.charAt(i);
            boolean closedRisky = false;
            if (c == '\\') {
                if (i + 1 < n && Character.isDigit(pattern.charAt(i + 1)) && pattern.charAt(i + 1) != '0') {
                    return "back-reference";
                }
                if (i + 1 < n && pattern.charAt(i + 1) == 'k') return "back-reference";
                i += 2;
            } else if (c == '[') {
                i = classEnd(pattern, i);
            } else if (c == '(') {
                groups.push(top);
                top = new boolean[2];
                i++;
            } else if (c == ')') {
                closedRisky = top[0] || top[1];
                boolean[] inner = top;
                top = groups.isEmpty() ? new boolean[2] : groups.pop();
                // the enclosing group contains whatever the inner one did
                top[0] |= inner[0];
                top[1] |= inner[1];
                i++;
            } else if (c == '|') {
                top[1] = true;
                i++;
            } else {
                i++;
            }
            // a quantifier right after this atom?
            if (i < n) {
                char q = pattern.charAt(i);
                int after = quantifierEnd(pattern, i);
                if (after > i) {
                    String quant = pattern.substring(i, after);
                    boolean repeats = !quant.startsWith("?") && !quant.equals("{0}") && !quant.equals("{1}")
                            && !quant.matches("\\{0?,?1}[?+]?");
                    if (repeats && closedRisky) return "a repeated group contains a quantifier or an alternation";
                    if (quant.startsWith("*") || quant.startsWith("+") || quant.matches("\\{\\d*,}.*")) unbounded++;
                    if (repeats) top[0] = true;
                    if (q == '{' || q == '*' || q == '+' || q == '?') i = after;
                }
            }
        }
        if (unbounded > MAX_UNBOUNDED) return "more than " + MAX_UNBOUNDED + " unbounded quantifiers";
        return null;
    }

    private static int classEnd(String p, int i) {
        int j = i + 1;
        if (j < p.length() && p.charAt(j) == '^') j++;
        if (j < p.length() && p.charAt(j) == ']') j++;
        while (j < p.length() && p.charAt(j) != ']') {
            if (p.charAt(j) == '\\') j++;
            j++;
        }
        return Math.min(p.length(), j + 1);
    }

    /** The index after a quantifier starting at {@code i} ({@code *}, {@code +}, {@code ?}, {@code {m,n}} plus a lazy/possessive mark). */
    private static int quantifierEnd(String p, int i) {
        char c = p.charAt(i);
        int j;
        if (c == '*' || c == '+' || c == '?') {
            j = i + 1;
        } else if (c == '{') {
            int close = p.indexOf('}', i);
            if (close < 0 || !p.substring(i + 1, close).matches("\\d*,?\\d*")) return i;
            j = close + 1;
        } else {
            return i;
        }
        if (j < p.length() && (p.charAt(j) == '?' || p.charAt(j) == '+')) j++;
        return j;
    }

    private static String shorten(String s) {
        return s.length() > 40 ? s.substring(0, 40) + "…" : s;
    }

    private record Scan(boolean usesRegex, java.util.List<String> literals) {}

    /** Hive/Spark lexical rules: '…' and "…" strings with backslash escapes, `…` names, -- and block comments. */
    private static Scan scan(String sql) {
        java.util.List<String> literals = new java.util.ArrayList<>();
        boolean regex = false;
        String previous = "";
        int n = sql.length();
        int i = 0;
        while (i < n) {
            char c = sql.charAt(i);
            if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                while (i < n && sql.charAt(i) != '\n' && sql.charAt(i) != '\r') i++;
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                int end = sql.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2;
            } else if (c == '\'' || c == '"' || c == '`') {
                StringBuilder b = new StringBuilder();
                int j = i + 1;
                while (j < n && sql.charAt(j) != c) {
                    if (sql.charAt(j) == '\\' && c != '`' && j + 1 < n) {
                        char e = sql.charAt(j + 1);
                        // Hive/Spark unescape \\ to \ and \' to '; other escapes keep the backslash for the regex
                        if (e == '\\' || e == '\'' || e == '"') b.append(e);
                        else b.append('\\').append(e);
                        j += 2;
                    } else {
                        b.append(sql.charAt(j++));
                    }
                }
                if (c == '`') previous = b.toString().toUpperCase(Locale.ROOT);
                else literals.add(b.toString());
                i = j + 1;
            } else if (Character.isLetter(c) || c == '_') {
                int s = i;
                while (i < n && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '_')) i++;
                previous = sql.substring(s, i).toUpperCase(Locale.ROOT);
                if (REGEX_OPERATORS.contains(previous)) regex = true;
            } else {
                if (c == '(' && REGEX_FUNCTIONS.contains(previous.toLowerCase(Locale.ROOT))) regex = true;
                if (!Character.isWhitespace(c)) previous = String.valueOf(c);
                i++;
            }
        }
        return new Scan(regex, literals);
    }
}
