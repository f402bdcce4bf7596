package dev.sqloop.testkit.engines;

import dev.sqloop.testkit.engines.FunctionRules.Classified;
import dev.sqloop.testkit.engines.FunctionRules.Verdict;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * PostgreSQL's catalog ({@code pg_proc} of a database that holds only the built-ins) and how it is classified, per
 * overload, the strictest overload giving the name's class. Rules, in order:
 * <ol>
 * <li>a pseudo-type argument or result ({@code internal}, {@code cstring}, {@code trigger}, handlers) or a type's own
 * I/O function ({@code textsend}), an aggregate's transition or final function, or anything outside {@code
 * pg_catalog} (information_schema's helpers): {@code internal};
 * <li>an object identifier argument or result ({@code oid}, {@code reg*}, {@code pg_node_tree}, statistics types):
 * {@code catalog}, unless the function implements an operator, a cast or an index support procedure ({@code oideq});
 * {@code regconfig} only for the text search functions, which name a configuration and never a relation;
 * <li>system values ({@code xid}, {@code tid}, {@code pg_lsn}, snapshots, ACLs, cursors): {@code internal}, with the
 * same exception;
 * <li>volatile: refused unless decided; stable: allowed only when it implements an operator or a cast or is in
 * {@link #STABLE_PURE} (its session dependence is the clock, the time zone, the locale or the default text search
 * configuration), else refused;
 * <li>immutable: pure.
 * </ol>
 * Set-returning functions get a {@code table} row and a {@code scalar} row: PostgreSQL calls them in FROM and in the
 * select list alike.
 */
final class PostgresFunctions {

    /** Syntax JSqlParser records as a call that pg_proc does not list. */
    static final List<String> SYNTAX = List.of("coalesce", "nullif", "greatest", "least", "row", "grouping", "array");

    /** Stable functions whose only session input is the clock, the time zone, the locale or the text search config. */
    static final Set<String> STABLE_PURE = Set.of(
            "age", "array_to_json", "array_to_string", "concat", "concat_ws", "convert", "convert_from", "convert_to",
            "date_part", "date_trunc", "enum_first", "enum_last", "enum_range", "extract", "format", "generate_series",
            "json_agg", "json_build_array", "json_build_object", "json_object_agg", "json_to_record", "json_to_recordset",
            "json_to_tsvector", "jsonb_agg", "jsonb_build_array", "jsonb_build_object", "jsonb_to_record",
            "jsonb_to_recordset", "jsonb_to_tsvector", "jsonb_path_exists_tz", "jsonb_path_match_tz",
            "jsonb_path_query_array_tz", "jsonb_path_query_first_tz", "jsonb_path_query_tz", "length", "make_timestamptz",
            "now", "overlaps", "phraseto_tsquery", "plainto_tsquery", "quote_literal", "quote_nullable", "row_to_json",
            "statement_timestamp", "timestamptz", "timezone", "to_char", "to_date", "to_json", "to_jsonb", "to_number",
            "to_timestamp", "to_tsquery", "to_tsvector", "transaction_timestamp", "ts_headline", "websearch_to_tsquery",
            "xml_is_well_formed", "xml");

    /** Text search functions whose regconfig argument names a text search configuration, never a relation. */
    static final Set<String> TEXT_SEARCH = Set.of("to_tsvector", "to_tsquery", "plainto_tsquery", "phraseto_tsquery",
            "websearch_to_tsquery", "ts_headline", "json_to_tsvector", "jsonb_to_tsvector");

    static final Map<String, Verdict> DECISIONS = FunctionRules.checked(Map.ofEntries(
            // volatile, but only randomness or the clock
            Map.entry("random", Verdict.pure("randomness")), Map.entry("gen_random_uuid", Verdict.pure("randomness")),
            Map.entry("clock_timestamp", Verdict.pure("clock")), Map.entry("timeofday", Verdict.pure("clock")),
            // seeds the session's generator: state left in a pooled connection
            Map.entry("setseed", Verdict.refused("session")),
            // the session: its query, transaction, database, schemas, users, client address, text search default
            Map.entry("current_query", Verdict.refused("session")), Map.entry("txid_status", Verdict.refused("session")),
            Map.entry("txid_current_if_assigned", Verdict.refused("session")),
            Map.entry("current_database", Verdict.refused("session")), Map.entry("current_schema", Verdict.refused("session")),
            Map.entry("current_schemas", Verdict.refused("session")), Map.entry("session_user", Verdict.refused("session")),
            Map.entry("getpgusername", Verdict.refused("session")), Map.entry("inet_client_addr", Verdict.refused("session")),
            Map.entry("inet_client_port", Verdict.refused("session")),
            Map.entry("get_current_ts_config", Verdict.refused("session")),
            // the server
            Map.entry("version", Verdict.refused("server")), Map.entry("getdatabaseencoding", Verdict.refused("server")),
            // large objects by descriptor (lo_* are on the deny-list already)
            Map.entry("loread", Verdict.refused("file")), Map.entry("lowrite", Verdict.refused("file")),
            // a table named as text (currtid2), index support and BRIN/GIN maintenance on a relation, pg_upgrade's hooks
            Map.entry("currtid2", Verdict.refused("catalog")), Map.entry("amvalidate", Verdict.refused("catalog")),
            Map.entry("satisfies_hash_partition", Verdict.refused("catalog")),
            Map.entry("brin_summarize_new_values", Verdict.refused("catalog")),
            Map.entry("brin_summarize_range", Verdict.refused("catalog")),
            Map.entry("brin_desummarize_range", Verdict.refused("catalog")),
            Map.entry("gin_clean_pending_list", Verdict.refused("catalog")),
            // row_security_active('secrets') answers whether a table exists (issue 44's probe)
            Map.entry("row_security_active", Verdict.refused("catalog")),
            // json(b)_populate_record(null::secrets, '{}') expands the row type of a table named by a cast: its columns
            Map.entry("json_populate_record", Verdict.refused("catalog")),
            Map.entry("json_populate_recordset", Verdict.refused("catalog")),
            Map.entry("jsonb_populate_record", Verdict.refused("catalog")),
            Map.entry("jsonb_populate_recordset", Verdict.refused("catalog")),
            // text search parsers and dictionaries named as text or oid
            Map.entry("ts_debug", Verdict.refused("catalog")), Map.entry("ts_parse", Verdict.refused("catalog")),
            Map.entry("ts_token_type", Verdict.refused("catalog")), Map.entry("ts_lexize", Verdict.refused("catalog")),
            // ACLs are catalog values; an enum's binary send function
            Map.entry("aclexplode", Verdict.refused("catalog")), Map.entry("acldefault", Verdict.refused("catalog")),
            Map.entry("makeaclitem", Verdict.refused("catalog")), Map.entry("enum_send", Verdict.refused("internal")),
            // pretty-printing indents every nesting level: output grows with the square of the input's depth
            Map.entry("jsonb_pretty", Verdict.refused("unsure")),
            // overloads on system types refused by the rules (age(xid), max(oid), min(tid)) only compare or count values
            // the query already has: the strictest overload would refuse age(date) and max(x) with them
            Map.entry("age", Verdict.pure("age(xid) counts transactions since a value the query read")),
            Map.entry("max", Verdict.pure()), Map.entry("min", Verdict.pure()),
            // on the deny-list's own short list of pure pg_ functions: the argument's type and stored size
            Map.entry("pg_typeof", Verdict.pure("the argument's type")), Map.entry("pg_column_size", Verdict.pure("the argument's size")),
            // sizes: PostgreSQL's signatures
            Map.entry("to_hex", Verdict.pure("of an integer: at most 16 digits")),
            Map.entry("encode", Verdict.sized("grows:4")), Map.entry("convert", Verdict.sized("grows:4")),
            Map.entry("convert_from", Verdict.sized("grows:4")), Map.entry("convert_to", Verdict.sized("grows:4")),
            Map.entry("normalize", Verdict.sized("grows:18")),
            Map.entry("json_build_array", Verdict.sized("grows:6")), Map.entry("json_build_object", Verdict.sized("grows:6")),
            Map.entry("jsonb_build_array", Verdict.sized("grows:6")), Map.entry("jsonb_build_object", Verdict.sized("grows:6")),
            Map.entry("json_object", Verdict.sized("grows:6")), Map.entry("jsonb_object", Verdict.sized("grows:6")),
            Map.entry("json_agg", Verdict.sized("grows:6")), Map.entry("jsonb_agg", Verdict.sized("grows:6")),
            Map.entry("json_object_agg", Verdict.sized("grows:6")), Map.entry("jsonb_object_agg", Verdict.sized("grows:6"))));

    private static final String FACTS = """
            SELECT p.proname, n.nspname, p.prokind, p.provolatile, p.proretset,
              EXISTS (SELECT 1 FROM pg_type t WHERE t.oid = ANY (p.proargtypes::oid[] || p.prorettype) AND t.typname IN
                ('internal', 'cstring', 'trigger', 'event_trigger', 'language_handler', 'fdw_handler', 'index_am_handler',
                 'table_am_handler', 'tsm_handler', 'pg_ddl_command')) AS pseudo,
              EXISTS (SELECT 1 FROM pg_type t WHERE t.oid = ANY (p.proargtypes::oid[] || p.prorettype) AND t.typname <> 'regconfig'
                AND (t.typname LIKE 'reg%' OR t.typname IN ('oid', 'oidvector', 'pg_node_tree', 'pg_ndistinct', 'pg_dependencies',
                 'pg_mcv_list', 'pg_brin_bloom_summary', 'pg_brin_minmax_multi_summary'))) AS catalog_type,
              EXISTS (SELECT 1 FROM pg_type t WHERE t.oid = ANY (p.proargtypes::oid[] || p.prorettype) AND t.typname = 'regconfig') AS regconfig,
              EXISTS (SELECT 1 FROM pg_type t WHERE t.oid = ANY (p.proargtypes::oid[] || p.prorettype) AND t.typname IN
                ('aclitem', '_aclitem', 'pg_snapshot', 'txid_snapshot', 'xid', 'xid8', 'cid', 'tid', 'pg_lsn', 'refcursor')) AS system_type,
              EXISTS (SELECT 1 FROM pg_operator o WHERE o.oprcode = p.oid)
                OR EXISTS (SELECT 1 FROM pg_cast c WHERE c.castfunc = p.oid)
                OR EXISTS (SELECT 1 FROM pg_amproc a WHERE a.amproc = p.oid) AS operator_or_cast,
              EXISTS (SELECT 1 FROM pg_type t WHERE p.oid IN (t.typinput, t.typoutput, t.typreceive, t.typsend, t.typmodin,
                t.typmodout, t.typanalyze, t.typsubscript))
                OR EXISTS (SELECT 1 FROM pg_aggregate a WHERE p.oid IN (a.aggtransfn, a.aggfinalfn, a.aggcombinefn, a.aggserialfn,
                a.aggdeserialfn, a.aggmtransfn, a.aggminvtransfn, a.aggmfinalfn)) AS plumbing
            FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
            WHERE n.nspname IN ('pg_catalog', 'information_schema')
            """;

    private PostgresFunctions() {}

    static FunctionCatalogs.Generated generate(Connection c) throws SQLException {
        String version;
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SHOW server_version")) {
            rs.next();
            version = rs.getString(1);
        }
        List<Classified> out = new ArrayList<>();
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(FACTS)) {
            while (rs.next()) {
                String name = FunctionRow.lower(rs.getString("proname"));
                String prokind = rs.getString("prokind");
                List<String> kinds = switch (prokind) {
                    case "f" -> rs.getBoolean("proretset") ? List.of("scalar", "table") : List.of("scalar");
                    case "a" -> List.of("aggregate");
                    case "w" -> List.of("window");
                    // procedures run only through CALL, which the validator never accepts
                    case "p" -> List.of();
                    default -> throw new IllegalStateException("unknown prokind " + prokind + " of " + name);
                };
                Verdict byRules = byRules(name, rs);
                for (String kind : kinds) out.add(new Classified(name, kind, FunctionRules.decide(name, kind, DECISIONS, byRules)));
            }
        }
        return new FunctionCatalogs.Generated("postgres", "PostgreSQL " + version,
                "pg_proc (pg_catalog and information_schema) of a fresh database (testkit PostgresFunctions)",
                FunctionRules.withSyntax(FunctionRules.merge(out), SYNTAX), FunctionRules.mixedOverloads(out));
    }

    private static Verdict byRules(String name, ResultSet f) throws SQLException {
        boolean operator = f.getBoolean("operator_or_cast");
        if (f.getBoolean("pseudo") || f.getBoolean("plumbing") || !"pg_catalog".equals(f.getString("nspname"))) {
            return Verdict.refused("internal");
        }
        if (f.getBoolean("catalog_type") && !operator) return Verdict.refused("catalog");
        if (f.getBoolean("regconfig") && !TEXT_SEARCH.contains(name)) return Verdict.refused("catalog");
        if (f.getBoolean("system_type") && !operator) return Verdict.refused("internal");
        if (name.startsWith("binary_upgrade_")) return Verdict.refused("server"); // pg_upgrade's hooks
        return switch (f.getString("provolatile")) {
            case "v" -> Verdict.refused("unsure");
            case "s" -> operator || STABLE_PURE.contains(name) ? Verdict.pure() : Verdict.refused("unsure");
            default -> Verdict.pure();
        };
    }
}
