package dev.sqloop.common.message;

import java.util.List;

/** What running the SQL returned: column names and types, row count (up to the limit) and a bounded preview. */
public record Execution(List<String> columns, List<String> types, long rowCount, List<List<Object>> preview, long durationMillis) {
    public Execution {
        columns = columns == null ? List.of() : List.copyOf(columns);
        types = types == null ? List.of() : List.copyOf(types);
        preview = preview == null ? List.of() : preview;
    }
}
