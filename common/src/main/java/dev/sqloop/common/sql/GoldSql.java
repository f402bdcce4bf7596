package dev.sqloop.common.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The accepted forms of a gold query, as defog's sql-eval reads them: several {@code ;}-separated queries are each
 * accepted, and in each a {@code {a, b}} choice stands for either column ({@code {}} repeats the choice made before it);
 * every combination is one accepted query (capped at {@value #MAX_FORMS}). Used by the example seeder (the first form
 * of a defog gold query becomes the example's SQL) and by {@code ./sqloop eval} (every form is accepted).
 */
public final class GoldSql {
    static final int MAX_FORMS = 64;
    private static final Pattern BRACES = Pattern.compile("\\{([^{}]*)\\}");

    private GoldSql() {}

    public static List<String> forms(String gold) {
        List<String> out = new ArrayList<>();
        for (String query : statements(gold)) {
            for (String form : expand(query)) {
                if (out.size() >= MAX_FORMS) return out;
                if (!out.contains(form)) out.add(form);
            }
        }
        return out;
    }

    /** The first accepted form: the first query, each choice its first column; empty for a blank gold. */
    public static String first(String gold) {
        List<String> forms = forms(gold);
        return forms.isEmpty() ? "" : forms.getFirst();
    }

    private static List<String> expand(String query) {
        List<List<String>> groups = new ArrayList<>();
        Matcher m = BRACES.matcher(query);
        while (m.find()) {
            String inside = m.group(1).strip();
            groups.add(inside.isEmpty() ? List.of() : List.of(inside.split("\\s*,\\s*")));
        }
        if (groups.isEmpty()) return List.of(query);
        List<String> out = new ArrayList<>();
        int[] choice = new int[groups.size()];
        while (out.size() < MAX_FORMS) {
            StringBuilder sb = new StringBuilder();
            Matcher r = BRACES.matcher(query);
            int g = 0;
            String last = "";
            while (r.find()) {
                List<String> options = groups.get(g);
                String pick = options.isEmpty() ? last : options.get(choice[g]);
                last = pick;
                r.appendReplacement(sb, Matcher.quoteReplacement(pick));
                g++;
            }
            r.appendTail(sb);
            out.add(sb.toString());
            int i = groups.size() - 1; // next combination, odometer style over the non-empty groups
            while (i >= 0 && (groups.get(i).isEmpty() || ++choice[i] >= groups.get(i).size())) {
                if (!groups.get(i).isEmpty()) choice[i] = 0;
                i--;
            }
            if (i < 0) break;
        }
        return out;
    }

    /** Splits on {@code ;} outside quotes; blank parts dropped. */
    public static List<String> statements(String sql) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        char quote = 0;
        for (char c : sql.toCharArray()) {
            if (quote != 0) {
                if (c == quote) quote = 0;
            } else if (c == '\'' || c == '"') {
                quote = c;
            } else if (c == ';') {
                if (!cur.toString().isBlank()) out.add(cur.toString().strip());
                cur.setLength(0);
                continue;
            }
            cur.append(c);
        }
        if (!cur.toString().isBlank()) out.add(cur.toString().strip());
        return out;
    }
}
