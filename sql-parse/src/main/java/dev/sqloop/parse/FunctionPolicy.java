package dev.sqloop.parse;

import dev.sqloop.common.Dialect;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Functions by the dialect's allow-list ({@link FunctionCatalog}, built from the engine's own catalog) instead of a list
 * of dangerous names that grows with every probe: a function the list classifies {@code refused} is a read-only
 * violation whatever the datasource (it reads the server, files, the catalog, sessions, or SQL text), and a function
 * the list does not hold at all is refused as {@code unsupported_function} — a name the engine lacks, or one added
 * later (a user-defined function, a newer version's), which a datasource may name in
 * {@code SQLOOP_DATASOURCE_<NAME>_FUNCTIONS}. The validator and the executor apply the same two rules.
 */
public final class FunctionPolicy {
    private FunctionPolicy() {}

    /** The first function of {@code q} the dialect's list refuses, as a read-only violation; null when none. */
    static SqlRejection refused(ParsedQuery q) {
        FunctionCatalog catalog = FunctionCatalog.of(q.dialect());
        for (String f : q.functions()) {
            for (FunctionCatalog.Entry e : catalog.entries(f)) {
                if (e.kind() != FunctionCatalog.Kind.TABLE && e.safety() == FunctionCatalog.Safety.REFUSED) return rejection(q.dialect(), e);
            }
        }
        for (ObjectName tf : q.tableFunctions()) {
            for (FunctionCatalog.Entry e : catalog.entries(tf.last())) {
                if (e.kind() == FunctionCatalog.Kind.TABLE && e.safety() == FunctionCatalog.Safety.REFUSED) return rejection(q.dialect(), e);
            }
        }
        return null;
    }

    private static SqlRejection rejection(Dialect d, FunctionCatalog.Entry e) {
        return SqlRejection.readOnly("function " + e.name() + "() is refused on " + d.displayName() + ": it "
                + family(e.note()) + " (sqloop's allow-list of " + d.displayName() + " functions)", e.name());
    }

    private static String family(String note) {
        return switch (note == null ? "" : note.split("[;,\\s]")[0]) {
            case "sql-text" -> "runs SQL or names objects given as text";
            case "catalog" -> "reads the catalog (objects by name or oid, beyond the allow-list)";
            case "file" -> "reads or writes files";
            case "server" -> "reads or changes the server";
            case "session" -> "reads or changes the session";
            case "network" -> "reaches other servers";
            case "java" -> "calls Java inside the server";
            case "sleep" -> "sleeps";
            case "sequence" -> "changes a sequence";
            case "secret" -> "reads secrets";
            case "internal" -> "is an engine-internal function";
            default -> "is not known to be harmless" + (note == null || note.isBlank() ? "" : " (" + note + ")");
        };
    }

    /** Whether the dialect's list lets a query call {@code name} as a scalar, aggregate or window function. */
    public static boolean listed(Dialect dialect, String name) {
        for (FunctionCatalog.Entry e : FunctionCatalog.of(dialect).entries(name)) {
            if (e.kind() != FunctionCatalog.Kind.TABLE && e.safety() != FunctionCatalog.Safety.REFUSED) return true;
        }
        return false;
    }

    /** The functions of {@code q} neither the dialect's list nor {@code extra} (the datasource's additions) hold. */
    public static List<String> unlisted(ParsedQuery q, Set<String> extra) {
        List<String> out = new ArrayList<>();
        for (String f : q.functions()) {
            if (!extra.contains(f) && !listed(q.dialect(), f)) out.add(f);
        }
        return out;
    }

    /** Whether {@code name} is only an aggregate on this dialect (no scalar of the name), by its function catalog. */
    public static boolean aggregate(Dialect dialect, String name) {
        boolean aggregate = false;
        for (FunctionCatalog.Entry e : FunctionCatalog.of(dialect).entries(name)) {
            if (e.kind() == FunctionCatalog.Kind.SCALAR) return false;
            if (e.kind() == FunctionCatalog.Kind.AGGREGATE) aggregate = true;
        }
        return aggregate;
    }

    /** Every name the dialect's list lets a query call (for near-name suggestions). */
    public static Set<String> listedNames(Dialect dialect) {
        Set<String> out = new TreeSet<>();
        for (FunctionCatalog.Entry e : FunctionCatalog.of(dialect).entries()) {
            if (e.kind() != FunctionCatalog.Kind.TABLE && e.safety() != FunctionCatalog.Safety.REFUSED) out.add(e.name());
        }
        return out;
    }

    /** Why {@code name} is not callable, for an error message: the engine's version the list was built from. */
    public static String unlistedReason(Dialect dialect, String name) {
        String engine = FunctionCatalog.of(dialect).header().stream().filter(h -> h.strip().startsWith("engine:"))
                .map(h -> h.strip().substring("engine:".length()).strip()).findFirst().orElse(dialect.displayName());
        return "function " + name + "() is not on sqloop's allow-list of " + dialect.displayName() + " functions (built from "
                + engine + "'s own catalog): use a built-in function of the same meaning";
    }
}
