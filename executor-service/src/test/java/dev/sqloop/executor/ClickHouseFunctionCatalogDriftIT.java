package dev.sqloop.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.chdb.Chdb;
import dev.sqloop.chdb.ChdbException;
import dev.sqloop.chdb.ChdbSession;
import dev.sqloop.parse.FunctionCatalog;
import dev.sqloop.parse.SideEffectPolicy;
import dev.sqloop.testkit.engines.ChdbLibrary;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * sqloop's ClickHouse function allow-list ({@code sql-parse/…/functions/clickhouse.tsv}) against the engine's own
 * catalog ({@code system.functions}, {@code system.table_functions} of chDB): written to {@code target/functions/} and
 * compared with the committed file, so a new engine version's functions cannot slip in unclassified.
 *
 * <p>Rules: names lower-cased (sqloop's checks compare lower case; ClickHouse's camelCase names stay distinct there);
 * refused are the side-effect policy's names, engine-internal ({@code _…}) and introspection functions, the server's,
 * session's and models' functions below, sleeps, and every table function but the row generators.
 */
class ClickHouseFunctionCatalogDriftIT {
    private static final Set<String> ROW_GENERATORS = Set.of("numbers", "numbers_mt", "zeros", "zeros_mt");
    /** The server, the session, files behind models: named here, each with its family. */
    private static final Map<String, String> REFUSED = Map.ofEntries(
            Map.entry("currentdatabase", "session"), Map.entry("database", "session"), Map.entry("current_database", "session"),
            Map.entry("currentschemas", "session"), Map.entry("current_schemas", "session"), Map.entry("user", "session"),
            Map.entry("current_user", "session"), Map.entry("session_user", "session"), Map.entry("connectionid", "session"),
            Map.entry("connection_id", "session"), Map.entry("getscalar", "internal"), Map.entry("globalvariable", "session"),
            Map.entry("version", "server"), Map.entry("buildid", "server"), Map.entry("serveruuid", "server"),
            Map.entry("getoskernelversion", "server"), Map.entry("displayname", "server"), Map.entry("tcpport", "server"),
            Map.entry("zookeepersessionuptime", "server"), Map.entry("shardnum", "server"), Map.entry("shardcount", "server"),
            Map.entry("showcertificate", "server"), Map.entry("transactionid", "server"),
            Map.entry("transactionlatestsnapshot", "server"), Map.entry("transactionoldestsnapshot", "server"),
            Map.entry("hasthreadfuzzer", "server"), Map.entry("catboostevaluate", "file"), Map.entry("modelevaluate", "file"),
            Map.entry("naivebayesclassifier", "file"), Map.entry("addresstoline", "server"),
            Map.entry("addresstolinewithinlines", "server"), Map.entry("addresstosymbol", "server"), Map.entry("demangle", "server"),
            Map.entry("sleep", "sleep"), Map.entry("sleepeachrow", "sleep"), Map.entry("getsizeofenumtype", "internal"),
            Map.entry("filesystemavailable", "server"), Map.entry("filesystemcapacity", "server"),
            Map.entry("filesystemunreserved", "server"), Map.entry("revision", "server"), Map.entry("uptime", "server"),
            Map.entry("timezoneof", "internal"), Map.entry("getmergetreeparts", "server"));

    @Test
    void theCommittedListClassifiesEveryFunctionTheEngineHas() throws Exception {
        Chdb engine = Chdb.open(ChdbLibrary.jvmDatabaseDir());
        TreeMap<String, String[]> rows = new TreeMap<>();
        java.util.TreeSet<String> combinators = new java.util.TreeSet<>();
        try (ChdbSession s = engine.session(Map.of("output_format_json_quote_64bit_integers", "0"))) {
            for (List<Object> r : s.query("SELECT name, is_aggregate FROM system.functions").rows()) {
                add(rows, (String) r.get(0), ((Number) r.get(1)).intValue() == 1 ? "aggregate" : "scalar");
            }
            for (List<Object> r : s.query("SELECT name FROM system.table_functions").rows()) add(rows, (String) r.get(0), "table");
            for (List<Object> r : s.query("SELECT name FROM system.aggregate_function_combinators").rows()) {
                combinators.add(((String) r.get(0)).toLowerCase(java.util.Locale.ROOT));
            }
        }
        // longest first: sumSimpleState is sum + SimpleState, not sumSimple + State
        List<String> byLength = combinators.stream().sorted(java.util.Comparator.comparingInt(String::length).reversed()
                .thenComparing(java.util.Comparator.naturalOrder())).toList();
        StringBuilder out = new StringBuilder();
        out.append("# sqloop function allow-list: clickhouse\n");
        out.append("# engine: ClickHouse ").append(engine.version()).append(" (chDB ").append(ChdbLibrary.VERSION).append(")\n");
        out.append("# read from: system.functions and system.table_functions of chDB, names lower-cased (executor-service ClickHouseFunctionCatalogDriftIT)\n");
        out.append("# regenerate: mvn -B -ntp -pl executor-service -am -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=ClickHouseFunctionCatalogDriftIT -Dfailsafe.failIfNoSpecifiedTests=false verify; cp executor-service/target/functions/clickhouse.tsv sql-parse/src/main/resources/functions/\n");
        out.append("# combinators: ").append(String.join(",", byLength)).append("\n");
        out.append("# classes: pure, refused (note: the family). See validator-service/PARSERS.md, \"Function allow-lists\".\n");
        out.append("# name\tkind\tclass\tnote\n");
        rows.values().forEach(r -> out.append(String.join("\t", r)).append('\n'));
        Path written = Path.of("target/functions/clickhouse.tsv");
        Files.createDirectories(written.getParent());
        Files.writeString(written, out);
        // the file must parse as the checks read it
        FunctionCatalog parsed = FunctionCatalog.parse(out.toString(), written.toString());
        assertTrue(parsed.entries("countif").stream().anyMatch(e -> e.safety() == FunctionCatalog.Safety.PURE));
        assertTrue(parsed.entries("sumarrayif").stream().anyMatch(e -> e.name().equals("sum")), "combinators resolve to the aggregate");
        assertTrue(parsed.entries("url").stream().allMatch(e -> e.safety() == FunctionCatalog.Safety.REFUSED));
        System.out.printf("ClickHouse %s: %d functions classified, %d refused%n", engine.version(), rows.size(),
                rows.values().stream().filter(r -> r[2].equals("refused")).count());
        String committed = Files.readString(Path.of("../sql-parse/src/main/resources/functions/clickhouse.tsv"));
        assertEquals(committed, out.toString(), "the engine's catalog changed: regenerate (see the file's header)");
    }

    private static void add(TreeMap<String, String[]> rows, String engineName, String kind) {
        String name = engineName.toLowerCase(java.util.Locale.ROOT);
        if (!name.matches("[a-z_][a-z0-9_]*")) return; // operators' names
        String family = family(name, kind);
        String key = name + "\t" + kind;
        String[] row = {name, kind, family == null ? "pure" : "refused", family == null ? "" : family};
        // two engine names, one lower case (CAST and cast): refused if either is
        rows.merge(key, row, (a, b) -> a[2].equals("refused") ? a : b);
    }

    private static String family(String name, String kind) {
        if (kind.equals("table")) return ROW_GENERATORS.contains(name) ? null : "server";
        if (name.startsWith("_")) return "internal";
        if (REFUSED.containsKey(name)) return REFUSED.get(name);
        if (SideEffectPolicy.isDenied(name)) return "server";
        return null;
    }
}
