package dev.sqloop.fewshot.schema;

import java.util.List;

/**
 * The tables of a datasource with their columns, types, descriptions and a few sample values of low-cardinality
 * columns. An interface so the validator's JDBC schema catalog can stand behind it later.
 */
@FunctionalInterface
public interface SchemaSource {

    List<TableInfo> tables(String datasource) throws Exception;

    /**
     * @param name    the table's name as the catalog spells it ({@code schema.table} when it must be qualified): what
     *                linking matches words and join keys on
     * @param written the same as the query must write it (quoted where the engine needs it: a mixed-case PostgreSQL
     *                name, a reserved word, a space): what the prompt shows
     */
    record TableInfo(String name, String description, List<ColumnInfo> columns, String written) {
        public TableInfo {
            description = description == null ? "" : description;
            columns = List.copyOf(columns);
            written = written == null ? name : written;
        }

        public TableInfo(String name, String description, List<ColumnInfo> columns) {
            this(name, description, columns, name);
        }
    }

    /** @param written the column's name as a query must write it (see {@link TableInfo#written}) */
    record ColumnInfo(String name, String type, String description, List<String> sampleValues, String written) {
        public ColumnInfo {
            description = description == null ? "" : description;
            sampleValues = sampleValues == null ? List.of() : List.copyOf(sampleValues);
            written = written == null ? name : written;
        }

        public ColumnInfo(String name, String type, String description, List<String> sampleValues) {
            this(name, type, description, sampleValues, name);
        }
    }
}
