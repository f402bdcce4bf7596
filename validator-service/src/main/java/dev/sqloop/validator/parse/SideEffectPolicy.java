package dev.sqloop.validator.parse;

import dev.sqloop.common.Dialect;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Read-only syntax can still touch files, sequences, other servers or the clock: this policy rejects such
 * functions (a deny-list by name and prefix), table-valued functions other than a small allow-list of
 * row generators, and file paths used as tables ({@code parquet.`/data/x`}, {@code FROM "x.csv"}).
 */
public final class SideEffectPolicy {

    private static final Set<String> DENIED = Set.of(
            "glob", "nextval", "setval", "currval", "lastval", "sleep", "query", "query_table", "set_config",
            "lo_import", "lo_export", "lo_unlink", "lo_create", "lo_open", "lo_get", "lo_put", "lo_from_bytea",
            "parquet_scan", "parquet_metadata", "parquet_schema", "csv_scan", "json_scan", "iceberg_scan",
            "delta_scan", "load_extension", "reflect", "java_method", "reflect2", "assert_true", "raise_error",
            "txid_current", "pg_notify", "copy", "system", "shell", "getenv", "http_get", "http_post");
    private static final List<String> DENIED_PREFIXES = List.of(
            "read_", "pg_read_", "pg_sleep", "pg_ls_", "pg_stat_file", "pg_file_", "pg_terminate", "pg_cancel",
            "pg_reload", "pg_rotate", "pg_advisory", "pg_try_advisory", "pg_create_", "pg_drop_", "pg_switch",
            "pg_promote", "pg_logical", "pg_replication", "dblink", "sqlite_", "postgres_", "mysql_", "http_");
    /** Table functions that only generate rows from their arguments. */
    private static final Set<String> ROW_GENERATORS = Set.of(
            "unnest", "generate_series", "range", "generate_subscripts", "sequence", "exclude_columns",
            "explode", "explode_outer", "posexplode", "posexplode_outer", "inline", "inline_outer", "stack",
            "json_tuple", "parse_url_tuple", "json_each", "json_each_text", "jsonb_each", "jsonb_each_text",
            "json_array_elements", "json_array_elements_text", "jsonb_array_elements", "jsonb_array_elements_text");
    /** Spark/Hive file data sources used as schema names: {@code parquet.`/path`}. */
    private static final Set<String> FILE_FORMATS = Set.of(
            "parquet", "csv", "json", "orc", "text", "avro", "delta", "binaryfile", "jdbc", "hive", "iceberg", "file");
    private static final Pattern FILE_LIKE = Pattern.compile(
            ".*([/\\\\:~]|\\.(csv|tsv|parquet|json|jsonl|ndjson|txt|orc|avro|xlsx|db|sqlite|duckdb)(\\.gz|\\.zst)?$).*");

    private SideEffectPolicy() {}

    public static void check(ParsedQuery q) throws SqlRejection {
        for (String f : q.functions()) {
            if (isDenied(f)) {
                throw SqlRejection.readOnly("function " + f + "() has side effects or reads outside the warehouse", f);
            }
        }
        for (ObjectName tf : q.tableFunctions()) {
            if (!ROW_GENERATORS.contains(tf.last()) || isDenied(tf.last()) || "system".equals(tf.parts().getFirst())
                    && tf.size() > 1) {
                throw SqlRejection.readOnly("table function " + tf.text() + "() is not allowed in a read-only query"
                        + " (only row generators such as UNNEST are)", tf.text());
            }
        }
        for (ObjectName t : q.tables()) {
            if (t.parts().getFirst().startsWith("'")) {
                throw SqlRejection.readOnly("string literal used as a table: DuckDB reads it as a file", t.text());
            }
            for (String part : t.parts()) {
                if (FILE_LIKE.matcher(part).matches()) {
                    throw SqlRejection.readOnly("file path used as a table: " + t.text(), t.text());
                }
            }
            if (t.size() == 2 && FILE_FORMATS.contains(t.parts().getFirst())
                    && (q.dialect() == Dialect.SPARKSQL || q.dialect() == Dialect.HIVE)) {
                throw SqlRejection.readOnly("file data source used as a table: " + t.text(), t.text());
            }
        }
    }

    public static boolean isDenied(String function) {
        if (DENIED.contains(function)) return true;
        for (String p : DENIED_PREFIXES) {
            if (function.startsWith(p)) return true;
        }
        return false;
    }
}
