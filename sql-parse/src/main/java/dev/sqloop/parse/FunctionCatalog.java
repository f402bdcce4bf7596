package dev.sqloop.parse;

import dev.sqloop.common.Dialect;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One dialect's function allow-list: every function its engine's own catalog lists, each classified {@code pure},
 * {@code sized} (pure, but an argument sets the size of what it builds) or {@code refused}, read from the classpath
 * resource {@code functions/<dialect>.tsv} (generated from the live engine by testkit's {@code FunctionCatalogs}; see
 * validator-service/PARSERS.md). A name the file lacks is a function the engine does not have.
 */
public final class FunctionCatalog {

    /** How the engine reports a function; {@link #TABLE} is a table-valued function used in FROM. */
    public enum Kind {
        SCALAR, AGGREGATE, WINDOW, TABLE;

        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }

        static Kind of(String wire) {
            return valueOf(wire.toUpperCase(Locale.ROOT));
        }
    }

    /** The column {@code class} of the file: whether a query may call the function. */
    public enum Safety {
        /** Computes from its arguments, the clock, randomness or the session's locale/time zone; output bounded by its inputs. */
        PURE,
        /** Pure, but the arguments named by {@link Entry#sizes()} set the size of what it builds. */
        SIZED,
        /** Reads or writes state outside its arguments, or is not known to be harmless: the note names the family. */
        REFUSED;

        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Which argument (1-based) of a {@link Safety#SIZED} function sets the size of its result, and how. */
    public sealed interface SizeSpec {
        /** Argument {@code arg} is an element or repeat count ({@code repeat(s, n)}, {@code array_repeat}, {@code space}). */
        record Count(int arg) implements SizeSpec {}

        /** Argument {@code arg} is an output width ({@code lpad(s, n)}, {@code bar}). */
        record Width(int arg) implements SizeSpec {}

        /** Range-like arguments start, stop[, step] ({@code range}, {@code sequence}, {@code generate_series}). */
        record Bounds() implements SizeSpec {}

        /** Argument {@code arg} is a printf-style format whose widths and precisions expand the output. */
        record Format(int arg) implements SizeSpec {}

        /** Occurrences of argument {@code from} are replaced by argument {@code to}. */
        record Replace(int from, int to) implements SizeSpec {}

        /** The output is up to {@code factor} times the size of its input ({@code hex}, {@code base64}, {@code quote}). */
        record Grows(int factor) implements SizeSpec {}
    }

    /** One row of the file: {@code sizes} is non-empty exactly for {@link Safety#SIZED}. */
    public record Entry(String name, Kind kind, Safety safety, String note, List<SizeSpec> sizes) {
        public Entry {
            sizes = List.copyOf(sizes);
        }
    }

    private static final Map<String, FunctionCatalog> LOADED = new java.util.HashMap<>();
    private static final Pattern NAME = Pattern.compile("[a-z_][a-z0-9_]*");
    private static final Pattern SPEC = Pattern.compile("(count|width|format|grows):(\\d+)|replace:(\\d+),(\\d+)|bounds");

    private final Map<String, Map<Kind, Entry>> byName;
    private final List<String> header;

    private FunctionCatalog(Map<String, Map<Kind, Entry>> byName, List<String> header) {
        this.byName = byName;
        this.header = header;
    }

    /** The dialect's catalog (Presto shares Trino's: the same engine answers both), loaded once. */
    public static synchronized FunctionCatalog of(Dialect dialect) {
        return LOADED.computeIfAbsent(resourceName(dialect), name -> {
            String resource = "/functions/" + name + ".tsv";
            try (InputStream in = FunctionCatalog.class.getResourceAsStream(resource)) {
                if (in == null) throw new IllegalStateException("no " + resource + " on the classpath");
                return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), resource);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    /** The file name of a dialect's catalog, without {@code .tsv}. */
    public static String resourceName(Dialect dialect) {
        return dialect == Dialect.PRESTO ? "trino" : dialect.wireName();
    }

    /**
     * Reads a catalog file's text; {@code source} names it in errors. Fails on a malformed row (wrong column count,
     * unknown kind or class, an upper-case or qualified name, a {@code sized} row without a size spec, a duplicate).
     */
    public static FunctionCatalog parse(String text, String source) {
        Map<String, Map<Kind, Entry>> byName = new LinkedHashMap<>();
        List<String> header = new ArrayList<>();
        int lineNo = 0;
        for (String line : text.split("\n", -1)) {
            lineNo++;
            if (line.startsWith("#")) {
                header.add(line.substring(1).strip());
                continue;
            }
            if (line.isBlank()) continue;
            String[] cols = line.split("\t", -1);
            try {
                if (cols.length != 4) throw new IllegalArgumentException("expected 4 tab-separated columns, found " + cols.length);
                Entry e = entry(cols);
                if (byName.computeIfAbsent(e.name(), n -> new EnumMap<>(Kind.class)).putIfAbsent(e.kind(), e) != null) {
                    throw new IllegalArgumentException("a second row for " + e.name() + " " + e.kind().wireName());
                }
            } catch (IllegalArgumentException ex) {
                throw new IllegalArgumentException(source + " line " + lineNo + ": " + ex.getMessage() + ": " + line, ex);
            }
        }
        byName.replaceAll((n, kinds) -> Collections.unmodifiableMap(kinds));
        return new FunctionCatalog(Collections.unmodifiableMap(byName), List.copyOf(header));
    }

    private static Entry entry(String[] cols) {
        String name = cols[0];
        if (!NAME.matcher(name).matches()) throw new IllegalArgumentException("name must be lower case and unqualified");
        Kind kind = Kind.of(cols[1]);
        Safety safety = Safety.valueOf(cols[2].toUpperCase(Locale.ROOT));
        String note = cols[3];
        List<SizeSpec> sizes = safety == Safety.SIZED ? sizes(note) : List.of();
        if (safety == Safety.REFUSED && note.isBlank()) throw new IllegalArgumentException("a refused row names its family");
        return new Entry(name, kind, safety, note, sizes);
    }

    /** A {@code sized} row's note: specs separated by {@code ;} (count:N, width:N, bounds, format:N, replace:F,T, grows:K). */
    static List<SizeSpec> sizes(String note) {
        List<SizeSpec> out = new ArrayList<>();
        for (String part : note.split(";")) {
            Matcher m = SPEC.matcher(part.strip());
            if (!m.matches()) throw new IllegalArgumentException("not a size spec: '" + part.strip() + "'");
            if (m.group(1) != null) {
                int n = Integer.parseInt(m.group(2));
                if (n < 1) throw new IllegalArgumentException("argument indexes start at 1: " + part);
                out.add(switch (m.group(1)) {
                    case "count" -> new SizeSpec.Count(n);
                    case "width" -> new SizeSpec.Width(n);
                    case "format" -> new SizeSpec.Format(n);
                    default -> new SizeSpec.Grows(n);
                });
            } else if (m.group(3) != null) {
                out.add(new SizeSpec.Replace(Integer.parseInt(m.group(3)), Integer.parseInt(m.group(4))));
            } else {
                out.add(new SizeSpec.Bounds());
            }
        }
        return List.copyOf(out);
    }

    /** The row for {@code name} (lower case, unqualified, as {@link ParsedQuery} records it) of that kind. */
    public Optional<Entry> lookup(String name, Kind kind) {
        Map<Kind, Entry> kinds = byName.get(name);
        return kinds == null ? Optional.empty() : Optional.ofNullable(kinds.get(kind));
    }

    /**
     * Every row for {@code name}, one per kind ({@code sum} is an aggregate; PostgreSQL's {@code generate_series} both a
     * table and a scalar function). A parsed query records a name without its kind: a check reads all of them.
     */
    public List<Entry> entries(String name) {
        Map<Kind, Entry> kinds = byName.get(name);
        if (kinds != null) return List.copyOf(kinds.values());
        // ClickHouse's aggregate combinators (countIf, sumArrayIf, uniqOrNull): the aggregate's own rows, so a refused
        // aggregate stays refused under any suffix; the header's "combinators:" line lists them (lower case)
        for (String c : combinators()) {
            if (name.length() > c.length() && name.endsWith(c)) {
                List<Entry> base = entries(name.substring(0, name.length() - c.length())).stream()
                        .filter(e -> e.kind() == Kind.AGGREGATE).toList();
                if (!base.isEmpty()) return base;
            }
        }
        return List.of();
    }

    private List<String> combinators() {
        for (String h : header) {
            if (h.startsWith("combinators:")) return List.of(h.substring("combinators:".length()).strip().split(",\\s*"));
        }
        return List.of();
    }

    /** Every row, in file order. */
    public List<Entry> entries() {
        List<Entry> all = new ArrayList<>();
        byName.values().forEach(kinds -> all.addAll(kinds.values()));
        return all;
    }

    /** The file's comment lines without their {@code #}: the engine and version it was generated from, how to regenerate. */
    public List<String> header() {
        return header;
    }
}
