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

/**
 * Spark SQL's catalog ({@code SHOW FUNCTIONS}, then {@code DESCRIBE FUNCTION EXTENDED} for each function's class) and
 * how it is classified. The kind is the class's: a {@code Generator} is a table function (also callable in the select
 * list and in LATERAL VIEW, so it gets a scalar row too), a {@code WindowFunction} a window function, an
 * {@code AggregateFunction} (or anything in the aggregate package) an aggregate. Rules: a class outside Catalyst's
 * expressions (a user function, a logical plan) and every table function is refused unless decided below; Catalyst's
 * expressions compute from their inputs, except the ones decided below (session, server, files, Java, XML).
 */
final class SparkFunctions {
    private static final String EXPRESSIONS = "org.apache.spark.sql.catalyst.expressions.";

    /** JSqlParser records no call here that Spark does not list itself (coalesce, if, nvl, struct... are all listed). */
    static final List<String> SYNTAX = List.of();

    static final Map<String, Verdict> DECISIONS = FunctionRules.checked(Map.ofEntries(
            // the session: its database and catalog, its user (current_user is on the deny-list)
            Map.entry("current_database", Verdict.refused("session")), Map.entry("current_schema", Verdict.refused("session")),
            Map.entry("current_catalog", Verdict.refused("session")), Map.entry("user", Verdict.refused("session")),
            // the server's version
            Map.entry("version", Verdict.refused("server")),
            // count_min_sketch(col, eps, confidence, seed): the sketch's width is 2/eps, a size no size spec describes
            Map.entry("count_min_sketch", Verdict.refused("unsure")),
            // randomness, the clock, the session's time zone
            Map.entry("rand", Verdict.pure("randomness")), Map.entry("randn", Verdict.pure("randomness")),
            Map.entry("random", Verdict.pure("randomness")), Map.entry("uuid", Verdict.pure("randomness")),
            Map.entry("shuffle", Verdict.pure("randomness")), Map.entry("current_timezone", Verdict.pure("session time zone")),
            // the row's partition and position: execution details, no state outside the query
            Map.entry("monotonically_increasing_id", Verdict.pure("partition and row position")),
            Map.entry("spark_partition_id", Verdict.pure("partition index")),
            // raise an error with their argument
            Map.entry("raise_error", Verdict.pure("raises its argument as an error")),
            Map.entry("assert_true", Verdict.pure("raises an error when false")),
            // the key is an argument: no server secret
            Map.entry("aes_encrypt", Verdict.pure("the key is an argument")),
            Map.entry("aes_decrypt", Verdict.pure("the key is an argument")),
            Map.entry("try_aes_decrypt", Verdict.pure("the key is an argument")),
            // schema strings name Spark's types, never tables
            Map.entry("from_json", Verdict.pure("the schema names types, not tables")),
            Map.entry("from_csv", Verdict.pure("the schema names types, not tables")),
            // table functions: generators of rows from their arguments
            Map.entry("explode", Verdict.pure()), Map.entry("explode_outer", Verdict.pure()),
            Map.entry("posexplode", Verdict.pure()), Map.entry("posexplode_outer", Verdict.pure()),
            Map.entry("inline", Verdict.pure()), Map.entry("inline_outer", Verdict.pure()),
            Map.entry("json_tuple", Verdict.pure()), Map.entry("sql_keywords", Verdict.pure("Spark's keyword list")),
            // stack(n, …) pads to n rows with nulls (seen: stack(3, 1) gives 1, null, null)
            Map.entry("stack", Verdict.sized("count:1")), Map.entry("range", Verdict.sized("bounds")),
            // sizes: Spark's signatures
            Map.entry("format_number", Verdict.sized("width:2")), Map.entry("histogram_numeric", Verdict.sized("count:2")),
            Map.entry("encode", Verdict.sized("grows:4")), Map.entry("to_csv", Verdict.sized("grows:2")),
            Map.entry("bin", Verdict.pure("of a long: at most 64 digits"))));

    private SparkFunctions() {}

    static FunctionCatalogs.Generated generate(Connection c, Path classpathFile) throws SQLException {
        String version = FunctionCatalogs.hiveServer2Version(c);
        List<String> names = FunctionCatalogs.shownFunctions(c);
        List<Classified> out = new ArrayList<>();
        try (EngineClasses classes = EngineClasses.of(classpathFile); Statement st = c.createStatement()) {
            for (String name : names) {
                String cls = describedClass(st, name);
                String kind = cls.isEmpty() ? "scalar" : kind(classes, cls);
                Verdict byRules = cls.isEmpty() ? Verdict.pure("syntax")
                        : cls.startsWith(EXPRESSIONS) && !"table".equals(kind) ? Verdict.pure() : Verdict.refused("unsure");
                Verdict v = FunctionRules.decide(name, kind, DECISIONS, byRules);
                out.add(new Classified(name, kind, v));
                // a generator is called in the select list and in LATERAL VIEW as well as in FROM
                if ("table".equals(kind) && classes.isA(target(classes, cls), EXPRESSIONS + "Generator")) {
                    out.add(new Classified(name, "scalar", v));
                }
            }
        }
        return new FunctionCatalogs.Generated("sparksql", "Spark " + version,
                "SHOW FUNCTIONS, the class from DESCRIBE FUNCTION EXTENDED, its kind from the class's supertypes in the"
                        + " server's jars (testkit SparkFunctions)",
                FunctionRules.withSyntax(FunctionRules.merge(out), SYNTAX), FunctionRules.mixedOverloads(out));
    }

    static String describedClass(Statement st, String name) throws SQLException {
        try (ResultSet rs = st.executeQuery("DESCRIBE FUNCTION EXTENDED `" + name + "`")) {
            while (rs.next()) {
                String line = rs.getString(1);
                if (line != null && line.startsWith("Class: ")) return line.substring("Class: ".length()).strip();
            }
        }
        return ""; // between, case: grammar Spark documents among its functions, with no class behind it
    }

    /** A builder ({@code ExplodeExpressionBuilder}) stands for the expression it builds ({@code Explode}) where that exists. */
    private static String target(EngineClasses classes, String cls) {
        if (cls.endsWith("ExpressionBuilder")) {
            String built = cls.substring(0, cls.length() - "ExpressionBuilder".length());
            if (classes.load(built).isPresent()) return built;
        }
        return cls;
    }

    private static String kind(EngineClasses classes, String cls) {
        String c = target(classes, cls);
        if (classes.isA(c, EXPRESSIONS + "Generator") || classes.isA(c, "org.apache.spark.sql.catalyst.plans.logical.LogicalPlan")) {
            return "table";
        }
        if (classes.isA(c, EXPRESSIONS + "WindowFunction")) return "window";
        if (classes.isA(c, EXPRESSIONS + "aggregate.AggregateFunction") || c.startsWith(EXPRESSIONS + "aggregate.")) return "aggregate";
        return "scalar";
    }
}
