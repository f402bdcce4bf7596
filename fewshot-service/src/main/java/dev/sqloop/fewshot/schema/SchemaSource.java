package dev.sqloop.fewshot.schema;

import java.util.List;

/**
 * The tables of a datasource with their columns, types, descriptions and a few sample values of low-cardinality
 * columns. An interface so the validator's JDBC schema catalog can stand behind it later.
 */
@FunctionalInterface
public interface SchemaSource {

    List<TableInfo> tables(String datasource) throws Exception;

    record TableInfo(String name, String description, List<ColumnInfo> columns) {
        public TableInfo {
            description = description == null ? "" : description;
            columns = List.copyOf(columns);
        }
    }

    record ColumnInfo(String name, String type, String description, List<String> sampleValues) {
        public ColumnInfo {
            description = description == null ? "" : description;
            sampleValues = sampleValues == null ? List.of() : List.copyOf(sampleValues);
        }
    }
}
