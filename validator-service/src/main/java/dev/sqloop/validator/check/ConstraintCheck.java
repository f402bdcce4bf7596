package dev.sqloop.validator.check;

import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.Issue;
import dev.sqloop.common.message.NlConstraints;
import dev.sqloop.parse.FunctionPolicy;
import dev.sqloop.parse.ParsedQuery;
import dev.sqloop.parse.ParsedQuery.QueryShape;
import dev.sqloop.parse.QueryScope;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Compares the SQL with what the question seems to demand ({@link NlConstraints}): the aggregate, grouping,
 * ordering direction, row limit and distinctness. The demands are read from the wording by heuristics ("total
 * number" may be a SUM of a count column, "earliest" may be MIN()), so every finding is a <em>hint</em>
 * ({@link Issue#hint()}): it never fails a query on its own (see the validator's README). Only positive demands
 * are compared: a {@code false} for grouping or distinctness cannot be told apart from "the question did not say".
 */
public final class ConstraintCheck {
    private static final Map<String, Set<String>> AGGREGATES = Map.of(
            "count", Set.of("count", "count_star", "count_if", "approx_distinct", "approx_count_distinct"),
            "sum", Set.of("sum"),
            "avg", Set.of("avg", "mean"),
            "min", Set.of("min", "min_by", "arg_min"),
            "max", Set.of("max", "max_by", "arg_max"),
            "median", Set.of("median", "percentile_cont", "approx_percentile", "quantile_cont", "percentile_approx"));
    private static final Map<String, String> SYNONYMS = Map.of("average", "avg", "mean", "avg", "total", "sum",
            "minimum", "min", "maximum", "max", "number", "count");

    private ConstraintCheck() {}

    public static List<Issue> check(NlConstraints c, ParsedQuery q) {
        if (c == null) return List.of();
        List<Issue> issues = new ArrayList<>();
        QueryShape shape = q.shape();
        boolean aggregates = q.functions().stream().anyMatch(f -> FunctionPolicy.aggregate(q.dialect(), f));
        boolean extremes = q.functions().contains("min") || q.functions().contains("max");
        if (c.aggregation() != null && !c.aggregation().isBlank()) {
            String wanted = c.aggregation().trim().toLowerCase(Locale.ROOT);
            wanted = SYNONYMS.getOrDefault(wanted, wanted);
            Set<String> accepted = AGGREGATES.getOrDefault(wanted, Set.of(wanted));
            if (accepted.stream().noneMatch(q.functions()::contains) && !answeredOtherwise(wanted, c.subject(), q, aggregates)) {
                issues.add(issue("question asks for " + article(wanted) + " " + wanted.toUpperCase(Locale.ROOT)
                        + ", SQL does not compute " + wanted.toUpperCase(Locale.ROOT) + "()", wanted.toUpperCase(Locale.ROOT)));
            }
        }
        // "for each course" with no aggregate is a row per course, which needs no GROUP BY
        if (Boolean.TRUE.equals(c.groupBy()) && !shape.groupBy() && aggregates) {
            // Name the plain columns of the SELECT list: they are what the GROUP BY needs (the engine would name them too).
            List<String> plain = q.scopes().isEmpty() ? List.of() : q.scopes().getFirst().outputs().stream()
                    .filter(o -> o.name() != null && !o.aliased() && !o.star()).map(QueryScope.OutputItem::name).toList();
            String hint = plain.isEmpty() ? "" : "; group by the non-aggregated columns: " + String.join(", ", plain);
            issues.add(new Issue(SchemaCheck.STAGE, ErrorCategory.CONSTRAINT_VIOLATION,
                    "question asks for a result per group, SQL has no GROUP BY" + hint, "GROUP BY", plain, true));
        }
        if (c.orderDirection() != null && !c.orderDirection().isBlank()) {
            String wanted = c.orderDirection().trim().toLowerCase(Locale.ROOT).startsWith("desc") ? "desc" : "asc";
            String words = wanted.equals("desc") ? "descending" : "ascending";
            if (shape.orderDirections().isEmpty()) {
                // a superlative answered by MIN/MAX ("the latest snapshot": WHERE d = (SELECT max(d) …)) needs no ORDER BY
                if (!extremes) issues.add(issue("question asks for results in " + words + " order, SQL has no ORDER BY", "ORDER BY"));
            } else if (!shape.orderDirections().getFirst().equals(wanted)) {
                issues.add(issue("question asks for " + words + " order, SQL orders its first key "
                        + (wanted.equals("desc") ? "ascending" : "descending"), "ORDER BY"));
            }
        }
        if (c.limit() != null) {
            if (shape.limit() == null) {
                issues.add(issue("question asks for the top " + c.limit() + ", SQL has no LIMIT", "LIMIT"));
            } else if (shape.limit().longValue() != c.limit().longValue()) {
                issues.add(issue("question asks for " + c.limit() + " rows, SQL has LIMIT " + shape.limit(), "LIMIT"));
            }
        }
        if (Boolean.TRUE.equals(c.distinct()) && !shape.distinct() && !shape.groupBy()) {
            issues.add(issue("question asks for distinct values, SQL has neither DISTINCT nor GROUP BY", "DISTINCT"));
        }
        return List.copyOf(issues);
    }

    /**
     * Whether the SQL answers the demanded aggregate another way: a count or a total is often a column ("the number of
     * citations" is {@code citation_num}; "the total number of credits" a SUM), and a minimum or maximum an ORDER BY
     * with a LIMIT, or a column that stores it ({@code minimum_connect_time}).
     */
    private static boolean answeredOtherwise(String wanted, String subject, ParsedQuery q, boolean aggregates) {
        // the names the query reads and writes: columns, output aliases and tables (course_tags_count holds counts)
        List<String> names = new ArrayList<>();
        for (QueryScope s : q.scopes()) {
            s.columnRefs().forEach(r -> names.add(r.last().toLowerCase(Locale.ROOT)));
            s.outputs().stream().filter(o -> o.name() != null).forEach(o -> names.add(o.name().toLowerCase(Locale.ROOT)));
        }
        // "how many stops": a stop count stored per row (flight.stops); ids, and the table of the things counted, are what
        // a count counts, never the count
        if (subject != null && subject.length() >= 4) {
            String stem = subject.substring(0, Math.min(4, subject.length()));
            if (names.stream().anyMatch(n -> n.contains(stem) && !n.matches("(.*_)?id|.*_id|.*key"))) return true;
        }
        q.tables().forEach(t -> names.add(t.last().toLowerCase(Locale.ROOT)));
        java.util.function.Predicate<String> column = pattern -> names.stream().anyMatch(n -> n.matches(pattern));
        return switch (wanted) {
            case "count" -> q.functions().contains("sum") || column.test(".*(num|count|cnt|number|total|qty|quantity).*")
                    || aggregates && q.functions().contains("avg");
            case "sum" -> q.functions().contains("count") || column.test(".*(total|sum|amount|num|count).*");
            case "min", "max" -> !q.shape().orderDirections().isEmpty() && q.shape().limit() != null
                    || column.test(".*" + wanted + ".*") || q.functions().contains(wanted.equals("min") ? "max" : "min");
            default -> false;
        };
    }

    private static String article(String word) {
        return "aeiou".indexOf(word.charAt(0)) >= 0 ? "an" : "a";
    }

    private static Issue issue(String message, String identifier) {
        return Issue.hint(SchemaCheck.STAGE, ErrorCategory.CONSTRAINT_VIOLATION, message, identifier);
    }
}
