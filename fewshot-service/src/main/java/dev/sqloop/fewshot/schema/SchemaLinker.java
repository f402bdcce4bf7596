package dev.sqloop.fewshot.schema;

import dev.sqloop.common.message.LinkedSchema;
import dev.sqloop.store.Embedder;
import dev.sqloop.fewshot.Questions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;

/**
 * Links a question to the part of a datasource's schema it needs: tables ranked by the similarity of the question
 * to each table's and each column's name and description (embedded once per datasource and cached), plus lexical
 * matches of table names, column names and sample values. The result travels in the message for every attempt.
 */
public final class SchemaLinker {

    /** How many tables and columns a linked schema keeps, and how long a datasource's schema is cached. */
    public record Settings(int maxTables, int maxColumns, double margin, Duration cacheTtl) {
        public static final Settings DEFAULTS = new Settings(4, 25, 0.35, Duration.ofMinutes(10));
    }

    private record Indexed(SchemaSource.TableInfo table, float[] vector, List<float[]> columnVectors,
                           List<Set<String>> columnWords, Set<String> tableWords) {}

    private record Cached(List<Indexed> tables, Instant loadedAt) {}

    private record Ranked(Indexed table, double score, double[] columnScores) {}

    private final SchemaSource source;
    private final Embedder embedder;
    private final Settings settings;
    private final Clock clock;
    private final Map<String, Cached> cache = new ConcurrentHashMap<>();
    private final Map<String, Object> loadLocks = new ConcurrentHashMap<>();

    public SchemaLinker(SchemaSource source, Embedder embedder, Settings settings, Clock clock) {
        this.source = source;
        this.embedder = embedder;
        this.settings = settings;
        this.clock = clock;
    }

    /** The linked schema for a question whose vector the caller already computed; empty when the datasource has no tables. */
    public LinkedSchema link(String datasource, String question, float[] questionVector) throws Exception {
        List<Indexed> tables = tables(datasource);
        if (tables.isEmpty()) return new LinkedSchema(List.of());
        Set<String> words = stems(Questions.words(question));
        String lowerQuestion = question.toLowerCase(Locale.ROOT);
        List<Ranked> ranked = new ArrayList<>();
        for (Indexed t : tables) ranked.add(rank(t, questionVector, words, lowerQuestion));
        ranked.sort(Comparator.comparingDouble(Ranked::score).reversed());
        double best = ranked.getFirst().score();
        List<LinkedSchema.Table> out = new ArrayList<>();
        for (Ranked r : ranked) {
            if (out.size() >= settings.maxTables() || (!out.isEmpty() && r.score() < best - settings.margin())) break;
            out.add(toLinked(r));
        }
        return new LinkedSchema(out);
    }

    /** Drops the cached schema of a datasource (after a migration). */
    public void invalidate(String datasource) {
        cache.remove(datasource);
    }

    private List<Indexed> tables(String datasource) throws Exception {
        Cached c = cache.get(datasource);
        if (fresh(c)) return c.tables();
        // Single flight: hundreds of questions arrive at once on a cold cache; one loads, the rest wait for it
        // (without this each re-read the schema and re-embedded every column: ~50 s per question at 40 in flight).
        synchronized (loadLocks.computeIfAbsent(datasource, k -> new Object())) {
            c = cache.get(datasource);
            if (fresh(c)) return c.tables();
            return load(datasource);
        }
    }

    private boolean fresh(Cached c) {
        return c != null && c.loadedAt().plus(settings.cacheTtl()).isAfter(clock.instant());
    }

    private List<Indexed> load(String datasource) throws Exception {
        List<SchemaSource.TableInfo> infos = source.tables(datasource);
        List<String> texts = new ArrayList<>();
        for (SchemaSource.TableInfo t : infos) {
            texts.add(tableText(t));
            for (SchemaSource.ColumnInfo col : t.columns()) texts.add(columnText(t, col));
        }
        List<float[]> vectors = embedder.embedAll(texts);
        List<Indexed> indexed = new ArrayList<>();
        int i = 0;
        for (SchemaSource.TableInfo t : infos) {
            float[] tv = vectors.get(i++);
            List<float[]> cv = new ArrayList<>();
            List<Set<String>> cw = new ArrayList<>();
            for (SchemaSource.ColumnInfo col : t.columns()) {
                cv.add(vectors.get(i++));
                cw.add(stems(identifierWords(col.name())));
            }
            indexed.add(new Indexed(t, tv, cv, cw, stems(identifierWords(t.name()))));
        }
        cache.put(datasource, new Cached(List.copyOf(indexed), clock.instant()));
        return indexed;
    }

    private static Ranked rank(Indexed t, float[] q, Set<String> questionWords, String lowerQuestion) {
        double[] columnScores = new double[t.columnVectors().size()];
        double bestColumn = 0;
        int lexicalColumns = 0;
        boolean sampleHit = false;
        for (int j = 0; j < columnScores.length; j++) {
            Set<String> cw = t.columnWords().get(j);
            boolean lexical = !cw.isEmpty() && questionWords.containsAll(cw);
            boolean sample = t.table().columns().get(j).sampleValues().stream()
                    .anyMatch(v -> v.length() >= 3 && lowerQuestion.contains(v.toLowerCase(Locale.ROOT)));
            columnScores[j] = Embedder.cosine(q, t.columnVectors().get(j)) + (lexical ? 0.3 : 0) + (sample ? 0.3 : 0);
            bestColumn = Math.max(bestColumn, Embedder.cosine(q, t.columnVectors().get(j)));
            if (lexical) lexicalColumns++;
            sampleHit |= sample;
        }
        boolean tableLexical = !t.tableWords().isEmpty() && questionWords.containsAll(t.tableWords());
        double score = Embedder.cosine(q, t.vector()) + 0.5 * bestColumn + (tableLexical ? 0.35 : 0)
                + 0.1 * Math.min(2, lexicalColumns) + (sampleHit ? 0.2 : 0);
        return new Ranked(t, score, columnScores);
    }

    private LinkedSchema.Table toLinked(Ranked r) {
        List<SchemaSource.ColumnInfo> cols = r.table().table().columns();
        List<Integer> keep = IntStream.range(0, cols.size()).boxed().toList();
        if (cols.size() > settings.maxColumns()) {
            // keep the best-matching columns, in the table's own order so keys stay first
            keep = keep.stream().sorted(Comparator.comparingDouble((Integer j) -> r.columnScores()[j]).reversed())
                    .limit(settings.maxColumns()).sorted().toList();
        }
        List<LinkedSchema.Column> linked = keep.stream().map(cols::get)
                .map(c -> new LinkedSchema.Column(c.name(), c.type(), c.description(), c.sampleValues())).toList();
        return new LinkedSchema.Table(r.table().table().name(), r.table().table().description(), linked);
    }

    private static String tableText(SchemaSource.TableInfo t) {
        StringBuilder s = new StringBuilder(String.join(" ", identifierWords(t.name())));
        if (!t.description().isBlank()) s.append(": ").append(t.description());
        s.append(". Columns: ");
        t.columns().forEach(c -> s.append(String.join(" ", identifierWords(c.name()))).append(", "));
        return s.toString();
    }

    private static String columnText(SchemaSource.TableInfo t, SchemaSource.ColumnInfo c) {
        String s = String.join(" ", identifierWords(t.name())) + " " + String.join(" ", identifierWords(c.name()));
        return c.description().isBlank() ? s : s + ": " + c.description();
    }

    /** {@code orderDate}, {@code order_date} → [order, date]. */
    static Set<String> identifierWords(String identifier) {
        Set<String> out = new java.util.LinkedHashSet<>();
        for (String w : identifier.replaceAll("([a-z0-9])([A-Z])", "$1 $2").toLowerCase(Locale.ROOT).split("[^a-z0-9]+")) {
            if (!w.isEmpty()) out.add(w);
        }
        return out;
    }

    /** A crude plural strip so "orders" matches table "order" and "cities" matches "city". */
    static Set<String> stems(Set<String> words) {
        Set<String> out = new HashSet<>();
        for (String w : words) {
            if (w.length() > 4 && w.endsWith("ies")) out.add(w.substring(0, w.length() - 3) + "y");
            else if (w.length() > 3 && w.endsWith("s") && !w.endsWith("ss")) out.add(w.substring(0, w.length() - 1));
            else out.add(w);
        }
        return out;
    }
}
