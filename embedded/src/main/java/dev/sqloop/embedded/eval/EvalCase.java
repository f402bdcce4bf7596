package dev.sqloop.embedded.eval;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.sqloop.common.JsonCodec;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One evaluation question: its gold SQL (every accepted form, see {@link dev.sqloop.common.sql.GoldSql}), the sqloop datasource it runs on,
 * its query category (for the breakdown), and the instructions that come with the question (defog's {@code instructions}
 * column: "filter names using ILIKE", which joins to use; the gold was written to them, so they reach the prompt).
 *
 * @param instructions null when the question has none
 */
public record EvalCase(String id, String question, String gold, String datasource, String category, String instructions) {
    public EvalCase {
        instructions = instructions == null || instructions.isBlank() ? null : instructions.strip();
    }

    /** A question without instructions. */
    public EvalCase(String id, String question, String gold, String datasource, String category) {
        this(id, question, gold, datasource, category, null);
    }

    /**
     * Reads a dataset by its extension: defog CSV ({@code question, query, db_name, query_category, instructions}), JSONL
     * ({@code question}, {@code gold_sql}/{@code sql}/{@code query}/{@code expected_sql}, {@code datasource}/{@code db_name},
     * {@code category}, {@code id}, {@code instructions}) or YAML {@code cases: [{id, question, expected_sql, tags, datasource,
     * instructions or notes}]}. Instructions (a YAML case's {@code notes} too) are part of the question: they go to the LLM.
     *
     * @param datasources the dataset's database name → sqloop datasource; a name not in it is used as is
     * @param fallback the datasource of rows that name none (may be null: such rows are an error)
     */
    public static List<EvalCase> load(Path file, Map<String, String> datasources, String fallback) throws IOException {
        String name = file.getFileName().toString().toLowerCase(java.util.Locale.ROOT);
        List<EvalCase> out = new ArrayList<>();
        if (name.endsWith(".csv")) {
            CsvMapper mapper = new CsvMapper();
            try (Reader in = Files.newBufferedReader(file);
                 MappingIterator<Map<String, String>> it = mapper.readerForMapOf(String.class)
                         .with(CsvSchema.emptySchema().withHeader()).readValues(in)) {
                while (it.hasNext()) {
                    Map<String, String> r = it.next();
                    out.add(of(out.size(), r.get("id"), r.get("question"), first(r.get("query"), r.get("gold_sql"), r.get("sql")),
                            first(r.get("db_name"), r.get("datasource")), first(r.get("query_category"), r.get("category")),
                            r.get("instructions"), datasources, fallback, file));
                }
            }
        } else if (name.endsWith(".jsonl") || name.endsWith(".ndjson")) {
            for (String line : Files.readAllLines(file)) {
                if (line.isBlank()) continue;
                JsonNode n = JsonCodec.mapper().readTree(line);
                out.add(of(out.size(), text(n, "id"), text(n, "question"),
                        first(text(n, "gold_sql"), text(n, "sql"), text(n, "query"), text(n, "expected_sql")),
                        first(text(n, "datasource"), text(n, "db_name")), first(text(n, "category"), text(n, "query_category")),
                        text(n, "instructions"), datasources, fallback, file));
            }
        } else if (name.endsWith(".yaml") || name.endsWith(".yml")) {
            JsonNode root = new YAMLMapper().readTree(file.toFile());
            JsonNode cases = root == null ? null : root.path("cases");
            if (cases == null || !cases.isArray()) throw new IOException(file + " has no 'cases' list");
            for (JsonNode c : cases) {
                String category = c.path("tags").isArray() && !c.path("tags").isEmpty() ? c.path("tags").get(0).asText() : text(c, "category");
                out.add(of(out.size(), text(c, "id"), text(c, "question"), text(c, "expected_sql"), text(c, "datasource"), category,
                        first(text(c, "instructions"), text(c, "notes")), datasources, fallback, file));
            }
        } else {
            throw new IOException("cannot read " + file + ": expected .csv (defog), .jsonl or .yaml");
        }
        if (out.isEmpty()) throw new IOException(file + " holds no questions");
        return List.copyOf(out);
    }

    private static EvalCase of(int index, String id, String question, String gold, String db, String category, String instructions,
                               Map<String, String> datasources, String fallback, Path file) throws IOException {
        String where = file.getFileName() + " row " + (index + 1);
        if (question == null || question.isBlank()) throw new IOException(where + ": no question");
        if (gold == null || gold.isBlank()) throw new IOException(where + ": no gold SQL");
        String ds = db == null || db.isBlank() ? fallback : datasources.getOrDefault(db, db);
        if (ds == null) throw new IOException(where + ": no datasource (give the row one, or --datasource NAME)");
        return new EvalCase(id == null || id.isBlank() ? "q" + (index + 1) : id, question.strip(), gold.strip(), ds,
                category == null || category.isBlank() ? "uncategorized" : category, instructions);
    }

    private static String text(JsonNode n, String field) {
        return n.hasNonNull(field) ? n.get(field).asText() : null;
    }

    private static String first(String... values) {
        for (String v : values) if (v != null && !v.isBlank()) return v;
        return null;
    }
}
