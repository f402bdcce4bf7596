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

/**
 * Trino's catalog ({@code SHOW FUNCTIONS}: name, kind, deterministic) and how it is classified. Trino's built-ins
 * compute from their arguments: the non-deterministic ones and the table functions are refused unless decided below.
 * Connector functions ({@code system.query} of a JDBC catalog) are not global, so not listed, so refused. Presto
 * datasources use this file too: the same server answers both protocols.
 */
final class TrinoFunctions {

    /** trino-parser records no syntax as a call (COALESCE, IF, TRY, EXTRACT are their own nodes): none to add. */
    static final List<String> SYNTAX = List.of();

    static final Map<String, Verdict> DECISIONS = FunctionRules.checked(Map.ofEntries(
            // non-deterministic only through randomness
            Map.entry("rand", Verdict.pure("randomness")), Map.entry("random", Verdict.pure("randomness")),
            Map.entry("shuffle", Verdict.pure("randomness")), Map.entry("uuid", Verdict.pure("randomness")),
            // the clock and the session's time zone
            Map.entry("current_timezone", Verdict.pure("session time zone")),
            // table functions: exclude_columns reads only its TABLE argument (a relation the parser records); sequence generates rows
            Map.entry("exclude_columns", Verdict.pure("reads only its TABLE argument")),
            Map.entry("sequence", Verdict.sized("bounds")),
            // sizes: Trino's signatures
            Map.entry("bar", Verdict.sized("width:2")), Map.entry("combinations", Verdict.sized("count:2")),
            Map.entry("approx_most_frequent", Verdict.sized("count:1;count:3")),
            Map.entry("numeric_histogram", Verdict.sized("count:1"))));

    private TrinoFunctions() {}

    static FunctionCatalogs.Generated generate(Connection c) throws SQLException {
        String version;
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT version()")) {
            rs.next();
            version = rs.getString(1);
        }
        List<Classified> out = new ArrayList<>();
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SHOW FUNCTIONS")) {
            while (rs.next()) {
                String name = FunctionRow.lower(rs.getString("Function"));
                String kind = rs.getString("Function Type");
                if (!FunctionRow.KINDS.contains(kind)) throw new IllegalStateException("unknown Trino function type " + kind + " of " + name);
                boolean deterministic = rs.getBoolean("Deterministic");
                Verdict byRules = "table".equals(kind) || !deterministic ? Verdict.refused("unsure") : Verdict.pure();
                out.add(new Classified(name, kind, FunctionRules.decide(name, kind, DECISIONS, byRules)));
            }
        }
        return new FunctionCatalogs.Generated("trino", "Trino " + version, "SHOW FUNCTIONS (testkit TrinoFunctions)",
                FunctionRules.withSyntax(FunctionRules.merge(out), SYNTAX), FunctionRules.mixedOverloads(out));
    }
}
