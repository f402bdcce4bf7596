package dev.sqloop.common.message;

/**
 * What the question itself demands of the SQL, extracted once from the natural language:
 * an aggregate function, grouping, ordering, a row limit, distinctness. Null fields impose nothing.
 *
 * @param subject the noun the aggregate is about ("the number of <b>citations</b>", "the maximum <b>range</b>"), lower
 *     case, or null: a column or table named after it may hold the answer itself ({@code citation_num})
 */
public record NlConstraints(String aggregation, Boolean groupBy, String orderDirection, Integer limit, Boolean distinct,
                            String subject) {
    public static final NlConstraints NONE = new NlConstraints(null, null, null, null, null, null);

    public NlConstraints(String aggregation, Boolean groupBy, String orderDirection, Integer limit, Boolean distinct) {
        this(aggregation, groupBy, orderDirection, limit, distinct, null);
    }
}
