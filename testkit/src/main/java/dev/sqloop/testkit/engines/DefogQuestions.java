package dev.sqloop.testkit.engines;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The defog dev questions and their gold SQL. Gold SQL marks accepted alternatives: {@code {a,b}} in a
 * SELECT list (either column), {@code GROUP BY {}} repeating that choice, and several whole queries
 * separated by {@code ;}. {@link #firstAlternative(String)} resolves all of them to the first choice.
 */
public final class DefogQuestions {
    private static final Pattern BRACES = Pattern.compile("\\{([^{}]*)}");

    /** One row of {@code questions.csv}; {@code index} is its 0-based position. */
    public record Question(int index, String question, String goldSql, String database, String category, String instructions) {
        /** The first accepted query, with the first alternative of every {@code {a,b}} choice. */
        public String firstGold() {
            return firstAlternative(goldSql);
        }
    }

    private DefogQuestions() {}

    public static List<Question> load() {
        return load(DefogDatasets.questionsCsv());
    }

    public static List<Question> load(Path csv) {
        try {
            List<List<String>> rows = parseCsv(Files.readString(csv));
            List<Question> out = new ArrayList<>();
            for (int i = 1; i < rows.size(); i++) {
                List<String> r = rows.get(i);
                if (r.size() < 4) continue;
                out.add(new Question(i - 1, r.get(0), r.get(1), r.get(2), r.get(3), r.size() > 4 ? r.get(4) : ""));
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The first of several {@code ;}-separated queries; in it, {@code {a,b}} → {@code a} and {@code {}} → that same {@code a}. */
    public static String firstAlternative(String gold) {
        String first = SqlScript.split(gold).get(0);
        Matcher m = BRACES.matcher(first);
        StringBuilder sb = new StringBuilder();
        String chosen = null;
        while (m.find()) {
            String inside = m.group(1).strip();
            String replacement;
            if (inside.isEmpty()) {
                replacement = chosen == null ? "" : chosen;
            } else {
                replacement = inside.split(",")[0].strip();
                chosen = replacement;
            }
            m.appendReplacement(sb, Matcher.quoteReplacement(replacement));
        }
        m.appendTail(sb);
        return sb.toString();
    }

    /** RFC 4180: commas, quoted fields with doubled quotes and embedded newlines. */
    static List<List<String>> parseCsv(String text) {
        List<List<String>> rows = new ArrayList<>();
        List<String> row = new ArrayList<>();
        StringBuilder field = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (quoted) {
                if (c == '"') {
                    if (i + 1 < text.length() && text.charAt(i + 1) == '"') {
                        field.append('"');
                        i++;
                    } else {
                        quoted = false;
                    }
                } else {
                    field.append(c);
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == ',') {
                row.add(field.toString());
                field.setLength(0);
            } else if (c == '\n' || c == '\r') {
                if (c == '\r' && i + 1 < text.length() && text.charAt(i + 1) == '\n') i++;
                row.add(field.toString());
                field.setLength(0);
                rows.add(row);
                row = new ArrayList<>();
            } else {
                field.append(c);
            }
        }
        if (field.length() > 0 || !row.isEmpty()) {
            row.add(field.toString());
            rows.add(row);
        }
        return rows;
    }
}
