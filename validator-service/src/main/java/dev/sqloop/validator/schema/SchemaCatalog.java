package dev.sqloop.validator.schema;

import dev.sqloop.parse.ObjectName;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What the validator knows about a datasource: its (allowed) tables with columns and types, the functions
 * its engine offers, and the distinct values of low-cardinality text columns (the value index).
 */
public interface SchemaCatalog {

    List<TableSchema> tables();

    /** Function names known to the engine, lower-cased; empty when unknown (then functions are not checked). */
    Set<String> functions();

    /** Every distinct value of a low-cardinality text column, or empty when the column is not indexed. */
    Optional<List<String>> values(TableSchema table, String column);

    /**
     * The table a name as written designates. An unqualified name shared by several schemas resolves to the
     * one in {@code defaultSchema()} when there is one, else to the first loaded.
     */
    default Optional<TableSchema> resolve(ObjectName written) {
        List<TableSchema> matches = tables().stream().filter(t -> t.matches(written)).toList();
        if (matches.size() <= 1) return matches.stream().findFirst();
        return matches.stream().filter(t -> t.schema() != null && t.schema().equals(defaultSchema()))
                .findFirst().or(() -> matches.stream().findFirst());
    }

    /** The schema unqualified names are looked up in first, or null. */
    default String defaultSchema() {
        return null;
    }
}
