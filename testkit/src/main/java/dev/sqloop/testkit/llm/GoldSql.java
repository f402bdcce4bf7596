package dev.sqloop.testkit.llm;

import dev.sqloop.testkit.engines.DefogQuestions;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Gold SQL for the oracle from a dataset: defog's sql-eval {@code questions.csv} (question, query, db_name, …).
 * sql-eval's conventions are resolved to one plain query: the first of several {@code ;}-separated accepted
 * queries, the first column of each {@code {a,b}} choice, and {@code GROUP BY {}} repeating those choices.
 */
public final class GoldSql {

    /** One dataset row. */
    public record Row(String question, String sql, String database, String category) {}

    private GoldSql() {}

    /** The defog questions with their first accepted gold query (alternatives resolved by {@link DefogQuestions}). */
    public static List<Row> fromDefogCsv(Path csv) {
        return DefogQuestions.load(csv).stream()
                .map(q -> new Row(q.question(), q.firstGold().strip(), q.database(), q.category()))
                .toList();
    }

    /** question → gold SQL, for {@link OracleResponder}. */
    public static Map<String, String> byQuestion(List<Row> rows) {
        Map<String, String> out = new LinkedHashMap<>();
        rows.forEach(r -> out.putIfAbsent(r.question(), r.sql()));
        return out;
    }
}
