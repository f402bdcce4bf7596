package dev.sqloop.fewshot;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.sqloop.common.sql.GoldSql;
import dev.sqloop.store.Embedder;
import dev.sqloop.store.ExampleStore;
import dev.sqloop.store.StoredExample;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Seeds examples from a file, idempotently (ids come from datasource + normalized question): the YAML benchmark
 * format {@code cases: [{id, question, expected_sql, tags}]}, CSV with {@code question, query, db_name} (defog's
 * questions.csv) and JSONL with {@code question} and {@code sql}/{@code query}/{@code expected_sql} and
 * {@code datasource}/{@code db_name}. Cases without SQL, questions marked wrong and questions a curator already
 * answered (a {@code manual} example: posted, or saved by feedback) are skipped: re-seeding must not overwrite a
 * curated example and drop its owner, notes and tags. Older seeds and auto-captured examples are replaced.
 */
public final class ExampleSeeder {
    private static final int BATCH = 64;

    /** What one seeding run did. */
    public record Report(int read, int seeded, int skipped) {}

    /** One row of a seed file: the datasource it is for (its own, else the default), the question and its SQL (either may be blank). */
    public record Row(String datasource, String question, String sql) {}

    private final Embedder embedder;
    private final ExampleStore store;
    private final Clock clock;

    public ExampleSeeder(Embedder embedder, ExampleStore store, Clock clock) {
        this.embedder = embedder;
        this.store = store;
        this.clock = clock;
    }

    /**
     * Seeds from {@code file} by its extension ({@code .yaml}/{@code .yml}, {@code .csv}, {@code .jsonl}). Rows
     * without their own datasource use {@code defaultDatasource}.
     */
    public Report seed(Path file, String defaultDatasource, String dialect) throws IOException {
        return store(read(file, defaultDatasource).stream().map(r -> new String[] {r.datasource(), r.question(), r.sql()}).toList(), dialect);
    }

    /**
     * The rows of a seed file by its extension ({@code .yaml}/{@code .yml}, {@code .csv}, {@code .jsonl}), each gold
     * query in its first accepted form, nothing stored: what {@code ./sqloop seed} sends through a gateway.
     */
    public static List<Row> read(Path file, String defaultDatasource) throws IOException {
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        List<String[]> rows; // {datasource, question, sql}
        if (name.endsWith(".yaml") || name.endsWith(".yml")) rows = yaml(file, defaultDatasource);
        else if (name.endsWith(".csv")) rows = csv(file, defaultDatasource);
        else if (name.endsWith(".jsonl") || name.endsWith(".ndjson")) rows = jsonl(file, defaultDatasource);
        else throw new IllegalArgumentException("cannot seed " + file + ": expected .yaml, .yml, .csv or .jsonl");
        return rows.stream().map(r -> new Row(r[0], r[1], r[2])).toList();
    }

    private Report store(List<String[]> rows, String dialect) {
        List<StoredExample> pending = new ArrayList<>();
        int skipped = 0;
        for (String[] r : rows) {
            if (r[0] == null || r[0].isBlank() || r[1] == null || r[1].isBlank() || r[2] == null || r[2].isBlank()
                    || store.isMarkedWrong(r[0], r[1]) || curated(r[0], r[1])) {
                skipped++;
                continue;
            }
            pending.add(new StoredExample(r[0], r[1].strip(), r[2].strip(), dialect, StoredExample.SEED, clock.instant()));
        }
        for (int i = 0; i < pending.size(); i += BATCH) {
            List<StoredExample> batch = pending.subList(i, Math.min(pending.size(), i + BATCH));
            store.upsertAll(batch, embedder.embedAll(batch.stream().map(StoredExample::question).toList()));
        }
        return new Report(rows.size(), pending.size(), skipped);
    }

    /** What an import did: pairs read, added or changed, already stored as they are, skipped, and refused with reasons. */
    public record Import(int read, int added, int unchanged, int skipped, List<String> refused) {}

    /**
     * Imports pairs from another system's store as seeds, each checked first as the fewshot service checks every example
     * it stores ({@link ExampleChecks}: one read-only query as the validator's parser reads it in the datasource's
     * dialect): a refused pair is never stored and its reason is reported. Idempotent: a seed already stored with the
     * same SQL is left as it is (counted unchanged); pairs without question, SQL or datasource, questions marked wrong
     * and curated examples are skipped, as {@link #seed} skips them, and so is a later pair of a question already read
     * (the first one wins, run after run).
     *
     * @param labels what to call each pair in a refusal (its id in the source), by position
     * @param dialectOf the dialect of a datasource's examples
     */
    public Import importPairs(List<Row> rows, List<String> labels, java.util.function.Function<String, String> dialectOf) {
        List<StoredExample> pending = new ArrayList<>();
        List<String> refused = new ArrayList<>();
        int skipped = 0;
        int unchanged = 0;
        java.util.Set<java.util.UUID> seen = new java.util.HashSet<>();
        for (int i = 0; i < rows.size(); i++) {
            Row r = rows.get(i);
            if (r.datasource() == null || r.datasource().isBlank() || r.question() == null || r.question().isBlank()
                    || r.sql() == null || r.sql().isBlank() || !seen.add(dev.sqloop.common.message.ExampleIds.of(r.datasource(), r.question(), null))
                    || store.isMarkedWrong(r.datasource(), r.question()) || curated(r.datasource(), r.question())) {
                skipped++;
                continue;
            }
            String dialect = dialectOf.apply(r.datasource());
            java.util.Optional<String> why = ExampleChecks.whyNotStorable(r.question(), r.sql(), dialect);
            if (why.isPresent()) {
                refused.add(labels.get(i) + " (\"" + shorten(r.question()) + "\"): " + why.get());
                continue;
            }
            String sql = r.sql().strip();
            boolean same = store.find(r.datasource(), r.question()).map(e -> StoredExample.SEED.equals(e.source())
                    && e.sql().equals(sql) && e.dialect().equals(dialect)).orElse(false);
            if (same) {
                unchanged++;
                continue;
            }
            pending.add(new StoredExample(r.datasource(), r.question().strip(), sql, dialect, StoredExample.SEED, clock.instant()));
        }
        for (int i = 0; i < pending.size(); i += BATCH) {
            List<StoredExample> batch = pending.subList(i, Math.min(pending.size(), i + BATCH));
            store.upsertAll(batch, embedder.embedAll(batch.stream().map(StoredExample::question).toList()));
        }
        return new Import(rows.size(), pending.size(), unchanged, skipped, List.copyOf(refused));
    }

    private static String shorten(String s) {
        String one = s.strip().replaceAll("\\s+", " ");
        return one.length() <= 60 ? one : one.substring(0, 59) + "…";
    }

    private boolean curated(String datasource, String question) {
        return store.find(datasource, question).map(e -> StoredExample.MANUAL.equals(e.source())).orElse(false);
    }

    private static List<String[]> yaml(Path file, String datasource) throws IOException {
        JsonNode root = new YAMLMapper().readTree(file.toFile());
        List<String[]> rows = new ArrayList<>();
        JsonNode cases = root == null ? null : root.path("cases");
        if (cases == null || !cases.isArray()) throw new IOException(file + " has no 'cases' list");
        for (JsonNode c : cases) {
            String ds = c.hasNonNull("datasource") ? c.get("datasource").asText() : datasource;
            rows.add(new String[] {ds, c.path("question").asText(""), c.path("expected_sql").asText("")});
        }
        return rows;
    }

    private static List<String[]> csv(Path file, String datasource) throws IOException {
        List<String[]> rows = new ArrayList<>();
        CsvMapper mapper = new CsvMapper();
        try (Reader in = Files.newBufferedReader(file);
             MappingIterator<Map<String, String>> it = mapper.readerForMapOf(String.class)
                     .with(CsvSchema.emptySchema().withHeader()).readValues(in)) {
            while (it.hasNext()) {
                Map<String, String> r = it.next();
                rows.add(new String[] {firstNonBlank(r.get("db_name"), r.get("datasource"), datasource), r.get("question"),
                        firstAlternative(firstNonBlank(r.get("query"), r.get("sql"), r.get("expected_sql")))});
            }
        }
        return rows;
    }

    private static List<String[]> jsonl(Path file, String datasource) throws IOException {
        ObjectMapper mapper = new ObjectMapper();
        List<String[]> rows = new ArrayList<>();
        for (String line : Files.readAllLines(file)) {
            if (line.isBlank()) continue;
            JsonNode n = mapper.readTree(line);
            rows.add(new String[] {firstNonBlank(text(n, "datasource"), text(n, "db_name"), datasource), text(n, "question"),
                    firstAlternative(firstNonBlank(text(n, "sql"), text(n, "query"), text(n, "expected_sql")))});
        }
        return rows;
    }

    /**
     * The first accepted form of a gold query: of several {@code ;}-separated queries the first, and in it each
     * {@code {a, b}} choice replaced by {@code a}, with {@code {}} repeating the choice made before it (sql-eval).
     */
    public static String firstAlternative(String gold) {
        return gold == null ? null : GoldSql.first(gold);
    }

    private static String text(JsonNode n, String field) {
        return n.hasNonNull(field) ? n.get(field).asText() : null;
    }

    private static String firstNonBlank(String... values) {
        for (String v : values) if (v != null && !v.isBlank()) return v;
        return null;
    }
}
