package dev.sqloop.validator.schema;

import dev.sqloop.parse.ObjectName;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** An immutable loaded catalog: what {@link JdbcSchemaCatalogLoader} produces and what tests build by hand. */
public final class InMemorySchemaCatalog implements SchemaCatalog {
    private final List<TableSchema> tables;
    private final Set<String> functions;
    private final Map<String, List<String>> values;
    private final String defaultSchema;
    /** The schemas a bare table name resolves in, first match wins; empty: wherever it is unique in the catalog. */
    private final List<String> searchPath;
    private final boolean bareNamesOutsideAllowList;
    /** Tables by their own (last-part) name: resolution is a map look-up, not a scan of the warehouse. */
    private final Map<String, List<TableSchema>> byName;

    private InMemorySchemaCatalog(Builder b) {
        this.tables = List.copyOf(b.tables);
        Map<String, List<TableSchema>> index = new HashMap<>();
        for (TableSchema t : tables) index.computeIfAbsent(t.name(), k -> new ArrayList<>()).add(t);
        this.byName = Map.copyOf(index);
        this.functions = Set.copyOf(b.functions);
        this.values = Map.copyOf(b.values);
        this.defaultSchema = b.defaultSchema;
        this.searchPath = List.copyOf(b.searchPath);
        this.bareNamesOutsideAllowList = b.bareNamesOutsideAllowList;
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public List<TableSchema> tables() {
        return tables;
    }

    @Override
    public Optional<TableSchema> resolve(ObjectName written) {
        List<TableSchema> matches = spelt(byName.getOrDefault(written.last(), List.of()).stream().filter(t -> t.matches(written)).toList(), written);
        // the session resolves bare names (partly) in schemas the allow-list leaves out: the executor refuses them
        if (bareNamesOutsideAllowList && written.size() == 1) return Optional.empty();
        if (!searchPath.isEmpty() && written.size() == 1) {
            // the engine looks a bare name up in the session's schema (PostgreSQL: the first schema of its search path
            // holding it): one of another schema is "not found" there, whatever the catalog holds
            for (String schema : searchPath) {
                Optional<TableSchema> found = matches.stream().filter(t -> schema.equals(t.schema())).findFirst();
                if (found.isPresent()) return found;
            }
            return matches.stream().filter(t -> t.schema() == null).findFirst();
        }
        if (matches.size() <= 1) return matches.stream().findFirst();
        return matches.stream().filter(t -> t.schema() != null && t.schema().equals(defaultSchema))
                .findFirst().or(() -> matches.stream().findFirst());
    }

    /** Of tables whose names differ in case only (PostgreSQL's {@code "Album"} beside {@code album}), those spelt as written. */
    private static List<TableSchema> spelt(List<TableSchema> matches, ObjectName written) {
        if (matches.size() < 2) return matches;
        List<TableSchema> spelt = matches.stream().filter(t -> t.spelledAs(written)).toList();
        return spelt.isEmpty() ? matches : spelt;
    }

    @Override
    public Set<String> functions() {
        return functions;
    }

    @Override
    public Optional<List<String>> values(TableSchema table, String column) {
        return Optional.ofNullable(values.get(key(table, column)));
    }

    @Override
    public String defaultSchema() {
        return defaultSchema;
    }

    private static String key(TableSchema table, String column) {
        // by the stored names: "Album" and album are two tables on PostgreSQL
        return table.catalog() + "." + table.spelling().schema() + "." + table.spelling().name() + "#" + column.toLowerCase(Locale.ROOT);
    }

    /** Collects tables, functions and indexed values. */
    public static final class Builder {
        private final List<TableSchema> tables = new ArrayList<>();
        private final Set<String> functions = new LinkedHashSet<>();
        private final Map<String, List<String>> values = new HashMap<>();
        private String defaultSchema;
        private List<String> searchPath = List.of();
        private boolean bareNamesOutsideAllowList;

        public Builder table(TableSchema table) {
            tables.add(table);
            return this;
        }

        public Builder table(String schema, String name, Map<String, String> columns) {
            return table(new TableSchema(null, schema, name, columns));
        }

        public Builder functions(java.util.Collection<String> names) {
            names.forEach(n -> functions.add(n.toLowerCase(Locale.ROOT)));
            return this;
        }

        public Builder values(TableSchema table, String column, List<String> distinctValues) {
            values.put(key(table, column), List.copyOf(distinctValues));
            return this;
        }

        public Builder defaultSchema(String schema) {
            this.defaultSchema = schema == null ? null : schema.toLowerCase(Locale.ROOT);
            return this;
        }

        /**
         * The schemas a bare table name resolves in, first match wins, as the engine's session does: the session's
         * schema (DuckDB, Trino, Presto, Hive, Spark) or PostgreSQL's search path. Unset, a bare name unique in the
         * catalog resolves wherever it is.
         */
        public Builder searchPath(List<String> schemas) {
            this.searchPath = schemas.stream().map(s -> s.toLowerCase(Locale.ROOT)).toList();
            return this;
        }

        /**
         * The session resolves bare names in a schema the allow-list leaves out (its search path reaches one): no bare
         * name resolves, as the executor refuses them; {@code schema.table} does.
         */
        public Builder bareNamesOutsideAllowList(boolean value) {
            this.bareNamesOutsideAllowList = value;
            return this;
        }

        public InMemorySchemaCatalog build() {
            return new InMemorySchemaCatalog(this);
        }
    }
}
