package dev.sqloop.testkit.engines;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The classification rules every dialect shares: the families sql-parse's deny-list already refuses (kept refused
 * wherever a catalog has them), the size specs of the functions that build a value as large as an argument says, the
 * syntax the parsers record as calls, and how several overloads of one name become one row (the strictest wins).
 * Each engine's own rules and explicit decisions live beside its catalog reader ({@link DuckDbFunctions}, ...).
 */
final class FunctionRules {

    /** A class and its note: what a rule decides for one function. */
    record Verdict(String safety, String note) {
        static Verdict pure(String why) {
            return new Verdict(FunctionRow.PURE, why);
        }

        static Verdict pure() {
            return pure("");
        }

        static Verdict sized(String spec) {
            return new Verdict(FunctionRow.SIZED, spec);
        }

        static Verdict refused(String family) {
            return new Verdict(FunctionRow.REFUSED, family);
        }

        boolean isPure() {
            return FunctionRow.PURE.equals(safety);
        }

        boolean isRefused() {
            return FunctionRow.REFUSED.equals(safety);
        }

        FunctionRow row(String name, String kind) {
            return new FunctionRow(name, kind, safety, note);
        }
    }

    /** One overload (or one listing) of a function with the verdict for it, before overloads are merged. */
    record Classified(String name, String kind, Verdict verdict) {}

    // sql-parse's SideEffectPolicy, by family: kept refused in every catalog (FunctionCatalogTest in sql-parse checks the
    // files against the policy itself, so a name added there and not here fails a test)
    private static final Map<String, String> DENIED = families(Map.of(
            "sequence", "nextval setval currval lastval",
            "file", "glob parquet_scan parquet_metadata parquet_schema csv_scan json_scan iceberg_scan delta_scan copy in_file"
                    + " input_file_name input_file_block_start input_file_block_length sniff_csv from_protobuf to_protobuf"
                    + " from_avro to_avro",
            "sleep", "sleep",
            "sql-text", "query query_table query_to_xml query_to_xmlschema query_to_xml_and_xmlschema cursor_to_xml"
                    + " cursor_to_xmlschema ts_stat ts_rewrite get_sql_schema get_splits get_llap_splits"
                    + " json_execute_serialized_sql sql_auto_complete",
            "session", "set_config current_setting txid_current txid_current_snapshot current_user logged_in_user"
                    + " current_groups current_authorizer getvariable enable_profiling",
            "java", "reflect java_method reflect2 try_reflect",
            "server", "system shell load_extension force_checkpoint",
            "network", "http_get http_post",
            "secret", "getenv which_secret",
            "internal", "compute_stats sq_count_check"));
    private static final Map<String, String> DENIED_PREFIXES = families(Map.of(
            "file", "read_ sqlite_ lo_ iceberg_ delta_ xpath",
            "network", "dblink postgres_ mysql_ http_",
            "catalog", "database_to_xml schema_to_xml table_to_xml duckdb_ pragma_"));
    /** PostgreSQL's pg_ functions that compute from their arguments alone (SideEffectPolicy.PURE_PG). */
    static final Set<String> PURE_PG = Set.of(
            "pg_typeof", "pg_size_pretty", "pg_size_bytes", "pg_column_size", "pg_input_is_valid", "pg_input_error_info");
    private static final Map<String, String> PG_FAMILIES = families(Map.of(
            "sleep", "pg_sleep",
            "file", "pg_read_ pg_ls_ pg_stat_file pg_current_logfile pg_file",
            "session", "pg_advisory pg_try_advisory pg_notify pg_listening_channels pg_backend_pid pg_my_temp_schema"
                    + " pg_current_xact pg_current_snapshot pg_export_snapshot pg_xact_status pg_trigger_depth",
            "server", "pg_terminate pg_cancel pg_signal pg_reload_conf pg_rotate_logfile pg_backup pg_start_backup"
                    + " pg_stop_backup pg_switch_wal pg_promote pg_create pg_drop pg_replication pg_log_ pg_wal pg_walfile"
                    + " pg_logical pg_copy_ pg_postmaster pg_conf_load_time pg_is_in_recovery pg_control pg_get_wal"
                    + " pg_last_ pg_import_system pg_blocking pg_safe_snapshot pg_isolation"));
    /** Catalog lookups outside the pg_ namespace and PostgreSQL's object identifier types (SideEffectPolicy). */
    private static final Set<String> CATALOG_LOOKUPS = Set.of(
            "obj_description", "col_description", "shobj_description", "to_regclass", "to_regcollation",
            "to_regnamespace", "to_regoper", "to_regoperator", "to_regproc", "to_regprocedure", "to_regrole", "to_regtype",
            "to_regtypemod", "regclass", "regcollation", "regconfig", "regdictionary", "regnamespace", "regoper",
            "regoperator", "regproc", "regprocedure", "regrole", "regtype");
    private static final Set<String> SERVER_ADDRESS = Set.of("inet_server_addr", "inet_server_port");

    /**
     * Functions whose result is as large as an argument says, wherever an engine has them under these names (an engine
     * with another signature overrides in its own decisions). 1-based argument indexes.
     */
    static final Map<String, String> SIZES = Map.ofEntries(
            Map.entry("repeat", "count:2"), Map.entry("array_repeat", "count:2"), Map.entry("space", "count:1"),
            Map.entry("list_resize", "count:2"), Map.entry("array_resize", "count:2"), Map.entry("array_fill", "count:2"),
            Map.entry("lpad", "width:2"), Map.entry("rpad", "width:2"),
            Map.entry("range", "bounds"), Map.entry("sequence", "bounds"), Map.entry("generate_series", "bounds"),
            Map.entry("printf", "format:1"), Map.entry("format_string", "format:1"), Map.entry("format", "format:1"),
            Map.entry("replace", "replace:2,3"), Map.entry("regexp_replace", "replace:2,3"), Map.entry("overlay", "replace:1,2"),
            Map.entry("hex", "grows:2"), Map.entry("to_hex", "grows:2"), Map.entry("base64", "grows:2"),
            Map.entry("to_base64", "grows:2"), Map.entry("to_base64url", "grows:2"), Map.entry("to_base32", "grows:2"),
            Map.entry("quote", "grows:2"), Map.entry("quote_literal", "grows:2"), Map.entry("quote_ident", "grows:2"),
            Map.entry("quote_nullable", "grows:2"), Map.entry("url_encode", "grows:3"), Map.entry("regexp_escape", "grows:2"),
            // a JSON string escapes a control character as six (\u0001): text -> json -> text -> json grows each round
            Map.entry("to_json", "grows:6"), Map.entry("to_jsonb", "grows:6"), Map.entry("json_quote", "grows:6"),
            Map.entry("row_to_json", "grows:6"), Map.entry("array_to_json", "grows:6"));

    private FunctionRules() {}

    private static Map<String, String> families(Map<String, String> byFamily) {
        Map<String, String> out = new TreeMap<>();
        byFamily.forEach((family, names) -> {
            for (String n : names.split(" ")) out.put(n, family);
        });
        return out;
    }

    /** The family under which sql-parse's deny-list refuses {@code name}, if it does. */
    static Optional<String> denied(String name) {
        if (DENIED.containsKey(name)) return Optional.of(DENIED.get(name));
        if (SERVER_ADDRESS.contains(name)) return Optional.of("server");
        if (CATALOG_LOOKUPS.contains(name)) return Optional.of("catalog");
        if (name.startsWith("has_") && name.endsWith("_privilege")) return Optional.of("catalog");
        if (name.startsWith("pg_") && !PURE_PG.contains(name)) {
            for (Map.Entry<String, String> e : PG_FAMILIES.entrySet()) {
                if (name.startsWith(e.getKey())) return Optional.of(e.getValue());
            }
            return Optional.of("catalog");
        }
        for (Map.Entry<String, String> e : DENIED_PREFIXES.entrySet()) {
            if (name.startsWith(e.getKey())) return Optional.of(e.getValue());
        }
        return Optional.empty();
    }

    /**
     * The verdict for one function: the deny-list first (no decision can allow a denied name), then the engine's
     * explicit decision for the name and kind ({@code histogram/table}) or for the name, else its rules' verdict, made
     * {@code sized} where {@link #SIZES} knows the name.
     */
    static Verdict decide(String name, String kind, Map<String, Verdict> decisions, Verdict byRules) {
        Optional<String> family = denied(name);
        if (family.isPresent()) return Verdict.refused(family.get());
        Verdict explicit = decisions.getOrDefault(name + "/" + kind, decisions.get(name));
        if (explicit != null) return explicit;
        if (byRules.isPure() && SIZES.containsKey(name)) return Verdict.sized(SIZES.get(name));
        return byRules;
    }

    /** Explicit decisions that try to allow a denied name are a mistake in the table, not a choice. */
    static Map<String, Verdict> checked(Map<String, Verdict> decisions) {
        decisions.forEach((key, v) -> {
            String name = key.contains("/") ? key.substring(0, key.indexOf('/')) : key;
            if (denied(name).isPresent() && !v.isRefused()) {
                throw new IllegalStateException(name + " is on sql-parse's deny-list and cannot be decided " + v.safety());
            }
        });
        return decisions;
    }

    /**
     * One row per (name, kind): of several overloads the strictest (refused, then sized, then pure); among equally
     * strict ones the first. Sorted in file order.
     */
    static List<FunctionRow> merge(Collection<Classified> all) {
        Map<String, FunctionRow> byKey = new TreeMap<>();
        for (Classified c : all) {
            FunctionRow row = c.verdict().row(c.name(), c.kind());
            byKey.merge(c.name() + "\t" + c.kind(), row, (a, b) -> b.strictness() > a.strictness() ? b : a);
        }
        List<FunctionRow> rows = new ArrayList<>(byKey.values());
        rows.sort(FunctionRow.ORDER);
        return rows;
    }

    /**
     * The names whose overloads were classified differently (one refused, another pure), each with its verdicts: the
     * strictest wins, which may refuse a useful overload for a useless one, so a reviewer reads this list.
     */
    static List<String> mixedOverloads(Collection<Classified> all) {
        Map<String, java.util.Set<String>> verdicts = new TreeMap<>();
        for (Classified c : all) {
            verdicts.computeIfAbsent(c.name() + "/" + c.kind(), k -> new java.util.TreeSet<>())
                    .add(c.verdict().safety() + (c.verdict().note().isEmpty() ? "" : " " + c.verdict().note()));
        }
        List<String> out = new ArrayList<>();
        verdicts.forEach((k, v) -> {
            if (v.size() > 1) out.add(k + ": " + String.join(" | ", v));
        });
        return out;
    }

    /**
     * Rows for the syntax a dialect's parser records as a function call although the engine's catalog does not list it
     * ({@code coalesce(…)}, PostgreSQL's {@code greatest}, {@code ARRAY(SELECT …)}): pure, note {@code syntax}, added only
     * where no scalar, aggregate or window row of that name exists (a listed one keeps its own class).
     */
    static List<FunctionRow> withSyntax(List<FunctionRow> rows, Collection<String> syntax) {
        List<FunctionRow> out = new ArrayList<>(rows);
        for (String name : syntax) {
            boolean listed = rows.stream().anyMatch(r -> r.name().equals(name) && !"table".equals(r.kind()));
            if (!listed) out.add(new FunctionRow(name, "scalar", FunctionRow.PURE, "syntax"));
        }
        out.sort(FunctionRow.ORDER);
        return out;
    }
}
