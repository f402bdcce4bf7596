package dev.sqloop.testkit.engines;

import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * One row of a function allow-list file ({@code sql-parse/src/main/resources/functions/<dialect>.tsv}): a function's
 * name as a parsed query records it, the kind the engine reports, its class ({@code pure}, {@code sized},
 * {@code refused}) and a note (the family of a refused one, the size spec of a sized one, why for a pure one).
 */
public record FunctionRow(String name, String kind, String safety, String note) {
    public static final List<String> KINDS = List.of("scalar", "aggregate", "window", "table");
    public static final String PURE = "pure";
    public static final String SIZED = "sized";
    public static final String REFUSED = "refused";
    /** File order: by name, then kind in {@link #KINDS} order. */
    public static final Comparator<FunctionRow> ORDER = Comparator.comparing(FunctionRow::name)
            .thenComparing(r -> KINDS.indexOf(r.kind()));

    public FunctionRow {
        if (!name.matches("[a-z_][a-z0-9_]*")) throw new IllegalArgumentException("not a lower-case unqualified name: " + name);
        if (!KINDS.contains(kind)) throw new IllegalArgumentException("unknown kind " + kind + " of " + name);
        if (!List.of(PURE, SIZED, REFUSED).contains(safety)) throw new IllegalArgumentException("unknown class " + safety + " of " + name);
        if (note.contains("\t") || note.contains("\n")) throw new IllegalArgumentException("a note is one line without tabs: " + name);
        if (!PURE.equals(safety) && note.isBlank()) throw new IllegalArgumentException(name + ": a " + safety + " row needs its note");
    }

    /** How strict a class is: a name with several overloads takes its strictest. */
    int strictness() {
        return List.of(PURE, SIZED, REFUSED).indexOf(safety);
    }

    FunctionRow as(String name, String kind) {
        return new FunctionRow(name, kind, safety, note);
    }

    /** The TSV line. */
    public String line() {
        return name + "\t" + kind + "\t" + safety + "\t" + note;
    }

    /** Reads a TSV line written by {@link #line()}. */
    public static FunctionRow parse(String line) {
        String[] c = line.split("\t", -1);
        if (c.length != 4) throw new IllegalArgumentException("expected 4 tab-separated columns: " + line);
        return new FunctionRow(c[0], c[1], c[2], c[3]);
    }

    static String lower(String s) {
        return s.toLowerCase(Locale.ROOT);
    }
}
