package dev.sqloop.validator;

import dev.sqloop.validator.schema.InMemorySchemaCatalog;
import dev.sqloop.validator.schema.SchemaCatalog;
import dev.sqloop.validator.schema.TableSchema;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A small hand-built shop schema for unit tests of pure checking logic. */
public final class SampleCatalog {
    public static final TableSchema ORDERS = new TableSchema(null, "main", "orders", columns(
            "id", "integer", "customer_id", "integer", "status", "varchar", "amount", "double", "order_date", "date",
            "tags", "varchar[]"));
    public static final TableSchema CUSTOMERS = new TableSchema(null, "main", "customers", columns(
            "id", "integer", "name", "varchar", "country", "varchar"));

    private SampleCatalog() {}

    public static SchemaCatalog create() {
        return InMemorySchemaCatalog.builder()
                .table(ORDERS).table(CUSTOMERS)
                .functions(List.of("count", "sum", "avg", "min", "max", "upper", "lower", "row_number", "date_trunc",
                        "string_agg", "unnest", "transform", "approx_distinct", "concat", "explode", "collect_list",
                        "concat_ws", "date_format", "regexp_replace", "list_transform", "try_cast"))
                .values(ORDERS, "status", List.of("shipped", "pending", "cancelled"))
                .values(CUSTOMERS, "country", List.of("FR", "DE", "US"))
                .defaultSchema("main")
                .build();
    }

    private static Map<String, String> columns(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) m.put(kv[i], kv[i + 1]);
        return m;
    }
}
