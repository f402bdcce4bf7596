package dev.sqloop.testkit.engines;

import dev.sqloop.testkit.engines.FunctionRules.Classified;
import dev.sqloop.testkit.engines.FunctionRules.Verdict;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Hive's catalog ({@code SHOW FUNCTIONS}, then {@code DESCRIBE FUNCTION EXTENDED} for each function's class) and how
 * it is classified. The kind is the class's: a {@code GenericUDTF} is a table function (called in the select list and
 * in LATERAL VIEW, so it gets a scalar row too), a UDAF resolver an aggregate, or a window function when it carries
 * {@code @WindowFunctionDescription}, a partitioned table function ({@code noop(ON t)}) a table function. Rules: a
 * class outside Hive's UDF packages and the bundled DataSketches and ESRI geometry functions, every table function and
 * every partitioned table function is refused unless decided below; the rest compute from their inputs, except the
 * ones decided below (session, server, Java, files, SQL text, Hive's internal plumbing).
 */
final class HiveFunctions {
    private static final String UDF = "org.apache.hadoop.hive.ql.udf.";
    /** Packages whose functions compute from their inputs unless decided otherwise. */
    private static final List<String> KNOWN = List.of(UDF + "generic.", UDF + "esri.", "org.apache.hive.org.apache.datasketches.hive.");

    /**
     * Hive reads a primitive type's name called like a function as a cast (seen: date('2020-01-01'), int('1'),
     * string(1); decimal(…), varchar(…), interval(…) and time(…) are syntax errors), and SHOW FUNCTIONS does not list them.
     */
    static final List<String> SYNTAX = List.of("date", "timestamp", "int", "string", "double", "bigint", "boolean", "binary",
            "float", "smallint", "tinyint");

    /**
     * lead and lag are listed by their scalar class (GenericUDFLead), but Hive registers a window function of the same
     * name (GenericUDAFLead), which is how queries call them.
     */
    static final Set<String> ALSO_WINDOW = Set.of("lead", "lag");

    static final Map<String, Verdict> DECISIONS = FunctionRules.checked(Map.ofEntries(
            // the session (current_user, logged_in_user, current_groups, current_authorizer are on the deny-list)
            Map.entry("current_database", Verdict.refused("session")), Map.entry("current_schema", Verdict.refused("session")),
            Map.entry("current_catalog", Verdict.refused("session")),
            // the server's build
            Map.entry("version", Verdict.refused("server")), Map.entry("buildversion", Verdict.refused("server")),
            // Hive's plumbing for its own plans, tests, ACID writes, constraints, statistics and authorization
            Map.entry("assert_true_oom", Verdict.refused("internal")), // allocates until the server runs out of memory
            Map.entry("exception_in_vertex_udaf", Verdict.refused("internal")), // fails or stalls tasks on purpose
            Map.entry("exception_in_vertex_udf", Verdict.refused("internal")),
            Map.entry("enforce_constraint", Verdict.refused("internal")), Map.entry("cardinality_violation", Verdict.refused("internal")),
            Map.entry("restrict_information_schema", Verdict.refused("internal")),
            Map.entry("validate_acid_sort_order", Verdict.refused("internal")), Map.entry("split_map_privs", Verdict.refused("internal")),
            Map.entry("surrogate_key", Verdict.refused("internal")), Map.entry("bucket_number", Verdict.refused("internal")),
            Map.entry("in_bloom_filter", Verdict.refused("internal")), Map.entry("bloom_filter", Verdict.refused("internal")),
            Map.entry("compute_bit_vector_fm", Verdict.refused("internal")), Map.entry("compute_bit_vector_hll", Verdict.refused("internal")),
            Map.entry("ndv_compute_bit_vector", Verdict.refused("internal")), Map.entry("internal_interval", Verdict.refused("internal")),
            // gunzips its argument: the output is not bounded by the input
            Map.entry("deserialize", Verdict.refused("unsure")),
            // randomness and the clock
            Map.entry("rand", Verdict.pure("randomness")), Map.entry("uuid", Verdict.pure("randomness")),
            Map.entry("current_date", Verdict.pure("clock")), Map.entry("current_timestamp", Verdict.pure("clock")),
            Map.entry("unix_timestamp", Verdict.pure("clock")),
            Map.entry("assert_true", Verdict.pure("raises an error when false")),
            Map.entry("aes_encrypt", Verdict.pure("the key is an argument")),
            Map.entry("aes_decrypt", Verdict.pure("the key is an argument")),
            Map.entry("json_read", Verdict.pure("the type names types, not tables")),
            // table functions: generators of rows from their arguments, or from a sketch given as an argument
            Map.entry("explode", Verdict.pure()), Map.entry("inline", Verdict.pure()), Map.entry("posexplode", Verdict.pure()),
            Map.entry("json_tuple", Verdict.pure()), Map.entry("parse_url_tuple", Verdict.pure()),
            Map.entry("ds_freq_frequent_items", Verdict.pure("rows of a sketch argument")),
            Map.entry("ds_tuple_arrayofdouble_values", Verdict.pure("rows of a sketch argument")),
            // stack(n, …) pads to n rows with nulls (seen: stack(3, 1) gives 1, null, null); replicate_rows(n, …) n copies
            Map.entry("stack", Verdict.sized("count:1")), Map.entry("replicate_rows", Verdict.sized("count:1")),
            // sizes: Hive's signatures
            Map.entry("format_number", Verdict.sized("width:2")), Map.entry("encode", Verdict.sized("grows:4")),
            Map.entry("histogram_numeric", Verdict.sized("count:2")), Map.entry("ngrams", Verdict.sized("count:3")),
            Map.entry("context_ngrams", Verdict.sized("count:3")),
            Map.entry("bin", Verdict.pure("of a long: at most 64 digits"))));

    private HiveFunctions() {}

    static FunctionCatalogs.Generated generate(Connection c, Path classpathFile) throws SQLException {
        String version = FunctionCatalogs.hiveServer2Version(c);
        List<String> names = FunctionCatalogs.shownFunctions(c);
        List<Classified> out = new ArrayList<>();
        try (EngineClasses classes = EngineClasses.of(classpathFile); Statement st = c.createStatement()) {
            for (String name : names) {
                String cls = describedClass(st, name);
                List<String> kinds = kinds(classes, cls);
                String kind = kinds.getFirst();
                Verdict byRules;
                if (cls.startsWith(UDF + "ptf.")) byRules = Verdict.refused("internal"); // PTFs read a table given as ON t
                else if ("table".equals(kind) || KNOWN.stream().noneMatch(cls::startsWith) && !topLevelUdf(cls)) byRules = Verdict.refused("unsure");
                else byRules = Verdict.pure();
                Verdict v = FunctionRules.decide(name, kind, DECISIONS, byRules);
                for (String k : kinds) out.add(new Classified(name, k, v));
                if (ALSO_WINDOW.contains(name)) out.add(new Classified(name, "window", v));
            }
        }
        return new FunctionCatalogs.Generated("hive", "Hive " + version,
                "SHOW FUNCTIONS, the class from DESCRIBE FUNCTION EXTENDED, its kind from the class's supertypes in the"
                        + " server's jars (testkit HiveFunctions)",
                FunctionRules.withSyntax(FunctionRules.merge(out), SYNTAX), FunctionRules.mixedOverloads(out));
    }

    /** The old-style UDFs live in the package itself ({@code org.apache.hadoop.hive.ql.udf.UDFSubstr}), not a subpackage. */
    private static boolean topLevelUdf(String cls) {
        return cls.startsWith(UDF) && cls.indexOf('.', UDF.length()) < 0;
    }

    private static String describedClass(Statement st, String name) throws SQLException {
        try (ResultSet rs = st.executeQuery("DESCRIBE FUNCTION EXTENDED `" + name + "`")) {
            while (rs.next()) {
                String line = rs.getString(1);
                if (line != null && line.startsWith("Function class:")) return line.substring("Function class:".length()).strip();
            }
        }
        throw new SQLException("DESCRIBE FUNCTION EXTENDED " + name + " names no class");
    }

    /**
     * The kinds of a function's class, the first deciding its rules: a UDTF is a table function also called in the
     * select list; a UDAF marked {@code @WindowFunctionDescription} is a window function, and an aggregate too unless it
     * pivots its result (rank, ntile: one value per row of the window).
     */
    private static List<String> kinds(EngineClasses classes, String cls) {
        if (classes.isA(cls, UDF + "generic.GenericUDTF")) return List.of("table", "scalar");
        if (classes.isA(cls, UDF + "ptf.TableFunctionResolver")) return List.of("table");
        boolean aggregate = classes.isA(cls, UDF + "generic.GenericUDAFResolver") || classes.isA(cls, "org.apache.hadoop.hive.ql.exec.UDAF");
        if (!aggregate) return List.of("scalar");
        java.util.Optional<Object> pivots = classes.annotation(cls, "org.apache.hadoop.hive.ql.exec.WindowFunctionDescription", "pivotResult");
        if (pivots.isEmpty()) return List.of("aggregate");
        return Boolean.TRUE.equals(pivots.get()) ? List.of("window") : List.of("aggregate", "window");
    }
}
