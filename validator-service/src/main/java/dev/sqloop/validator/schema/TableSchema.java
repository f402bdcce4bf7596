package dev.sqloop.validator.schema;

import dev.sqloop.parse.ObjectName;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One table or view of a datasource: where it lives and its columns with their engine types, in order.
 * Names are lower-cased: engines here resolve unquoted names case-insensitively.
 *
 * @param catalog null where the engine has no catalog level (Hive, Spark, single-database Postgres)
 * @param spelling the names as the engine stores them, case kept (null: as given to the constructor)
 */
public record TableSchema(String catalog, String schema, String name, Map<String, String> columns, Spelling spelling) {

    /**
     * The schema, table and column names as the engine stores them: what the loader's own queries must name, and what a
     * query must spell where quoted names keep their case (PostgreSQL's {@code "Album"} is not {@code album}).
     *
     * @param columns each column's stored name by its lower-cased one
     */
    public record Spelling(String schema, String name, Map<String, String> columns) {}

    public TableSchema(String catalog, String schema, String name, Map<String, String> columns) {
        this(catalog, schema, name, columns, null);
    }

    public TableSchema {
        if (spelling == null) {
            Map<String, String> exact = new LinkedHashMap<>();
            columns.keySet().forEach(k -> exact.put(lower(k), k));
            spelling = new Spelling(schema, name, java.util.Collections.unmodifiableMap(exact));
        }
        catalog = lower(catalog);
        schema = lower(schema);
        name = lower(name);
        Map<String, String> cols = new LinkedHashMap<>();
        columns.forEach((k, v) -> cols.put(lower(k), v));
        columns = java.util.Collections.unmodifiableMap(cols);
    }

    public String qualifiedName() {
        List<String> parts = new ArrayList<>();
        if (catalog != null) parts.add(catalog);
        if (schema != null) parts.add(schema);
        parts.add(name);
        return String.join(".", parts);
    }

    /** True when a name as written ({@code t}, {@code s.t}, {@code c.s.t}) designates this table. */
    public boolean matches(ObjectName written) {
        List<String> p = written.parts();
        return switch (p.size()) {
            case 1 -> p.get(0).equals(name);
            case 2 -> p.get(1).equals(name) && p.get(0).equals(schema);
            case 3 -> p.get(2).equals(name) && p.get(1).equals(schema) && (catalog == null || p.get(0).equals(catalog));
            default -> false;
        };
    }

    /** The stored name of a column, given in any case; null when the table has no such column. */
    public String storedColumn(String column) {
        return spelling.columns().get(lower(column));
    }

    /**
     * True when a name as written designates this table by its stored spelling as well ({@link ObjectName#exact()}):
     * where quoted names keep their case, {@code Album} designates {@code album} and not {@code "Album"}.
     */
    public boolean spelledAs(ObjectName written) {
        List<String> exact = written.exact();
        return exact.getLast().equals(spelling.name())
                && (exact.size() < 2 || exact.get(exact.size() - 2).equals(spelling.schema()));
    }

    private static String lower(String s) {
        return s == null ? null : s.toLowerCase(Locale.ROOT);
    }

    /** Collects columns in order while a loader reads them. */
    public static final class Builder {
        private final String catalog;
        private final String schema;
        private final String name;
        private final Map<String, String> columns = new LinkedHashMap<>();

        public Builder(String catalog, String schema, String name) {
            this.catalog = catalog;
            this.schema = schema;
            this.name = name;
        }

        public Builder column(String column, String type) {
            columns.put(column, type);
            return this;
        }

        public TableSchema build() {
            return new TableSchema(catalog, schema, name, columns);
        }
    }
}
