package dev.sqloop.common.message;

import java.util.List;

/** The part of the datasource's schema linked to a question, computed once and reused by every attempt. */
public record LinkedSchema(List<Table> tables) {
    public LinkedSchema {
        tables = tables == null ? List.of() : List.copyOf(tables);
    }

    public record Table(String name, String description, List<Column> columns) {
        public Table {
            columns = columns == null ? List.of() : List.copyOf(columns);
        }
    }

    public record Column(String name, String type, String description, List<String> sampleValues) {
        public Column {
            sampleValues = sampleValues == null ? List.of() : List.copyOf(sampleValues);
        }
    }
}
