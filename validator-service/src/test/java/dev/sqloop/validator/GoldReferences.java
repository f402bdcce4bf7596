package dev.sqloop.validator;

import dev.sqloop.parse.ObjectName;
import dev.sqloop.parse.ParsedQuery;
import dev.sqloop.parse.QueryScope;
import dev.sqloop.validator.schema.SchemaCatalog;
import dev.sqloop.validator.schema.TableSchema;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The base tables and {@code table.column}s a query references, read from its parse tree and resolved against a
 * catalog (through aliases, and unqualified names to the table in scope that holds them): what a prompt's schema
 * section must hold for a model to write that query.
 */
record GoldReferences(Set<String> tables, Set<String> columns) {

    static GoldReferences of(ParsedQuery parsed, SchemaCatalog catalog) {
        Set<String> tables = new TreeSet<>();
        Set<String> columns = new TreeSet<>();
        for (ObjectName t : parsed.tables()) catalog.resolve(t).ifPresent(ts -> tables.add(ts.name()));
        for (QueryScope scope : parsed.scopes()) {
            for (ObjectName ref : scope.columnRefs()) resolve(scope, ref, catalog).ifPresent(columns::add);
        }
        return new GoldReferences(tables, columns);
    }

    private static Optional<String> resolve(QueryScope scope, ObjectName ref, SchemaCatalog catalog) {
        String col = ref.last();
        String qualifier = ref.size() > 1 ? ref.parts().get(ref.size() - 2) : null;
        for (QueryScope s = scope; s != null; s = s.parent()) {
            for (QueryScope.Source src : s.sources()) {
                if (src.table() == null) continue;
                if (qualifier != null && !qualifier.equals(src.exposedName()) && !qualifier.equals(src.table().last())) continue;
                Optional<TableSchema> t = catalog.resolve(src.table());
                if (t.isPresent() && t.get().columns().containsKey(col)) return Optional.of(t.get().name() + "." + col);
            }
        }
        return Optional.empty();
    }

    /** The references a linked schema (table name → its column names) misses. */
    List<String> missing(java.util.Map<String, Set<String>> linked) {
        List<String> out = new java.util.ArrayList<>();
        for (String t : tables) if (!linked.containsKey(t)) out.add(t);
        for (String c : columns) {
            String t = c.substring(0, c.indexOf('.'));
            if (linked.containsKey(t) && !linked.get(t).contains(c.substring(c.indexOf('.') + 1))) out.add(c);
        }
        return out;
    }
}
