package dev.sqloop.common.datasource;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.sql.Identifiers;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * A datasource's allow-lists (catalogs, schemas, tables), compared with the names its engine resolves the way the engine
 * compares them: one rule for the executor's check, the validator's catalog and the schema context.
 *
 * <p>Where quoted names keep their case ({@link Dialect#quotedNamesKeepCase()}: PostgreSQL), {@code sales} and
 * {@code "Sales"} are two schemas: an entry written unquoted ({@code Sales}) is folded to lower case as the engine folds
 * an unquoted name, a quoted one ({@code "Sales"}) keeps its case, and a name is allowed only by the entry that names
 * the same object; an allow-list of {@code sales} does not admit {@code "Sales"}. Elsewhere names compare ignoring case,
 * quoted or not.
 *
 * <p>Entries are held in one canonical text, a fixed point of the folding (so a list folded twice is the same list):
 * parts joined by dots, each plain and lower-case unless it must be quoted to say what it is (it keeps upper case, or
 * holds a dot or a quote). {@code schema.table} and {@code catalog.schema.table} table entries are accepted as written.
 *
 * @param keepsCase whether quoted names keep their case on this engine
 */
public record AllowList(boolean keepsCase, Set<String> catalogs, Set<String> schemas, Set<String> tables) {

    public AllowList {
        catalogs = canonical(keepsCase, catalogs);
        schemas = canonical(keepsCase, schemas);
        tables = canonical(keepsCase, tables);
    }

    public static AllowList of(Dialect dialect, Collection<String> catalogs, Collection<String> schemas, Collection<String> tables) {
        return new AllowList(dialect.quotedNamesKeepCase(), set(catalogs), set(schemas), set(tables));
    }

    /** Whether any list restricts what may be read. */
    public boolean restricts() {
        return !catalogs.isEmpty() || !schemas.isEmpty() || !tables.isEmpty();
    }

    /** A catalog as the engine names it; null (unknown) passes, as does any name when no catalog list is set. */
    public boolean catalogAllowed(String catalog) {
        return catalogs.isEmpty() || catalog == null || catalogs.contains(key(catalog));
    }

    /** A schema as the engine names it; null (unknown) passes, as does any name when no schema list is set. */
    public boolean schemaAllowed(String schema) {
        return schemas.isEmpty() || schema == null || schemas.contains(key(schema));
    }

    /**
     * Whether a table may be read, its parts as the engine names them (null where not known): its catalog and schema
     * are allowed, and the table list is empty or names it (bare, {@code schema.table} or {@code catalog.schema.table}).
     */
    public boolean tableAllowed(String catalog, String schema, String table) {
        if (!catalogAllowed(catalog) || !schemaAllowed(schema)) return false;
        if (tables.isEmpty()) return true;
        return tables.contains(key(table))
                || schema != null && tables.contains(key(schema, table))
                || schema != null && catalog != null && tables.contains(key(catalog, schema, table));
    }

    /**
     * Whether a bare table name stays inside the schema list: no list, or a known search path (the schemas the engine
     * resolves bare names in, as it names them: {@link SessionSchemas#searchPath}) whose every schema the list names.
     */
    public boolean bareNamesAllowed(List<String> path) {
        return schemas.isEmpty() || !path.isEmpty() && path.stream().allMatch(s -> s != null && schemas.contains(key(s)));
    }

    /** The canonical text of a name the engine reports, part by part (the parts as stored, never quoted). */
    public String key(String... parts) {
        StringBuilder out = new StringBuilder();
        for (String p : parts) {
            if (!out.isEmpty()) out.append('.');
            out.append(encode(keepsCase ? p : p.toLowerCase(Locale.ROOT)));
        }
        return out.toString();
    }

    /** The canonical text of an entry as configured: parts split on dots outside quotes, each folded as the engine would. */
    static String canonical(boolean keepsCase, String entry) {
        List<String> parts = new ArrayList<>();
        StringBuilder part = new StringBuilder();
        String s = entry.strip();
        int plainFrom = 0; // where the unquoted text not yet folded starts
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (ch == '"' || ch == '`') {
                int end = closing(s, i, ch);
                part.append(fold(keepsCase, s.substring(plainFrom, i), false));
                String quoted = end < 0 ? s.substring(i) : s.substring(i + 1, end).replace("" + ch + ch, "" + ch);
                part.append(fold(keepsCase, quoted, end >= 0));
                i = end < 0 ? s.length() : end;
                plainFrom = i + 1;
            } else if (ch == '.') {
                part.append(fold(keepsCase, s.substring(plainFrom, i), false));
                parts.add(part.toString());
                part.setLength(0);
                plainFrom = i + 1;
            }
        }
        if (plainFrom < s.length()) part.append(fold(keepsCase, s.substring(plainFrom), false));
        parts.add(part.toString());
        StringBuilder out = new StringBuilder();
        for (String p : parts) {
            if (!out.isEmpty()) out.append('.');
            out.append(encode(p));
        }
        return out.toString();
    }

    private static Set<String> canonical(boolean keepsCase, Set<String> entries) {
        if (entries == null || entries.isEmpty()) return Set.of();
        Set<String> out = new TreeSet<>();
        for (String e : entries) {
            if (e != null && !e.isBlank()) out.add(canonical(keepsCase, e));
        }
        return Collections.unmodifiableSet(out);
    }

    /**
     * Text of an entry as the engine reads it: quoted, as written where quoted names keep their case; unquoted, folded
     * the way that engine folds it (PostgreSQL: ASCII letters only, {@link Identifiers#foldUnquoted}); elsewhere lower
     * case, the engine comparing names ignoring case.
     */
    private static String fold(boolean keepsCase, String text, boolean quoted) {
        if (!keepsCase) return text.toLowerCase(Locale.ROOT);
        return quoted ? text : Identifiers.foldUnquoted(text);
    }

    /** A part in the canonical text: quoted (doubling inner quotes) only when plain text would say something else. */
    private static String encode(String part) {
        boolean plain = part.equals(part.toLowerCase(Locale.ROOT)) && part.indexOf('.') < 0 && part.indexOf('"') < 0
                && part.indexOf('`') < 0;
        return plain ? part : '"' + part.replace("\"", "\"\"") + '"';
    }

    /** The index of the quote closing the one at {@code open} (a doubled quote is part of the name), or -1. */
    private static int closing(String s, int open, char q) {
        for (int i = open + 1; i < s.length(); i++) {
            if (s.charAt(i) != q) continue;
            if (i + 1 < s.length() && s.charAt(i + 1) == q) {
                i++;
                continue;
            }
            return i;
        }
        return -1;
    }

    private static Set<String> set(Collection<String> names) {
        return names == null ? Set.of() : Set.copyOf(names.stream().filter(n -> n != null).toList());
    }
}
