package dev.sqloop.chdb;

import java.util.List;

/**
 * One query's answer: column names and ClickHouse types, the rows (JSON-friendly Java values: Long, BigInteger,
 * Double, BigDecimal, String, Boolean, List, Map, null) and how many rows the engine read to produce them.
 */
public record ChdbResult(List<String> columns, List<String> types, List<List<Object>> rows, long rowsRead) {
    public ChdbResult {
        columns = List.copyOf(columns);
        types = List.copyOf(types);
        rows = List.copyOf(rows);
    }
}
