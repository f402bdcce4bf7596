package dev.sqloop.common.message;

/**
 * What the question itself demands of the SQL, extracted once from the natural language:
 * an aggregate function, grouping, ordering, a row limit, distinctness. Null fields impose nothing.
 */
public record NlConstraints(String aggregation, Boolean groupBy, String orderDirection, Integer limit, Boolean distinct) {
    public static final NlConstraints NONE = new NlConstraints(null, null, null, null, null);
}
