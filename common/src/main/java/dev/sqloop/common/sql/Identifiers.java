package dev.sqloop.common.sql;

import java.util.Locale;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * How a table or column name must be written in a query for the engine to find it: the schema linker shows names in
 * this form (a model copies the name it is shown) and the validator names it in its guidance when a query's spelling
 * is one the engine would not find.
 */
public final class Identifiers {
    private Identifiers() {}

    /** A name the engines read back unquoted as itself (any case where the engine ignores case). */
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    /** The same where the engine folds unquoted names to lower case (PostgreSQL). */
    private static final Pattern LOWER_PLAIN = Pattern.compile("[a-z_][a-z0-9_]*");
    /**
     * Words the engines reserve (PostgreSQL's reserved keywords, with Hive's and Trino's common ones): a table or column
     * of that name must be quoted ({@code user}, {@code order}, {@code date} on Hive).
     */
    private static final Set<String> RESERVED = Set.of("all", "analyse", "analyze", "and", "any", "array", "as", "asc",
            "asymmetric", "both", "by", "case", "cast", "check", "collate", "column", "constraint", "create", "cross", "cube",
            "current_catalog", "current_date", "current_role", "current_schema", "current_time", "current_timestamp",
            "current_user", "date", "default", "deferrable", "delete", "desc", "describe", "distinct", "do", "drop", "else",
            "end", "except", "exists", "extract", "false", "fetch", "for", "foreign", "from", "full", "function", "grant",
            "group", "grouping", "having", "in", "initially", "inner", "insert", "intersect", "interval", "into", "is", "join",
            "lateral", "leading", "left", "like", "limit", "localtime", "localtimestamp", "natural", "not", "null", "of",
            "offset", "on", "only", "or", "order", "outer", "over", "partition", "placing", "primary", "range", "references",
            "returning", "right", "rollup", "row", "rows", "select", "session_user", "some", "symmetric", "table", "then",
            "time", "timestamp", "to", "trailing", "true", "union", "unique", "update", "user", "using", "values", "variadic",
            "when", "where", "window", "with");

    /**
     * An identifier as a query must write it: as it is when the engine reads it back unquoted as itself, else quoted (a
     * mixed-case PostgreSQL name, a reserved word, a space or a dash in it). The prompt shows this form: a model copies
     * the name it is shown, and an unquoted {@code Album} is {@code album} to PostgreSQL, which it does not find.
     */
    public static String written(String name, boolean foldsToLower, UnaryOperator<String> quote) {
        boolean plain = (foldsToLower ? LOWER_PLAIN : PLAIN).matcher(name).matches() && !RESERVED.contains(name.toLowerCase(Locale.ROOT));
        return plain ? name : quote.apply(name);
    }

    /**
     * An unquoted identifier as PostgreSQL reads it: ASCII letters folded to lower case and nothing else (its
     * {@code downcase_identifier} in a multibyte encoding), so an unquoted {@code ÄRGER} is {@code Ärger}, not
     * {@code ärger}: a name to look up, not to compare ignoring case.
     */
    public static String foldUnquoted(String name) {
        StringBuilder out = null;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c >= 'A' && c <= 'Z') {
                if (out == null) out = new StringBuilder(name);
                out.setCharAt(i, (char) (c + ('a' - 'A')));
            }
        }
        return out == null ? name : out.toString();
    }
}
