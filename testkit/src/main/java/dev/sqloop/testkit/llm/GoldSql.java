package dev.sqloop.testkit.llm;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Gold SQL for the oracle from a dataset: defog's sql-eval {@code questions.csv} (question, query, db_name, …).
 * sql-eval's conventions are resolved to one plain query: the first of several {@code ;}-separated accepted
 * queries, the first column of each {@code {a,b}} choice, and {@code GROUP BY {}} repeating those choices.
 */
public final class GoldSql {
    private static final Pattern CHOICE = Pattern.compile("\\{([^{}]*)}");

    /** One dataset row. */
    public record Row(String question, String sql, String database, String category) {}

    private GoldSql() {}

    public static List<Row> fromDefogCsv(Path csv) throws IOException {
        List<List<String>> records = parseCsv(Files.readString(csv, StandardCharsets.UTF_8));
        List<String> header = records.getFirst();
        int q = header.indexOf("question");
        int s = header.indexOf("query");
        int db = header.indexOf("db_name");
        int cat = header.indexOf("query_category");
        List<Row> rows = new ArrayList<>();
        for (List<String> r : records.subList(1, records.size())) {
            if (r.size() <= Math.max(q, s)) continue;
            rows.add(new Row(r.get(q), resolve(r.get(s)), db < 0 ? null : r.get(db), cat < 0 ? null : r.get(cat)));
        }
        return rows;
    }

    /** question → gold SQL, for {@link OracleResponder}. */
    public static Map<String, String> byQuestion(List<Row> rows) {
        Map<String, String> out = new LinkedHashMap<>();
        rows.forEach(r -> out.putIfAbsent(r.question(), r.sql()));
        return out;
    }

    static String resolve(String query) {
        String first = firstStatement(query);
        List<String> chosen = new ArrayList<>();
        Matcher m = CHOICE.matcher(first);
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            String inner = m.group(1).strip();
            String replacement;
            if (inner.isEmpty()) {
                replacement = String.join(", ", chosen);
            } else {
                replacement = inner.split(",")[0].strip();
                chosen.add(replacement);
            }
            m.appendReplacement(sb, Matcher.quoteReplacement(replacement));
        }
        m.appendTail(sb);
        // "GROUP BY {}" whose choice was aliased away can leave "GROUP BY" with nothing; keep the query valid.
        return sb.toString().replaceAll("(?i)GROUP BY\\s*(ORDER|LIMIT|HAVING|$)", "$1").strip();
    }

    private static String firstStatement(String query) {
        boolean quoted = false;
        for (int i = 0; i < query.length(); i++) {
            char c = query.charAt(i);
            if (c == '\'') quoted = !quoted;
            if (c == ';' && !quoted) return query.substring(0, i);
        }
        return query;
    }

    /** RFC 4180: quoted fields may hold commas, newlines and doubled quotes. */
    static List<List<String>> parseCsv(String text) {
        List<List<String>> records = new ArrayList<>();
        List<String> record = new ArrayList<>();
        StringBuilder field = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (quoted) {
                if (c == '"' && i + 1 < text.length() && text.charAt(i + 1) == '"') {
                    field.append('"');
                    i++;
                } else if (c == '"') {
                    quoted = false;
                } else {
                    field.append(c);
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == ',') {
                record.add(field.toString());
                field.setLength(0);
            } else if (c == '\n' || c == '\r') {
                if (c == '\r' && i + 1 < text.length() && text.charAt(i + 1) == '\n') i++;
                record.add(field.toString());
                field.setLength(0);
                records.add(record);
                record = new ArrayList<>();
            } else {
                field.append(c);
            }
        }
        if (!field.isEmpty() || !record.isEmpty()) {
            record.add(field.toString());
            records.add(record);
        }
        return records;
    }
}
