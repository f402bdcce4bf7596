package dev.sqloop.generator;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The projection contract of 002_b697e35c835c14b5.txt, off by default: when the question enumerates the fields it
 * wants ("show the name, email and city of customers"), SELECT items it did not ask for are pruned and the
 * question's order is kept. It only acts when it is sure: a plain top-level SELECT (no DISTINCT, no *), and
 * every requested field matching exactly one item. Otherwise the SQL is returned unchanged.
 */
public final class ProjectionContract {
    public static final ProjectionContract OFF = new ProjectionContract(false);
    public static final ProjectionContract ON = new ProjectionContract(true);

    private static final Pattern ENUMERATION = Pattern.compile(
            "(?i)\\b(?:show|list|give|return|get|display|fetch|find)\\s+(?:me\\s+)?(?:the\\s+|all\\s+)?(.+?)\\s+(?:of|for|from|in|where|with|per|whose)\\s");
    private static final Pattern SPLIT = Pattern.compile("\\s*(?:,\\s*(?:and\\s+)?|\\s+and\\s+)\\s*", Pattern.CASE_INSENSITIVE);
    private static final Pattern ALIAS = Pattern.compile("(?is).*?\\s+(?:as\\s+)?\"?([A-Za-z_][A-Za-z0-9_]*)\"?\\s*$");
    private static final Pattern COLUMN_REF = Pattern.compile("(?:[A-Za-z_][A-Za-z0-9_]*\\.)*\"?([A-Za-z_][A-Za-z0-9_]*)\"?");

    private final boolean enabled;

    private ProjectionContract(boolean enabled) {
        this.enabled = enabled;
    }

    public static ProjectionContract of(boolean enabled) {
        return enabled ? ON : OFF;
    }

    public String enforce(String sql, String question) {
        if (!enabled) return sql;
        List<String> fields = requestedFields(question);
        if (fields.size() < 2) return sql;
        int[] list = selectList(sql);
        if (list == null) return sql;
        List<String> items = splitTopLevel(sql.substring(list[0], list[1]));
        if (items.stream().anyMatch(i -> i.strip().equals("*") || i.strip().endsWith(".*"))) return sql;
        Map<String, String> byName = new LinkedHashMap<>();
        for (String item : items) byName.put(outputName(item.strip()), item.strip());
        List<String> kept = new ArrayList<>();
        for (String field : fields) {
            List<String> matches = byName.entrySet().stream().filter(e -> same(field, e.getKey())).map(Map.Entry::getValue).toList();
            if (matches.size() != 1 || kept.contains(matches.getFirst())) return sql;
            kept.add(matches.getFirst());
        }
        if (kept.size() == items.size() && kept.equals(items.stream().map(String::strip).toList())) return sql;
        return sql.substring(0, list[0]) + " " + String.join(", ", kept) + " " + sql.substring(list[1]).stripLeading();
    }

    static List<String> requestedFields(String question) {
        Matcher m = ENUMERATION.matcher(question + " ");
        if (!m.find()) return List.of();
        String list = m.group(1);
        if (!list.contains(",") && !list.toLowerCase(Locale.ROOT).contains(" and ")) return List.of();
        List<String> out = new ArrayList<>();
        for (String f : SPLIT.split(list)) {
            String norm = normalize(f.replaceFirst("(?i)^(the|their|its|each)\\s+", ""));
            if (!norm.isEmpty()) out.add(norm);
        }
        return out;
    }

    /** Start and end of the top-level select list of a statement starting with SELECT, or null. */
    private static int[] selectList(String sql) {
        Matcher start = Pattern.compile("(?is)^\\s*select\\s+").matcher(sql);
        if (!start.find()) return null;
        if (sql.substring(start.end()).toLowerCase(Locale.ROOT).startsWith("distinct")) return null;
        int depth = 0;
        boolean quoted = false;
        for (int i = start.end(); i < sql.length(); i++) {
            char c = sql.charAt(i);
            if (c == '\'') quoted = !quoted;
            if (quoted) continue;
            if (c == '(') depth++;
            else if (c == ')') depth--;
            else if (depth == 0 && sql.regionMatches(true, i, " from ", 0, 6)) return new int[] {start.end() - 1, i};
            else if (depth == 0 && (c == '\n' || c == '\t') && sql.regionMatches(true, i + 1, "from", 0, 4)) return new int[] {start.end() - 1, i};
        }
        return null;
    }

    private static List<String> splitTopLevel(String list) {
        List<String> out = new ArrayList<>();
        int depth = 0;
        boolean quoted = false;
        int from = 0;
        for (int i = 0; i < list.length(); i++) {
            char c = list.charAt(i);
            if (c == '\'') quoted = !quoted;
            if (quoted) continue;
            if (c == '(') depth++;
            else if (c == ')') depth--;
            else if (c == ',' && depth == 0) {
                out.add(list.substring(from, i));
                from = i + 1;
            }
        }
        out.add(list.substring(from));
        return out;
    }

    private static String outputName(String item) {
        Matcher ref = COLUMN_REF.matcher(item);
        if (ref.matches()) return normalize(ref.group(1));
        Matcher alias = ALIAS.matcher(item);
        return alias.matches() && item.contains(" ") ? normalize(alias.group(1)) : normalize(item);
    }

    private static boolean same(String field, String name) {
        return field.equals(name) || singular(field).equals(singular(name));
    }

    private static String singular(String s) {
        if (s.endsWith("ies")) return s.substring(0, s.length() - 3) + "y";
        return s.endsWith("s") && !s.endsWith("ss") ? s.substring(0, s.length() - 1) : s;
    }

    private static String normalize(String s) {
        return s.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "_").replaceAll("^_+|_+$", "");
    }
}
