package dev.sqloop.parse;

import dev.sqloop.common.Dialect;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Read-only syntax can still touch files, sequences, other servers or the clock: this policy rejects such
 * functions (a deny-list by name and prefix, and PostgreSQL's {@code pg_} namespace, which reads the server's objects by
 * name or oid, but for its functions of their arguments alone), table-valued functions other than a small allow-list of
 * row generators, and file paths used as tables ({@code parquet.`/data/x`}, {@code FROM "x.csv"}).
 *
 * <p>A deny-list, not an allow-list (see PARSERS.md): the names are one union over all dialects, because a name
 * that reads a file or runs SQL text on one engine is never a legitimate analytic function on another. The
 * executor's guard applies the same list lexically ({@link #isDenied}), so the two cannot disagree.
 */
public final class SideEffectPolicy {

    private static final Set<String> DENIED = Set.of(
            "glob", "nextval", "setval", "currval", "lastval", "sleep", "query", "query_table", "set_config",
            "parquet_scan", "parquet_metadata", "parquet_schema", "csv_scan", "json_scan", "iceberg_scan",
            "delta_scan", "load_extension", "reflect", "java_method", "reflect2",
            "txid_current", "copy", "system", "shell", "getenv", "http_get", "http_post",
            // PostgreSQL: functions that run a query given as text (the allow-list never sees its tables)
            "query_to_xml", "query_to_xmlschema", "query_to_xml_and_xmlschema", "cursor_to_xml", "cursor_to_xmlschema",
            "ts_stat", "ts_rewrite", "current_setting", "txid_current_snapshot",
            // (PostgreSQL's pg_ functions — server files, sleeps, locks, backends, settings, catalog reads — below)
            // Hive / Spark: server files, splits or the schema of any query given as text, Java calls, server paths and OS users
            "in_file", "get_splits", "get_llap_splits", "get_sql_schema", "try_reflect", "input_file_name", "input_file_block_start",
            "input_file_block_length", "current_user", "logged_in_user", "current_groups", "current_authorizer",
            "from_protobuf", "to_protobuf", "from_avro", "to_avro", "compute_stats", "sq_count_check",
            // DuckDB: settings, secrets, files and other databases
            "sniff_csv", "getvariable", "which_secret", "json_execute_serialized_sql", "sql_auto_complete",
            "enable_profiling", "force_checkpoint",
            // ClickHouse: table functions that read files, URLs, object stores or other servers, run programs, take the
            // client's input, read tables by name (joinGet; merge() is a table function, refused as one) beyond the allow-list; settings and server
            // facts; sleeps (the lists are lower case: the checks lower-case every name)
            "url", "urlcluster", "file", "filecluster", "s3", "s3cluster", "gcs", "azureblobstorage", "azureblobstoragecluster",
            "hdfs", "hdfscluster", "remote", "remotesecure", "cluster", "clusterallreplicas", "mysql", "postgresql",
            "mongodb", "redis", "odbc", "jdbc", "sqlite", "executable", "executablepool", "input", "mergetreeindex",
            "mergetreeprojection", "dictionary", "joinget", "joingetornull", "getsetting", "getsettingordefault",
            "getmacro", "getclienthttpheader", "getserverport", "getserversetting", "hostname", "fqdn", "currentuser",
            "currentroles", "enabledroles", "defaultroles", "currentprofiles", "currentquerytid", "queryid",
            "initialqueryid", "initialquerystarttime", "uptime", "filesystemavailable", "filesystemcapacity",
            "filesystemunreserved", "sleepeachrow", "deltalake", "hudi", "iceberg", "icebergs3", "icebergazure",
            "icebergcluster", "icebergs3cluster", "icebergazurecluster", "iceberghdfs",
            "paimon", "loop", "viewifpermitted", "fuzzjson", "fuzzquery", "ytsaurus", "arrowflight", "prometheusquery",
            "timeseriesdata", "timeseriesmetrics", "timeseriestags", "timeseriesselector");
    private static final List<String> DENIED_PREFIXES = List.of(
            "read_", "dblink", "sqlite_", "postgres_", "mysql_", "http_",
            // every database_to_xml, schema_to_xml*, table_to_xml* (they read tables named as text)
            "database_to_xml", "schema_to_xml", "table_to_xml", "lo_", "duckdb_",
            "pragma_", "iceberg_", "delta_", "xpath",
            // ClickHouse dictionaries (dictGet, dictGetOrDefault, dictHas, dictIsIn, …): other tables and sources by name
            "dictget", "dicthas", "dictisin");
    /**
     * PostgreSQL's {@code pg_} functions describe the server and its objects by name or oid — a view's or function's
     * definition ({@code pg_get_viewdef}), a table's size or live-row count ({@code pg_relation_size}, {@code
     * pg_stat_get_live_tuples}), its partitions, sequences, settings, snapshots — so they read tables the allow-list
     * never sees; the whole namespace is refused but for these, which compute from their arguments alone.
     */
    private static final Set<String> PURE_PG = Set.of(
            "pg_typeof", "pg_size_pretty", "pg_size_bytes", "pg_column_size", "pg_input_is_valid", "pg_input_error_info");
    /** Catalog lookups outside the {@code pg_} namespace: an object's existence, privileges or comment by name or oid. */
    private static final Set<String> CATALOG_LOOKUPS = Set.of(
            "obj_description", "col_description", "shobj_description", "to_regclass", "to_regcollation",
            "to_regnamespace", "to_regoper", "to_regoperator", "to_regproc", "to_regprocedure", "to_regrole", "to_regtype",
            "to_regtypemod", "inet_server_addr", "inet_server_port");
    /**
     * PostgreSQL's object identifier types: {@code 'secrets'::regclass} looks a name up in the catalog (the error says
     * whether it exists) and {@code n::regclass} turns any number into the name of the object it identifies, so
     * {@code SELECT i::regclass FROM generate_series(16384, 20000) i} lists every relation of the database.
     */
    private static final Set<String> CATALOG_TYPES = Set.of(
            "regclass", "regcollation", "regconfig", "regdictionary", "regnamespace", "regoper", "regoperator", "regproc",
            "regprocedure", "regrole", "regtype");
    /**
     * PostgreSQL's built-in base, range and multirange types (and their SQL spellings): the only types a cast may name.
     * Every table is also a type there, so {@code NULL::secrets} or {@code CAST(NULL AS secrets)} reads a table's columns
     * outside the allow-list; object identifier types are refused above ({@link #CATALOG_TYPES}).
     */
    private static final Set<String> POSTGRES_TYPES = Set.of(
            "bool", "boolean", "bytea", "char", "character", "bpchar", "varchar", "text", "name", "int", "int2", "int4", "int8",
            "integer", "smallint", "bigint", "float", "float4", "float8", "real", "double", "numeric", "decimal", "dec", "money",
            "date", "time", "timetz", "timestamp", "timestamptz", "interval", "json", "jsonb", "jsonpath", "xml", "uuid", "inet",
            "cidr", "macaddr", "macaddr8", "bit", "varbit", "point", "line", "lseg", "box", "path", "polygon", "circle",
            "tsvector", "tsquery", "int4range", "int8range", "numrange", "tsrange", "tstzrange", "daterange",
            "int4multirange", "int8multirange", "nummultirange", "tsmultirange", "tstzmultirange", "datemultirange", "oid");
    private static final Set<String> TYPE_WORDS = Set.of("precision", "varying", "with", "without", "time", "zone");

    /** Table functions that only generate rows from their arguments. */
    private static final Set<String> ROW_GENERATORS = Set.of(
            "unnest", "generate_series", "range", "generate_subscripts", "sequence", "exclude_columns",
            "explode", "explode_outer", "posexplode", "posexplode_outer", "inline", "inline_outer", "stack",
            "json_tuple", "parse_url_tuple", "json_each", "json_each_text", "jsonb_each", "jsonb_each_text",
            "json_array_elements", "json_array_elements_text", "jsonb_array_elements", "jsonb_array_elements_text",
            // ClickHouse's row generators (bounded by the engine's max_rows_to_read and max_execution_time)
            "numbers", "numbers_mt", "zeros", "zeros_mt");
    /** Spark/Hive file data sources used as schema names: {@code parquet.`/path`}. */
    private static final Set<String> FILE_FORMATS = Set.of(
            "parquet", "csv", "json", "orc", "text", "avro", "delta", "binaryfile", "jdbc", "hive", "iceberg", "file");
    private static final Pattern FILE_LIKE = Pattern.compile(
            ".*([/\\\\:~]|\\.(csv|tsv|parquet|json|jsonl|ndjson|txt|orc|avro|xlsx|db|sqlite|duckdb)(\\.gz|\\.zst)?$).*");

    private SideEffectPolicy() {}

    public static void check(ParsedQuery q) throws SqlRejection {
        SqlRejection byCatalog = FunctionPolicy.refused(q);
        if (byCatalog != null) throw byCatalog;
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
            // ClickHouse's system database lists the server's settings, users, processes, queries and every table
            if (q.dialect() == Dialect.CLICKHOUSE && t.size() > 1
                    && java.util.Set.of("system", "information_schema").contains(t.parts().getFirst().toLowerCase(java.util.Locale.ROOT))) {
                throw SqlRejection.readOnly("ClickHouse's " + t.parts().getFirst() + " tables describe the server, not the warehouse: "
                        + t.text(), t.text());
            }
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

    /** Whether {@code name} is a Spark/Hive file data source usable as a schema ({@code csv.`/etc/passwd`}). */
    public static boolean isFileFormat(String name) {
        return FILE_FORMATS.contains(name);
    }

    /** Whether {@code type} (lower case, unqualified) is an object identifier type, which reads the catalog when cast to. */
    public static boolean isCatalogType(String type) {
        return CATALOG_TYPES.contains(type);
    }

    /**
     * Whether a cast to {@code type} (as written, any case, quotes, schema, length or array suffix) names a built-in type
     * of the dialect; only PostgreSQL lets a table's name be a type, so the others accept any.
     */
    public static boolean isBuiltInType(Dialect dialect, String type) {
        if (dialect != Dialect.POSTGRES) return true;
        String t = type.strip().toLowerCase(java.util.Locale.ROOT).replace("\"", "");
        int paren = t.indexOf('(');
        if (paren >= 0) t = t.substring(0, paren);
        t = t.replace("[]", " ").strip();
        if (t.startsWith("pg_catalog.")) t = t.substring("pg_catalog.".length());
        String[] words = t.split("\\s+");
        if (!POSTGRES_TYPES.contains(words[0])) return false;
        for (int i = 1; i < words.length; i++) if (!TYPE_WORDS.contains(words[i]) && !words[i].matches("\\d*")) return false;
        return true;
    }

    public static boolean isDenied(String function) {
        // regclass('secrets') is the cast written as a call
        if (DENIED.contains(function) || CATALOG_LOOKUPS.contains(function) || CATALOG_TYPES.contains(function)) return true;
        if (function.startsWith("pg_") && !PURE_PG.contains(function)) return true;
        // has_table_privilege, has_column_privilege, has_schema_privilege, …: what the role may do to any object
        if (function.startsWith("has_") && function.endsWith("_privilege")) return true;
        for (String p : DENIED_PREFIXES) {
            if (function.startsWith(p)) return true;
        }
        return false;
    }
}
