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
    /** Whether a bare table name resolves in the default schema only (every engine but PostgreSQL's search path). */
    private final boolean bareNamesInDefaultOnly;
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
        this.bareNamesInDefaultOnly = b.bareNamesInDefaultOnly;
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
        List<TableSchema> matches = byName.getOrDefault(written.last(), List.of()).stream().filter(t -> t.matches(written)).toList();
        if (bareNamesInDefaultOnly && defaultSchema != null && written.size() == 1) {
            // DuckDB, Trino, Hive and Spark look a bare name up in the session's schema only: one of another schema is
            // "not found" there, whatever the catalog holds
            return matches.stream().filter(t -> t.schema() == null || t.schema().equals(defaultSchema)).findFirst();
        }
        if (matches.size() <= 1) return matches.stream().findFirst();
        return matches.stream().filter(t -> t.schema() != null && t.schema().equals(defaultSchema))
                .findFirst().or(() -> matches.stream().findFirst());
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
        return table.qualifiedName() + "#" + column.toLowerCase(Locale.ROOT);
    }

    /** Collects tables, functions and indexed values. */
    public static final class Builder {
        private final List<TableSchema> tables = new ArrayList<>();
        private final Set<String> functions = new LinkedHashSet<>();
        private final Map<String, List<String>> values = new HashMap<>();
        private String defaultSchema;
        private boolean bareNamesInDefaultOnly;

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
         * A bare table name resolves in the default schema only, as the engine's session does (DuckDB, Trino, Presto,
         * Hive, Spark); without it, a bare name unique in the catalog resolves wherever it is (PostgreSQL's search path
         * may list several schemas).
         */
        public Builder bareNamesInDefaultSchemaOnly(boolean value) {
            this.bareNamesInDefaultOnly = value;
            return this;
        }

        public InMemorySchemaCatalog build() {
            return new InMemorySchemaCatalog(this);
        }
    }
}
