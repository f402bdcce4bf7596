package dev.sqloop.validator.check;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.Whitespace;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.Issue;
import dev.sqloop.parse.ParsedQuery;
import dev.sqloop.parse.QueryScope;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A block that aggregates (GROUP BY, or an aggregate in its select list) whose select list holds a bare column that
 * no GROUP BY key covers: an {@code aggregation_error} naming the column, before the engine says the same. Built for
 * precision — it must never refuse correct SQL — so it judges bare-column select items only, counts a column as
 * covered when it is a key, appears in a key expression, or its item is grouped by ordinal, alias or identical text,
 * and stays silent on grouping sets, ROLLUP and CUBE. PostgreSQL allows the other columns of a table whose primary
 * key is grouped (functional dependency); the catalog does not know primary keys, so on PostgreSQL a block that
 * groups a key-like column ({@code id}, {@code …_id}, {@code …id}) is not judged. No MySQL-style leniency elsewhere.
 */
public final class AggregationCheck {
    private static final Pattern AGGREGATE = Pattern.compile("\\b(count|count_if|sum|avg|min|max|array_agg|string_agg|listagg"
            + "|group_concat|median|stddev|stddev_pop|stddev_samp|variance|var_pop|var_samp|bool_and|bool_or|every|any_value"
            + "|arbitrary|collect_list|collect_set|approx_distinct|approx_count_distinct|approx_percentile|percentile_cont"
            + "|percentile_disc|percentile_approx|mode|corr|covar_pop|covar_samp|json_agg|jsonb_agg|bit_and|bit_or)\\s*\\(");
    private static final Pattern WORD = Pattern.compile("[a-z_][a-z0-9_]*");

    /** The messages' heads, which the repair's strategy recognises (CorrectionStrategy). */
    public static final String AGGREGATE_IN_WHERE = "aggregate function in WHERE";
    public static final String WINDOW_IN_WHERE = "window function in WHERE";

    private AggregationCheck() {}

    public static List<Issue> check(ParsedQuery query) {
        List<Issue> issues = new ArrayList<>();
        Set<String> reported = new HashSet<>();
        for (QueryScope scope : query.scopes()) {
            for (QueryScope.WhereMisuse m : scope.whereMisuses()) {
                if (!reported.add("where:" + m.function())) continue;
                issues.add(new Issue(SchemaCheck.STAGE, ErrorCategory.AGGREGATION_ERROR, m.window()
                        ? WINDOW_IN_WHERE + ": " + m.text() + " — WHERE chooses rows before window functions see them; compute it in"
                          + " a subquery or CTE and filter on it in the outer query"
                        : AGGREGATE_IN_WHERE + ": " + m.text() + " — WHERE filters rows before they are grouped; move the condition"
                          + " to HAVING after GROUP BY, or compute the aggregate in a subquery and filter outside it",
                        m.function(), List.of()));
            }
        }
        for (QueryScope scope : query.scopes()) {
            QueryScope.Grouping g = scope.grouping();
            if (g == null || g.keys().contains(null)) continue;
            boolean aggregated = g.grouped() || g.items().stream().anyMatch(i -> aggregates(i.text()));
            if (!aggregated) continue;
            List<String> keys = g.keys().stream().map(AggregationCheck::plain).toList();
            Set<String> keyWords = new LinkedHashSet<>();
            for (String k : keys) WORD.matcher(k).results().forEach(m -> keyWords.add(m.group()));
            if (query.dialect() == Dialect.POSTGRES && keyWords.stream().anyMatch(AggregationCheck::keyLike)) continue;
            for (int i = 0; i < g.items().size(); i++) {
                QueryScope.Grouping.Item item = g.items().get(i);
                if (item.column() == null) continue;
                String name = item.column().last();
                String text = plain(item.text());
                boolean covered = keyWords.contains(name) || keys.contains(text) || keys.contains(String.valueOf(i + 1))
                        || item.alias() != null && keys.contains(item.alias());
                if (covered || !reported.add(name)) continue;
                String written = String.join(".", item.column().parts());
                issues.add(new Issue(SchemaCheck.STAGE, ErrorCategory.AGGREGATION_ERROR, "column " + written
                        + " must appear in the GROUP BY clause or be used in an aggregate function"
                        + (g.grouped() ? "" : " (the query aggregates but has no GROUP BY)"), written, List.of(written)));
            }
        }
        return List.copyOf(issues);
    }

    private static boolean aggregates(String text) {
        // An aggregate inside a subquery or used as a window function does not make this block aggregate.
        return AGGREGATE.matcher(text).find() && !text.contains("select") && !text.matches("(?s).*\\bover\\s*\\(.*");
    }

    private static boolean keyLike(String word) {
        return word.equals("id") || word.endsWith("_id") || word.endsWith("id") && word.length() > 3;
    }

    private static String plain(String text) {
        return Whitespace.oneLine(text.replace("\"", "").replace("`", ""));
    }
}
