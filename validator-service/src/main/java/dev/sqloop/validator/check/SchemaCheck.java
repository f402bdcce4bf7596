package dev.sqloop.validator.check;

import dev.sqloop.common.Whitespace;
import dev.sqloop.common.sql.Identifiers;
import dev.sqloop.common.sql.Typos;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.Issue;
import dev.sqloop.parse.FunctionPolicy;
import dev.sqloop.parse.ObjectName;
import dev.sqloop.parse.ParsedQuery;
import dev.sqloop.parse.QueryScope;
import dev.sqloop.parse.QueryScope.OutputItem;
import dev.sqloop.parse.QueryScope.Source;
import dev.sqloop.validator.schema.NearNames;
import dev.sqloop.validator.schema.SchemaCatalog;
import dev.sqloop.validator.schema.TableSchema;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Checks a parsed query against a datasource's {@link SchemaCatalog}: tables exist (and are allowed: the
 * catalog holds only allowed tables), columns resolve through aliases, CTEs, subqueries, {@code *} and
 * {@code USING}, functions exist in the engine, and string literals compared with an indexed low-cardinality
 * column are among its values (an error only for a value in the wrong case or spacing or one letter from exactly one value, else a hint). It stays silent where it cannot be sure (a construct whose columns are not
 * modelled): a false alarm would send a correct query to repair.
 */
public final class SchemaCheck {
    public static final String STAGE = "static-validate";

    /** Syntax that parsers report as function calls but engines do not list as functions. */
    private static final Set<String> SYNTAX_FUNCTIONS = Set.of("coalesce", "nullif", "cast", "try_cast", "extract",
            "if", "ifnull", "greatest", "least", "grouping", "row", "array", "struct", "map", "list", "exists", "case",
            "position", "substring", "trim", "overlay", "interval", "date", "timestamp", "time", "unnest",
            "count", "count_star", "row_number", "rank", "dense_rank", "nvl", "try", "values", "current_date",
            "current_timestamp", "localtimestamp", "generate_series", "range", "sequence", "explode", "posexplode");

    private final SchemaCatalog catalog;
    private final ParsedQuery query;
    private final Map<QueryScope, Columns> outputsMemo = new IdentityHashMap<>();
    private final List<Issue> issues = new ArrayList<>();
    private final Set<String> reported = new LinkedHashSet<>();

    /** The column names a source offers; {@code complete == false} means other, unmodelled names may exist. */
    record Columns(Set<String> names, boolean complete) {
        static final Columns UNKNOWN = new Columns(Set.of(), false);
    }

    private final Set<String> extraFunctions;

    private SchemaCheck(SchemaCatalog catalog, ParsedQuery query, Set<String> extraFunctions) {
        this.catalog = catalog;
        this.query = query;
        this.extraFunctions = extraFunctions;
    }

    public static List<Issue> check(ParsedQuery query, SchemaCatalog catalog) {
        return check(query, catalog, Set.of());
    }

    /** @param extraFunctions functions the datasource adds to the dialect's allow-list (its UDFs) */
    public static List<Issue> check(ParsedQuery query, SchemaCatalog catalog, Set<String> extraFunctions) {
        SchemaCheck c = new SchemaCheck(catalog, query, extraFunctions);
        c.tables();
        c.functions();
        for (QueryScope scope : query.scopes()) {
            for (ObjectName ref : scope.columnRefs()) c.column(scope, ref);
        }
        c.values();
        if (query.dialect().quotedNamesKeepCase()) c.columnSpellings();
        if (query.dialect().keywordsShadowColumns()) c.keywordsForColumns();
        return List.copyOf(c.issues);
    }

    private void tables() {
        for (ObjectName t : query.tables()) {
            Optional<TableSchema> found = catalog.resolve(t);
            if (found.isPresent()) {
                if (query.dialect().quotedNamesKeepCase()) tableSpelling(t, found.get());
                continue;
            }
            List<String> names = catalog.tables().stream().map(TableSchema::name).toList();
            List<String> near = NearNames.of(t.last(), names).stream()
                    .map(n -> catalog.tables().stream().filter(x -> x.name().equals(n)).findFirst().map(TableSchema::qualifiedName).orElse(n))
                    .toList();
            add(ErrorCategory.TABLE_NOT_FOUND, "table " + t.text() + " does not exist or is not allowed for this datasource",
                    t.text(), near);
        }
    }

    /**
     * Where a quoted name keeps its case (PostgreSQL), a table found ignoring case may still be one the engine does not
     * find: {@code Album} is read as {@code album}, which a table created as {@code "Album"} is not.
     */
    private void tableSpelling(ObjectName written, TableSchema table) {
        if (table.spelledAs(written)) return;
        List<String> exact = written.exact();
        String asStored = (exact.size() < 2 ? "" : spelled(table.spelling().schema()) + ".") + spelled(table.spelling().name());
        add(ErrorCategory.TABLE_NOT_FOUND, "table " + asRead(exact) + " does not exist: " + query.dialect().displayName()
                + " reads an unquoted name in lower case and a quoted one as written; the table is " + asStored
                + " (write it exactly so)", written.text(), List.of(asStored));
    }

    /**
     * Column names checked as the engine reads them, where a quoted name keeps its case: a column of a base table found
     * ignoring case ({@code Title} for {@code "Title"}) and a table's own name used as a qualifier ({@code Album.Title}
     * beside {@code FROM "Album"}). Silent where the column comes through a subquery, a CTE or an output alias.
     */
    private void columnSpellings() {
        for (QueryScope scope : query.scopes()) {
            for (ObjectName ref : scope.columnRefs()) {
                if (ref.size() == 1 && scope.outputs().stream().anyMatch(o -> o.aliased() && ref.last().equals(o.name()))) continue;
                Optional<TableColumn> col = baseColumn(scope, ref);
                if (col.isEmpty()) continue;
                TableSchema table = col.get().table();
                String stored = table.storedColumn(col.get().column());
                if (stored != null && !stored.equals(ref.exact().getLast())) {
                    add(ErrorCategory.COLUMN_NOT_FOUND, "column " + asRead(List.of(ref.exact().getLast())) + " does not exist in "
                            + spelled(table.spelling().name()) + ": " + query.dialect().displayName()
                            + " reads an unquoted name in lower case and a quoted one as written; the column is " + spelled(stored)
                            + " (write it exactly so)", ref.text(), List.of(spelled(stored)));
                }
                if (ref.size() == 2) qualifierSpelling(scope, ref, table);
            }
        }
    }

    /**
     * {@code SELECT user FROM events} where events has a column {@code user}: the engine reads the unquoted keyword as
     * the session's role (date, time) and returns it for every row, without an error; only {@code "user"} reads the
     * column. The query evidently meant the column.
     */
    private void keywordsForColumns() {
        for (QueryScope scope : query.scopes()) {
            for (String keyword : scope.keywordValues()) {
                for (QueryScope s = scope; s != null; s = s.parent()) {
                    Optional<Source> holder = s.sources().stream().filter(src -> columns(src).names().contains(keyword)).findFirst();
                    if (holder.isEmpty()) continue;
                    String quoted = query.dialect().quote(keyword);
                    add(ErrorCategory.COLUMN_NOT_FOUND, "unquoted, " + keyword + " is not the column " + keyword + " of "
                            + describe(holder.get()) + " but a keyword " + query.dialect().displayName() + " reads as a value (the session's "
                            + (keyword.contains("date") || keyword.contains("time") ? "date or time" : "user or schema")
                            + ") for every row; write the column quoted: " + quoted, keyword, List.of(quoted));
                    break;
                }
            }
        }
    }

    /** {@code Album.Title} where {@code FROM "Album"} has no alias: the qualifier is read as {@code album}, not found. */
    private void qualifierSpelling(QueryScope scope, ObjectName ref, TableSchema table) {
        String qualifier = ref.exact().getFirst();
        for (QueryScope s = scope; s != null; s = s.parent()) {
            for (Source src : s.sources()) {
                if (src.alias() != null || src.table() == null || !src.table().last().equals(ref.parts().getFirst())) continue;
                String exposed = src.table().exact().getLast();
                if (!exposed.equals(qualifier) && exposed.equals(table.spelling().name())) {
                    add(ErrorCategory.COLUMN_NOT_FOUND, "no table named " + asRead(List.of(qualifier)) + " for column " + ref.text()
                            + ": " + query.dialect().displayName() + " reads an unquoted name in lower case; the table is "
                            + spelled(exposed) + " (write it exactly so, or give it an alias)", ref.parts().getFirst(), List.of(spelled(exposed)));
                }
                return;
            }
        }
    }

    /** A name as the engine reads it, in its error messages' form ({@code "album"}). */
    private String asRead(List<String> exact) {
        return String.join(".", exact.stream().map(query.dialect()::quote).toList());
    }

    /** A stored name as a query must write it: bare when the engine reads it back so, else quoted. */
    private String spelled(String stored) {
        return Identifiers.written(stored, query.dialect().quotedNamesKeepCase(), query.dialect()::quote);
    }

    /**
     * Every function must exist in the engine (its live list, when loaded) and be on the dialect's allow-list or the
     * datasource's additions ({@link FunctionPolicy}); near names come from what is both.
     */
    private void functions() {
        Set<String> known = catalog.functions();
        Set<String> listed = FunctionPolicy.listedNames(query.dialect());
        for (String f : query.functions()) {
            boolean engineHas = known.isEmpty() || known.contains(f) || SYNTAX_FUNCTIONS.contains(f);
            boolean allowed = extraFunctions.contains(f) || FunctionPolicy.listed(query.dialect(), f);
            if (engineHas && allowed) continue;
            Set<String> near = new java.util.TreeSet<>(listed);
            if (!known.isEmpty()) near.retainAll(known);
            near.addAll(extraFunctions);
            String equivalent = ForeignConstructs.equivalent(query.dialect(), f);
            if (equivalent != null) {
                // another dialect's function: name what this one writes instead, the evidence a repair needs
                String head = equivalent.contains("(") ? equivalent.substring(0, equivalent.indexOf('(')).strip() : equivalent;
                add(ErrorCategory.UNSUPPORTED_FUNCTION, "function " + f + "() is not " + query.dialect().displayName()
                        + "'s (it is another engine's): " + query.dialect().displayName() + " writes " + equivalent, f,
                        head.matches("[A-Za-z_][A-Za-z0-9_]*") ? List.of(head) : List.of());
                continue;
            }
            add(ErrorCategory.UNSUPPORTED_FUNCTION, engineHas ? FunctionPolicy.unlistedReason(query.dialect(), f)
                    : "function " + f + "() does not exist in " + query.dialect().displayName(), f, NearNames.of(f, near));
        }
    }

    private void column(QueryScope scope, ObjectName ref) {
        if (ref.size() == 1) {
            unqualified(scope, ref.last(), ref);
            return;
        }
        for (int k = Math.min(3, ref.size() - 1); k >= 1; k--) {
            List<String> qualifier = ref.parts().subList(0, k);
            String col = ref.parts().get(k);
            for (QueryScope s = scope; s != null; s = s.parent()) {
                for (Source src : s.sources()) {
                    if (!qualifies(src, qualifier)) continue;
                    Columns cols = columns(src);
                    if (cols.names().contains(col) || !cols.complete()) return;
                    add(ErrorCategory.COLUMN_NOT_FOUND, "column " + col + " does not exist in " + describe(src),
                            ref.text(), NearNames.of(col, cols.names()));
                    return;
                }
            }
        }
        // Not a known qualifier: maybe a struct field of a column (s.field), else an unknown alias.
        if (resolvesUnqualified(scope, ref.parts().getFirst()) || anyUnknown(scope)) return;
        List<String> aliases = scope.sources().stream().map(Source::exposedName).filter(n -> n != null).toList();
        add(ErrorCategory.COLUMN_NOT_FOUND, "no table or alias named " + ref.parts().getFirst() + " for column " + ref.text(),
                ref.text(), NearNames.of(ref.parts().getFirst(), aliases));
    }

    private void unqualified(QueryScope scope, String name, ObjectName ref) {
        if (resolvesUnqualified(scope, name) || anyUnknown(scope)) return;
        Set<String> pool = new LinkedHashSet<>();
        for (Source src : scope.sources()) pool.addAll(columns(src).names());
        String where = scope.sources().isEmpty() ? "(no FROM clause)"
                : String.join(", ", scope.sources().stream().map(this::describe).toList());
        add(ErrorCategory.COLUMN_NOT_FOUND, "column " + name + " does not exist in " + where, ref.text(), NearNames.of(name, pool));
    }

    private boolean resolvesUnqualified(QueryScope scope, String name) {
        for (QueryScope s = scope; s != null; s = s.parent()) {
            if (s.usingColumns().contains(name)) return true;
            for (Source src : s.sources()) if (columns(src).names().contains(name)) return true;
        }
        // Output aliases are visible in ORDER BY, GROUP BY, HAVING and QUALIFY of the same block.
        return scope.outputs().stream().anyMatch(o -> o.aliased() && name.equals(o.name()));
    }

    private boolean anyUnknown(QueryScope scope) {
        for (QueryScope s = scope; s != null; s = s.parent()) {
            if (s.lenient()) return true;
            for (Source src : s.sources()) if (!columns(src).complete()) return true;
        }
        return false;
    }

    private static boolean qualifies(Source src, List<String> qualifier) {
        if (qualifier.size() == 1) {
            String q = qualifier.getFirst();
            return q.equals(src.exposedName()) || src.table() != null && q.equals(src.table().last());
        }
        if (src.table() == null || src.table().size() < qualifier.size()) return false;
        List<String> tp = src.table().parts();
        return tp.subList(tp.size() - qualifier.size(), tp.size()).equals(qualifier);
    }

    Columns columns(Source src) {
        Columns base;
        if (src.table() != null) {
            Optional<TableSchema> t = catalog.resolve(src.table());
            base = t.map(ts -> new Columns(ts.columns().keySet(), true)).orElse(Columns.UNKNOWN);
        } else if (src.derived() != null) {
            base = outputs(src.derived());
        } else {
            base = Columns.UNKNOWN;
        }
        if (!src.columnAliases().isEmpty()) return new Columns(new LinkedHashSet<>(src.columnAliases()), true);
        return base;
    }

    private Columns outputs(QueryScope scope) {
        Columns memo = outputsMemo.get(scope);
        if (memo != null) return memo;
        outputsMemo.put(scope, Columns.UNKNOWN);
        Set<String> names = new LinkedHashSet<>();
        boolean complete = !scope.lenient();
        for (OutputItem o : scope.outputs()) {
            if (o.star()) {
                for (Source src : scope.sources()) {
                    if (o.starQualifier() != null && !o.starQualifier().equals(src.exposedName())
                            && !(src.table() != null && o.starQualifier().equals(src.table().last()))) continue;
                    Columns c = columns(src);
                    names.addAll(c.names());
                    complete &= c.complete();
                }
            } else if (o.name() != null) {
                names.add(o.name());
            } else {
                complete = false;
            }
        }
        Columns result = new Columns(names, complete);
        outputsMemo.put(scope, result);
        return result;
    }

    /**
     * String literals compared with an indexed column. The index holds every distinct value of the column (the
     * loader drops a column with more values than it may keep), so a literal outside it selects no rows. That is an
     * error only when the literal is one of the values spelt in another case or spacing ('sunday' for 'Sunday') or
     * one letter from exactly one of them ('book' for 'books'): then the query is evidently wrong. Any other absent literal is a hint: a question may rightly ask about a value
     * the data does not hold (an empty answer is an answer), and the index may be older than the data.
     */
    private void values() {
        for (ParsedQuery.ValueFilter f : query.filters()) {
            Optional<TableColumn> col = baseColumn(f.scope(), f.column());
            if (col.isEmpty()) continue;
            Optional<List<String>> known = catalog.values(col.get().table(), col.get().column());
            if (known.isEmpty()) continue;
            for (String v : f.values()) {
                if (known.get().contains(v)) continue;
                String where = col.get().table().qualifiedName() + "." + col.get().column();
                List<String> sameLetters = known.get().stream().filter(k -> squash(k).equals(squash(v))).toList();
                List<String> oneSlip = sameLetters.isEmpty() ? oneSlipFrom(v, known.get()) : List.of();
                if (!sameLetters.isEmpty()) {
                    add(ErrorCategory.CONSTRAINT_VIOLATION, "value '" + v + "' never occurs in " + where + "; it holds '"
                            + sameLetters.getFirst() + "' (values are compared exactly)", v, sameLetters);
                } else if (oneSlip.size() == 1) {
                    add(ErrorCategory.CONSTRAINT_VIOLATION, "value '" + v + "' never occurs in " + where + "; it holds '"
                            + oneSlip.getFirst() + "', one letter apart", v, oneSlip);
                } else if (reported.add("hint|" + v)) {
                    issues.add(new Issue(STAGE, ErrorCategory.CONSTRAINT_VIOLATION, "value '" + v + "' never occurs in " + where
                            + " (known values: " + preview(known.get()) + ")", v, NearNames.of(v, known.get()), true));
                }
            }
        }
    }

    /**
     * The known values one edit from {@code v} (a typo or a plural: 'book' for 'books', 'shiped' for 'shipped'), for
     * literals of four or more letters; exactly one such value makes the literal an evident slip rather than a value
     * the data may lack.
     */
    private static List<String> oneSlipFrom(String v, List<String> known) {
        String s = squash(v);
        if (s.length() < 4) return List.of();
        // squashing only shortens: a value already two shorter than the literal cannot be one edit away
        return known.stream().filter(k -> k.length() >= s.length() - 1 && Typos.distanceAtMost(s, squash(k), 1) == 1).toList();
    }

    private static String squash(String s) {
        return Whitespace.oneLine(s).toLowerCase(java.util.Locale.ROOT);
    }

    private record TableColumn(TableSchema table, String column) {}

    /** The base-table column a filter's column designates, when it designates one directly. */
    private Optional<TableColumn> baseColumn(QueryScope scope, ObjectName ref) {
        String col = ref.last();
        List<String> qualifier = ref.size() > 1 ? ref.parts().subList(0, ref.size() - 1) : null;
        for (QueryScope s = scope; s != null; s = s.parent()) {
            List<Source> candidates = s.sources().stream()
                    .filter(src -> qualifier == null ? columns(src).names().contains(col) : qualifies(src, qualifier)).toList();
            if (candidates.size() == 1 && candidates.getFirst().table() != null && candidates.getFirst().columnAliases().isEmpty()) {
                return catalog.resolve(candidates.getFirst().table()).filter(t -> t.columns().containsKey(col))
                        .map(t -> new TableColumn(t, col));
            }
            if (!candidates.isEmpty()) return Optional.empty();
        }
        return Optional.empty();
    }

    private static String preview(List<String> values) {
        List<String> head = values.stream().limit(10).map(v -> "'" + v + "'").toList();
        return String.join(", ", head) + (values.size() > 10 ? ", …" : "");
    }

    private String describe(Source src) {
        if (src.table() != null) {
            return catalog.resolve(src.table()).map(TableSchema::qualifiedName).orElse(src.table().text())
                    + (src.alias() != null ? " (alias " + src.alias() + ")" : "");
        }
        return src.alias() != null ? src.alias() : "a subquery";
    }

    private void add(ErrorCategory category, String message, String identifier, List<String> candidates) {
        if (reported.add(category + "|" + identifier)) issues.add(new Issue(STAGE, category, message, identifier, candidates));
    }
}
