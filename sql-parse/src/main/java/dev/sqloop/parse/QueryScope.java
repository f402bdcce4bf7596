package dev.sqloop.parse;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One SELECT block as name resolution sees it, the same for every parser: what its FROM clause brings into
 * scope, the column references written directly in it (not in nested blocks), and what it outputs.
 * {@link #parent()} is the enclosing block a correlated subquery may refer to.
 */
public final class QueryScope {

    /**
     * Something a FROM clause brings into scope. Exactly one of {@code table} (a base table), {@code derived}
     * (a subquery or CTE body) is set, or neither with {@code opaque} (a table function, UNNEST, LATERAL VIEW,
     * VALUES: columns not modelled, only their aliases are known).
     */
    public record Source(String alias, ObjectName table, QueryScope derived, List<String> columnAliases, boolean opaque) {
        public Source {
            columnAliases = columnAliases == null ? List.of() : columnAliases.stream().map(QueryScope::lower).toList();
            alias = alias == null ? null : lower(alias);
        }

        /** The name a qualified column may use for this source: its alias, else the table's last part. */
        public String exposedName() {
            if (alias != null) return alias;
            return table != null ? table.last() : null;
        }
    }

    /**
     * One select-list item: a named column, an unnamed expression ({@code name == null}), or a star.
     * {@code aliased} marks a name given with AS, which ORDER BY / GROUP BY / HAVING may refer to.
     */
    public record OutputItem(String name, boolean aliased, boolean star, String starQualifier) {
        /** A column's own name passed through ({@code SELECT status}). */
        public static OutputItem named(String name) {
            return new OutputItem(lower(name), false, false, null);
        }

        /** A name given with AS. */
        public static OutputItem aliased(String name) {
            return new OutputItem(lower(name), true, false, null);
        }

        public static OutputItem anonymous() {
            return new OutputItem(null, false, false, null);
        }

        public static OutputItem star(String qualifier) {
            return new OutputItem(null, false, true, qualifier == null ? null : lower(qualifier));
        }
    }

    private final QueryScope parent;
    private final List<Source> sources = new ArrayList<>();
    private final List<ObjectName> columnRefs = new ArrayList<>();
    private final List<OutputItem> outputs = new ArrayList<>();
    private final Set<String> usingColumns = new LinkedHashSet<>();
    private final Set<String> keywordValues = new LinkedHashSet<>();
    private boolean lenient;

    public QueryScope(QueryScope parent) {
        this.parent = parent;
    }

    public QueryScope parent() {
        return parent;
    }

    public List<Source> sources() {
        return Collections.unmodifiableList(sources);
    }

    public List<ObjectName> columnRefs() {
        return Collections.unmodifiableList(columnRefs);
    }

    public List<OutputItem> outputs() {
        return Collections.unmodifiableList(outputs);
    }

    public Set<String> usingColumns() {
        return Collections.unmodifiableSet(usingColumns);
    }

    /**
     * Keywords written unquoted where a column could stand, which the engine reads as values ({@code user}, {@code
     * current_date}): not column references, though a source may have a column of that name, which only the quoted
     * name reads.
     */
    public Set<String> keywordValues() {
        return Collections.unmodifiableSet(keywordValues);
    }

    public void addKeywordValue(String keyword) {
        keywordValues.add(lower(keyword));
    }

    /** True when the block uses a construct whose names are not modelled, so unqualified misses are not reported. */
    public boolean lenient() {
        return lenient;
    }

    public void addSource(Source source) {
        sources.add(source);
    }

    public void addColumnRef(ObjectName ref) {
        columnRefs.add(ref);
    }

    public void addOutput(OutputItem item) {
        outputs.add(item);
    }

    public void addUsingColumn(String name) {
        usingColumns.add(lower(name));
    }

    /**
     * What the aggregation check needs of one SELECT block, as written: whether it has a GROUP BY, the GROUP BY keys'
     * texts (null keys: grouping sets, ROLLUP, CUBE — not modelled), and each select item's text, its column when the
     * item is a bare column, and its alias. Texts are lower-cased.
     */
    public record Grouping(boolean grouped, List<String> keys, List<Item> items) {
        public record Item(String text, ObjectName column, String alias) {}
    }

    private Grouping grouping;

    public void grouping(Grouping g) {
        grouping = g;
    }

    /** The block's grouping facts, or null when the parser did not record them. */
    public Grouping grouping() {
        return grouping;
    }

    /**
     * A call WHERE cannot hold, found in this block's own WHERE clause (not in a subquery of it): an aggregate, which
     * filters groups (HAVING), or a window function, which needs the rows WHERE is still choosing.
     *
     * @param window a window function ({@code … OVER (…)}); else an aggregate
     * @param text the call as written, for the message
     */
    public record WhereMisuse(boolean window, String function, String text) {}

    private final List<WhereMisuse> whereMisuses = new ArrayList<>();

    public void addWhereMisuse(WhereMisuse m) {
        whereMisuses.add(m);
    }

    public List<WhereMisuse> whereMisuses() {
        return java.util.Collections.unmodifiableList(whereMisuses);
    }

    /**
     * One equality of two columns in a join's ON condition of this block ({@code ON c.id = t.cust_id}), as written: what an
     * empty answer's finding reads (a join comparing an id column with a name column runs and returns nothing).
     */
    public record JoinKey(ObjectName left, ObjectName right) {}

    private final List<JoinKey> joinKeys = new ArrayList<>();

    public void addJoinKey(JoinKey key) {
        joinKeys.add(key);
    }

    public List<JoinKey> joinKeys() {
        return java.util.Collections.unmodifiableList(joinKeys);
    }

    public void markLenient() {
        lenient = true;
    }

    static String lower(String s) {
        return s.toLowerCase(java.util.Locale.ROOT);
    }
}
