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

    /**
     * The rows with chDB's JSON values as the JDBC drivers give them, so that two results compare by value whatever
     * type each side chose: dates and timestamps as java.time, 64-bit integers and decimals (JSON strings) as numbers,
     * {@code nan} and {@code inf} as doubles.
     */
    public List<List<Object>> typedRows() {
        List<List<Object>> out = new java.util.ArrayList<>(rows.size());
        for (List<Object> row : rows) {
            List<Object> typed = new java.util.ArrayList<>(row.size());
            for (int i = 0; i < row.size(); i++) {
                Object v = row.get(i);
                String type = types.get(i).replaceAll("^(Nullable|LowCardinality)\\((.*)\\)$", "$2");
                if (v instanceof String text) {
                    if (type.startsWith("Date32") || type.equals("Date")) v = java.time.LocalDate.parse(text);
                    else if (type.startsWith("DateTime")) v = java.time.LocalDateTime.parse(text.replace(' ', 'T'));
                    else if (type.matches("U?Int(64|128|256)")) v = new java.math.BigInteger(text);
                    else if (type.startsWith("Decimal")) v = new java.math.BigDecimal(text);
                    else if (type.startsWith("Float") && text.matches("-?(nan|inf)")) v = text.contains("nan") ? Double.NaN
                            : text.startsWith("-") ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
                }
                typed.add(v);
            }
            out.add(typed);
        }
        return out;
    }
}
