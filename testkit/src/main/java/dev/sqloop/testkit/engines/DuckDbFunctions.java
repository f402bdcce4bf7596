package dev.sqloop.testkit.engines;

import dev.sqloop.testkit.engines.FunctionRules.Classified;
import dev.sqloop.testkit.engines.FunctionRules.Verdict;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * DuckDB's catalog ({@code duckdb_functions()}: type, stability, side effects, macro definitions) and how it is
 * classified. Rules: pragmas are statements, not callable in a query (left out); operators are not names a parser
 * records (left out); {@code __internal…} functions, functions with side effects or volatile ones, functions whose
 * result is fixed per query from the session ({@code CONSISTENT_WITHIN_QUERY}) and table functions are refused unless
 * decided below; a macro is refused when its definition calls a refused function; everything else computes from its
 * arguments.
 */
final class DuckDbFunctions {
    private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]*");
    private static final Pattern CALL = Pattern.compile("\"?([A-Za-z_][A-Za-z0-9_]*)\"?\\s*\\(");

    /**
     * Refused for what a caller passes them, not for what they do: list_sum(l) is list_aggr(l, 'sum'), an aggregate named by
     * the macro itself, so a macro calling it is not refused for that call.
     */
    private static final java.util.Set<String> SAFE_IN_MACROS = java.util.Set.of("list_aggr");

    /**
     * Syntax JSqlParser records as a call that duckdb_functions() does not list (see FunctionRules.withSyntax): among them
     * date(x) and interval(x), which DuckDB reads as casts (seen: date(timestamp '2020-01-01 10:00') is 2020-01-01).
     */
    static final List<String> SYNTAX = List.of("coalesce", "grouping", "grouping_id", "array", "ifnull", "unnest", "columns", "try",
            "date", "interval");

    /** Decisions the rules cannot make, by name (every kind of it). */
    static final Map<String, Verdict> DECISIONS = FunctionRules.checked(Map.ofEntries(
            // volatile, but only randomness or the clock
            Map.entry("random", Verdict.pure("randomness")), Map.entry("uuid", Verdict.pure("randomness")),
            Map.entry("uuidv4", Verdict.pure("randomness")), Map.entry("uuidv7", Verdict.pure("randomness and the clock")),
            Map.entry("gen_random_uuid", Verdict.pure("randomness")),
            // raises its argument as an error: reads and writes nothing
            Map.entry("error", Verdict.pure("raises its argument as an error")),
            // fixed per query, from the clock or the session's time zone
            Map.entry("now", Verdict.pure("clock")), Map.entry("today", Verdict.pure("clock")),
            Map.entry("current_date", Verdict.pure("clock")), Map.entry("get_current_time", Verdict.pure("clock")),
            Map.entry("get_current_timestamp", Verdict.pure("clock")), Map.entry("transaction_timestamp", Verdict.pure("clock")),
            Map.entry("current_localtime", Verdict.pure("clock")), Map.entry("current_localtimestamp", Verdict.pure("clock")),
            Map.entry("ago", Verdict.pure("clock")),
            // seeds the session's random generator: state left in a pooled connection
            Map.entry("setseed", Verdict.refused("session")),
            // the session: its query text and ids, database, schemas, search path, user names (constant 'duckdb' today)
            Map.entry("current_query", Verdict.refused("session")), Map.entry("current_query_id", Verdict.refused("session")),
            Map.entry("current_connection_id", Verdict.refused("session")),
            Map.entry("current_transaction_id", Verdict.refused("session")),
            Map.entry("current_database", Verdict.refused("session")), Map.entry("current_schema", Verdict.refused("session")),
            Map.entry("current_schemas", Verdict.refused("session")), Map.entry("current_catalog", Verdict.refused("session")),
            Map.entry("in_search_path", Verdict.refused("session")), Map.entry("current_role", Verdict.refused("session")),
            Map.entry("session_user", Verdict.refused("session")), Map.entry("user", Verdict.refused("session")),
            // constants (NULL) here, but PostgreSQL's names for the client's address: kept with the server's
            Map.entry("inet_client_addr", Verdict.refused("session")), Map.entry("inet_client_port", Verdict.refused("session")),
            // the server: its version, its log
            Map.entry("version", Verdict.refused("server")), Map.entry("write_log", Verdict.refused("server")),
            // SQL given as text: json_serialize_plan binds it against the catalog (a table's existence and columns)
            Map.entry("json_serialize_plan", Verdict.refused("sql-text")), Map.entry("json_serialize_sql", Verdict.refused("sql-text")),
            Map.entry("json_deserialize_sql", Verdict.refused("sql-text")),
            // an aggregate function named as text
            Map.entry("aggregate", Verdict.refused("sql-text")), Map.entry("list_aggr", Verdict.refused("sql-text")),
            Map.entry("list_aggregate", Verdict.refused("sql-text")), Map.entry("array_aggr", Verdict.refused("sql-text")),
            Map.entry("array_aggregate", Verdict.refused("sql-text")), Map.entry("to_aggregate_state", Verdict.refused("sql-text")),
            // a table's index keys, the table named in a struct; a type by name; storage statistics and vector layout
            Map.entry("index_key", Verdict.refused("catalog")), Map.entry("make_type", Verdict.refused("catalog")),
            Map.entry("stats", Verdict.refused("internal")), Map.entry("vector_type", Verdict.refused("internal")),
            // aggregate states, sort keys and storage encodings: the engine's plumbing, no analyst writes them
            Map.entry("combine", Verdict.refused("internal")), Map.entry("finalize", Verdict.refused("internal")),
            Map.entry("constant_or_null", Verdict.refused("internal")),
            Map.entry("bitstring_byte_comparable", Verdict.refused("internal")),
            Map.entry("timetz_byte_comparable", Verdict.refused("internal")),
            Map.entry("variant_comparator", Verdict.refused("internal")),
            Map.entry("variant_bytes_to_variant", Verdict.refused("internal")),
            Map.entry("variant_to_parquet_variant", Verdict.refused("internal")),
            Map.entry("parse_duckdb_log_message", Verdict.refused("internal")),
            Map.entry("format_pg_type", Verdict.refused("internal")), Map.entry("map_to_pg_oid", Verdict.refused("internal")),
            Map.entry("json_copy_strftime_if_date", Verdict.refused("internal")),
            Map.entry("json_copy_strftime_if_timestamp", Verdict.refused("internal")),
            // pretty-printing indents every nesting level: output grows with the square of the input's depth
            Map.entry("json_pretty", Verdict.refused("unsure")),
            // sleeps; combines aggregate states (plumbing)
            Map.entry("sleep_ms", Verdict.refused("sleep")), Map.entry("combine_aggr", Verdict.refused("internal")),
            // table functions: the server's logs, profiling, checkpoints and registered resources
            Map.entry("enable_logging", Verdict.refused("server")), Map.entry("disable_logging", Verdict.refused("server")),
            Map.entry("truncate_duckdb_logs", Verdict.refused("server")), Map.entry("disable_profiling", Verdict.refused("session")),
            Map.entry("checkpoint", Verdict.refused("server")), Map.entry("create_external_resource", Verdict.refused("server")),
            Map.entry("destroy_external_resource", Verdict.refused("server")),
            Map.entry("register_external_resource", Verdict.refused("server")),
            Map.entry("register_external_resource_type", Verdict.refused("server")),
            Map.entry("deregister_external_resource", Verdict.refused("server")),
            // parquet files' metadata by path; Arrow streams and table scans by pointer; the test tables
            Map.entry("parquet_bloom_probe", Verdict.refused("file")), Map.entry("parquet_file_metadata", Verdict.refused("file")),
            Map.entry("parquet_full_metadata", Verdict.refused("file")), Map.entry("parquet_kv_metadata", Verdict.refused("file")),
            Map.entry("arrow_scan", Verdict.refused("internal")), Map.entry("arrow_scan_dumb", Verdict.refused("internal")),
            Map.entry("seq_scan", Verdict.refused("internal")), Map.entry("test_all_types", Verdict.refused("internal")),
            Map.entry("test_vector_types", Verdict.refused("internal")),
            // histogram(source, column, ...) names the table it reads as text
            Map.entry("histogram/table", Verdict.refused("catalog")), Map.entry("histogram_values", Verdict.refused("catalog")),
            // table functions that only generate rows from their arguments (summary, repeat_row and the rest stay refused)
            Map.entry("range", Verdict.sized("bounds")), Map.entry("generate_series", Verdict.sized("bounds")),
            Map.entry("repeat", Verdict.sized("count:2")), Map.entry("unnest", Verdict.pure()), Map.entry("json_each", Verdict.pure()), Map.entry("json_tree", Verdict.pure()),
            Map.entry("icu_calendar_names", Verdict.pure("the calendars ICU knows")),
            // sizes: DuckDB's own signatures (1-based argument indexes)
            Map.entry("bar", Verdict.sized("width:4")), Map.entry("to_base", Verdict.sized("width:3")),
            Map.entry("bitstring", Verdict.sized("width:2")), Map.entry("equi_width_bins", Verdict.sized("count:3")),
            Map.entry("lttb", Verdict.sized("count:3")), Map.entry("approx_top_k", Verdict.sized("count:2")),
            Map.entry("bin", Verdict.sized("grows:8")), Map.entry("to_binary", Verdict.sized("grows:8")),
            Map.entry("array_to_json", Verdict.sized("grows:6")), Map.entry("json_array", Verdict.sized("grows:6")),
            Map.entry("json_object", Verdict.sized("grows:6")), Map.entry("json_group_array", Verdict.sized("grows:6")),
            Map.entry("json_group_object", Verdict.sized("grows:6")),
            // the string's UTF-8 bytes as a BLOB: the same size
            Map.entry("encode", Verdict.pure("its argument's UTF-8 bytes")),
            // from_json/json_transform read type names in their structure argument: types, never relations
            Map.entry("from_json", Verdict.pure("names types, not relations")),
            Map.entry("from_json_strict", Verdict.pure("names types, not relations")),
            Map.entry("json_transform", Verdict.pure("names types, not relations")),
            Map.entry("json_transform_strict", Verdict.pure("names types, not relations")),
            // path strings are split and joined as text; no file is touched
            Map.entry("parse_path", Verdict.pure("text, no file access")), Map.entry("parse_dirname", Verdict.pure("text, no file access")),
            Map.entry("parse_dirpath", Verdict.pure("text, no file access")), Map.entry("parse_filename", Verdict.pure("text, no file access")),
            Map.entry("path_join", Verdict.pure("text, no file access")),
            Map.entry("hive_partition_component", Verdict.pure("text, no file access"))));

    private record Listed(String name, String kind, String type, String stability, boolean sideEffects, String macro) {}

    private DuckDbFunctions() {}

    static FunctionCatalogs.Generated generate(Connection c) throws SQLException {
        String version;
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT version()")) {
            rs.next();
            version = rs.getString(1);
        }
        List<Listed> listed = new ArrayList<>();
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(
                "SELECT function_name, function_type, stability, has_side_effects, macro_definition FROM duckdb_functions()"
                        + " WHERE function_type <> 'pragma'")) {
            while (rs.next()) {
                String name = FunctionRow.lower(rs.getString(1));
                if (!IDENTIFIER.matcher(name).matches()) continue; // operators: no parser records them as calls
                String type = rs.getString(2);
                String kind = switch (type) {
                    case "scalar", "macro" -> "scalar";
                    case "aggregate" -> "aggregate";
                    case "window" -> "window";
                    case "table", "table_macro" -> "table";
                    default -> throw new IllegalStateException("unknown DuckDB function type " + type + " of " + name);
                };
                listed.add(new Listed(name, kind, type, rs.getString(3), rs.getBoolean(4), rs.getString(5)));
            }
        }
        List<Classified> out = new ArrayList<>();
        Map<String, Verdict> refusedByName = new HashMap<>();
        for (Listed f : listed) {
            if (f.macro() != null) continue;
            Verdict v = FunctionRules.decide(f.name(), f.kind(), DECISIONS, byRules(f));
            out.add(new Classified(f.name(), f.kind(), v));
            if (v.isRefused()) refusedByName.putIfAbsent(f.name(), v);
        }
        // a macro is as safe as what it calls: pg_get_viewdef reads duckdb_views(), get_block_size pragma_database_size()
        for (Listed f : listed) {
            if (f.macro() == null) continue;
            Verdict v = FunctionRules.decide(f.name(), f.kind(), DECISIONS, byRules(f));
            if (!v.isRefused() && !DECISIONS.containsKey(f.name())) {
                Matcher m = CALL.matcher(f.macro());
                while (m.find()) {
                    if (SAFE_IN_MACROS.contains(FunctionRow.lower(m.group(1)))) continue;
                    Verdict called = refusedByName.get(FunctionRow.lower(m.group(1)));
                    if (called == null && FunctionRules.denied(FunctionRow.lower(m.group(1))).isPresent()) {
                        called = Verdict.refused(FunctionRules.denied(FunctionRow.lower(m.group(1))).get());
                    }
                    if (called != null) {
                        v = called;
                        break;
                    }
                }
            }
            out.add(new Classified(f.name(), f.kind(), v));
        }
        return new FunctionCatalogs.Generated("duckdb", "DuckDB " + version,
                "duckdb_functions() of an in-memory database, pragmas and operators left out (testkit DuckDbFunctions)",
                FunctionRules.withSyntax(FunctionRules.merge(out), SYNTAX), FunctionRules.mixedOverloads(out));
    }

    private static Verdict byRules(Listed f) {
        if (f.name().startsWith("__")) return Verdict.refused("internal");
        if ("table".equals(f.kind())) return Verdict.refused("unsure"); // files, catalogs, settings, logs: allowed only by decision
        if (f.sideEffects() || "VOLATILE".equals(f.stability())) return Verdict.refused("unsure");
        if ("CONSISTENT_WITHIN_QUERY".equals(f.stability())) return Verdict.refused("session");
        return Verdict.pure();
    }
}
