package dev.sqloop.parse;

import dev.sqloop.common.Dialect;
import java.util.List;
import java.util.Set;

/**
 * What the checks need from one parsed read-only query, whatever parser produced it.
 *
 * @param scopes every SELECT block (CTE bodies, subqueries, set-operation branches), for column checks
 * @param tables base tables referenced (CTE names excluded), as written
 * @param functions scalar/aggregate/window functions called, lower-cased last name part
 * @param tableFunctions table-valued functions used as relations (FROM read_csv(…), TABLE(system.query(…)))
 * @param filters string literals compared with a column ({@code status = 'shipped'}, {@code IN (…)})
 * @param shape the outermost query's shape, for NL constraints
 */
public record ParsedQuery(Dialect dialect, List<QueryScope> scopes, List<ObjectName> tables, Set<String> functions,
                          List<ObjectName> tableFunctions, List<ValueFilter> filters, QueryShape shape) {

    /** A literal filter: the column as written, the scope it is resolved in, and the compared string values. */
    public record ValueFilter(QueryScope scope, ObjectName column, List<String> values) {}

    /**
     * The query's shape as NL constraints see it: mostly the outermost block.
     *
     * @param groupBy some block of the query groups (a CTE that groups serves a "per customer" question too)
     * @param distinct the outermost block is SELECT DISTINCT, or some aggregate is called with DISTINCT
     * @param orderDirections directions of the outermost ORDER BY keys ({@code asc}/{@code desc}), in order
     * @param limit the outermost LIMIT / FETCH FIRST / TOP row count, null when absent or not a literal
     */
    public record QueryShape(boolean groupBy, boolean distinct, List<String> orderDirections, Long limit) {}
}
