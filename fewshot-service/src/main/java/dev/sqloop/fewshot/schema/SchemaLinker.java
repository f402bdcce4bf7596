package dev.sqloop.fewshot.schema;

import dev.sqloop.common.message.ExampleIds;
import dev.sqloop.common.message.LinkedSchema;
import dev.sqloop.common.runtime.RefreshingValue;
import dev.sqloop.common.runtime.Stage;
import dev.sqloop.store.Embedder;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.stream.IntStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Links a question to the part of a datasource's schema it needs. A schema whose prompt section fits the token
 * budget is given whole: a dropped table costs the model the answer, while a few hundred tokens cost little.
 * A larger one is ranked by the similarity of the question to each table's and each column's name and
 * description (embedded once per datasource and cached), plus lexical matches of table names, column names and
 * sample values; the best tables are kept, then the tables that join two kept tables (bridge tables such as
 * {@code writes} between {@code author} and {@code paper}), then the next-ranked and joined tables while the budget
 * lasts. A wide table keeps its key and join columns. The result travels in the message, so every retry reuses it.
 */
public final class SchemaLinker {
    private static final Logger log = LoggerFactory.getLogger(SchemaLinker.class);
    /** After a failed reload, how long the schema in use serves before the next try. */
    static final Duration RELOAD_RETRY_PAUSE = Duration.ofSeconds(30);

    /**
     * How a linked schema is sized, and how long a datasource's schema is cached.
     *
     * @param maxTables tables always kept by rank when the schema is over budget (more join in while the budget lasts)
     * @param maxColumns columns per table beyond which a table keeps its key, join and best-matching columns only
     * @param margin ranked tables scoring below the best by more than this are not kept by rank alone
     * @param tokenBudget estimated tokens ({@link LinkedSchema#estimateTokens}) of the schema section: a whole schema
     *     up to this size is given whole, and a linked one is filled up to it
     */
    public record Settings(int maxTables, int maxColumns, double margin, Duration cacheTtl, int tokenBudget) {
        public static final Settings DEFAULTS = new Settings(4, 25, 0.35, Duration.ofMinutes(10), 1200);

        /**
         * {@code SQLOOP_SCHEMA_TOKEN_BUDGET}, {@code SQLOOP_SCHEMA_MAX_TABLES}, {@code SQLOOP_SCHEMA_MAX_COLUMNS},
         * {@code SQLOOP_SCHEMA_CACHE_TTL}.
         */
        public static Settings fromEnv(dev.sqloop.common.config.EnvConfig env) {
            return new Settings(env.integer("SQLOOP_SCHEMA_MAX_TABLES", DEFAULTS.maxTables(), 1, 1000),
                    env.integer("SQLOOP_SCHEMA_MAX_COLUMNS", DEFAULTS.maxColumns(), 1, 10_000), DEFAULTS.margin(),
                    env.duration("SQLOOP_SCHEMA_CACHE_TTL", DEFAULTS.cacheTtl()), env.integer("SQLOOP_SCHEMA_TOKEN_BUDGET", DEFAULTS.tokenBudget(), 0, 1_000_000));
        }
    }

    private record Indexed(SchemaSource.TableInfo table, float[] vector, List<float[]> columnVectors,
                           List<Set<String>> columnWords, Set<String> tableWords) {}


    private record Ranked(Indexed table, double score, double[] columnScores) {}

    private final SchemaSource source;
    private final Embedder embedder;
    private final Settings settings;
    private final Clock clock;
    private final Executor reloads;
    private final Map<String, RefreshingValue<List<Indexed>>> cache = new ConcurrentHashMap<>();

    public SchemaLinker(SchemaSource source, Embedder embedder, Settings settings, Clock clock) {
        this(source, embedder, settings, clock, null);
    }

    /** @param reloads runs the reloads after the TTL; null: a daemon thread per reload */
    SchemaLinker(SchemaSource source, Embedder embedder, Settings settings, Clock clock, Executor reloads) {
        this.source = source;
        this.embedder = embedder;
        this.settings = settings;
        this.clock = clock;
        this.reloads = reloads;
    }

    /** The linked schema for a question whose vector the caller already computed; empty when the datasource has no tables. */
    public LinkedSchema link(String datasource, String question, float[] questionVector) throws Exception {
        List<Indexed> tables = tables(datasource);
        if (tables.isEmpty()) return new LinkedSchema(List.of());
        LinkedSchema whole = new LinkedSchema(tables.stream().map(t -> whole(t.table())).toList(), true);
        if (LinkedSchema.estimateTokens(whole.render()) <= settings.tokenBudget()) return whole;
        Set<String> words = stems(words(question));
        String lowerQuestion = question.toLowerCase(Locale.ROOT);
        List<Ranked> ranked = new ArrayList<>();
        for (Indexed t : tables) ranked.add(rank(t, questionVector, words, lowerQuestion));
        ranked.sort(Comparator.comparingDouble(Ranked::score).reversed());
        double best = ranked.getFirst().score();
        java.util.LinkedHashMap<String, Ranked> kept = new java.util.LinkedHashMap<>();
        for (Ranked r : ranked) {
            if (kept.size() >= settings.maxTables() || (!kept.isEmpty() && r.score() < best - settings.margin())) break;
            kept.put(r.table().table().name(), r);
        }
        // Bridge tables: one that joins two kept tables that do not join each other (author — writes — paper).
        List<Ranked> keptNow = List.copyOf(kept.values());
        for (int a = 0; a < keptNow.size(); a++) {
            for (int b = a + 1; b < keptNow.size(); b++) {
                SchemaSource.TableInfo x = keptNow.get(a).table().table();
                SchemaSource.TableInfo y = keptNow.get(b).table().table();
                if (!joinColumns(x, y).isEmpty()) continue;
                for (Ranked r : ranked) {
                    SchemaSource.TableInfo z = r.table().table();
                    if (!kept.containsKey(z.name()) && !joinColumns(x, z).isEmpty() && !joinColumns(y, z).isEmpty()) {
                        kept.put(z.name(), r);
                        break;
                    }
                }
            }
        }
        // Fill the budget: next the tables joined to a kept one, then the rest, in rank order.
        List<Ranked> candidates = new ArrayList<>();
        for (Ranked r : ranked) if (!kept.containsKey(r.table().table().name()) && joinsAny(r, kept.values())) candidates.add(r);
        for (Ranked r : ranked) if (!kept.containsKey(r.table().table().name()) && !candidates.contains(r)) candidates.add(r);
        List<LinkedSchema.Table> out = new ArrayList<>(kept.values().stream().map(r -> toLinked(r, kept.values())).toList());
        int used = LinkedSchema.estimateTokens(new LinkedSchema(out).render());
        for (Ranked r : candidates) {
            LinkedSchema.Table t = toLinked(r, kept.values());
            int cost = LinkedSchema.estimateTokens(new LinkedSchema(List.of(t)).render());
            if (used + cost > settings.tokenBudget()) continue;
            out.add(t);
            used += cost;
        }
        return new LinkedSchema(out);
    }

    private static LinkedSchema.Table whole(SchemaSource.TableInfo t) {
        return new LinkedSchema.Table(t.written(), t.description(), t.columns().stream()
                .map(c -> new LinkedSchema.Column(c.written(), c.type(), c.description(), c.sampleValues())).toList());
    }

    private static boolean joinsAny(Ranked r, java.util.Collection<Ranked> kept) {
        return kept.stream().anyMatch(k -> !joinColumns(k.table().table(), r.table().table()).isEmpty());
    }

    /**
     * The columns two tables can be joined on, inferred from names (foreign keys are often not declared): a column
     * name both hold that looks like a key ({@code business_id}, {@code aid}, {@code flight_code}), or one table's
     * {@code <other table>_id} / {@code <other table>id} matching the other's key.
     */
    static Set<String> joinColumns(SchemaSource.TableInfo a, SchemaSource.TableInfo b) {
        if (a.name().equalsIgnoreCase(b.name())) return Set.of();
        Set<String> bNames = new HashSet<>();
        b.columns().forEach(c -> bNames.add(c.name().toLowerCase(Locale.ROOT)));
        Set<String> out = new java.util.LinkedHashSet<>();
        for (SchemaSource.ColumnInfo c : a.columns()) {
            String n = c.name().toLowerCase(Locale.ROOT);
            if (bNames.contains(n) && keyLike(n)) out.add(n);
        }
        return out;
    }

    static boolean keyLike(String column) {
        String n = column.toLowerCase(Locale.ROOT);
        return n.endsWith("id") || n.endsWith("_key") || n.endsWith("code") || n.endsWith("_no") || n.endsWith("_num")
                || n.endsWith("number") || n.endsWith("_name") && n.length() > 5;
    }

    /** Drops the cached schema of a datasource (after a migration). */
    public void invalidate(String datasource) {
        cache.remove(datasource);
    }

    private List<Indexed> tables(String datasource) throws Exception {
        // One load per datasource at a time (hundreds of questions arrive at once on a cold cache: each re-reading the
        // schema and re-embedding every column took ~50 s per question at 40 in flight); after the TTL the schema in use
        // keeps serving while it is reloaded, and while reloads fail (a metadata outage would otherwise send every
        // question to the generator without a schema)
        return cache.computeIfAbsent(datasource, ds -> new RefreshingValue<>(() -> load(ds), settings.cacheTtl(),
                RELOAD_RETRY_PAUSE, clock, reloads != null ? reloads : RefreshingValue.daemonThread("schema-reload-" + ds),
                e -> log.warn("could not reload the schema of datasource {} (the one read before keeps serving): {}", ds,
                        Stage.describe(e)))).get();
    }

    private List<Indexed> load(String datasource) throws Exception {
        List<SchemaSource.TableInfo> infos = source.tables(datasource);
        if (LinkedSchema.estimateTokens(new LinkedSchema(infos.stream().map(SchemaLinker::whole).toList()).render())
                <= settings.tokenBudget()) {
            // Given whole to every question: nothing to rank, so nothing to embed.
            List<Indexed> plain = infos.stream().map(t -> new Indexed(t, null, List.of(), List.of(), Set.<String>of())).toList();
            return plain;
        }
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
        return List.copyOf(indexed);
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

    private LinkedSchema.Table toLinked(Ranked r, java.util.Collection<Ranked> kept) {
        List<SchemaSource.ColumnInfo> cols = r.table().table().columns();
        List<Integer> keep = IntStream.range(0, cols.size()).boxed().toList();
        if (cols.size() > settings.maxColumns()) {
            // key and join columns always; then the best-matching columns, in the table's own order
            Set<String> joins = new HashSet<>();
            for (Ranked k : kept) joins.addAll(joinColumns(r.table().table(), k.table().table()));
            Set<Integer> must = new java.util.TreeSet<>();
            for (int j = 0; j < cols.size(); j++) {
                String n = cols.get(j).name().toLowerCase(Locale.ROOT);
                if (joins.contains(n) || n.equals("id") || n.equals(bareName(r.table().table().name()) + "_id")) must.add(j);
            }
            int room = Math.max(0, settings.maxColumns() - must.size());
            Set<Integer> chosen = new java.util.TreeSet<>(must);
            keep.stream().filter(j -> !must.contains(j))
                    .sorted(Comparator.comparingDouble((Integer j) -> r.columnScores()[j]).reversed())
                    .limit(room).forEach(chosen::add);
            keep = List.copyOf(chosen);
        }
        List<LinkedSchema.Column> linked = keep.stream().map(cols::get)
                .map(c -> new LinkedSchema.Column(c.written(), c.type(), c.description(), c.sampleValues())).toList();
        return new LinkedSchema.Table(r.table().table().written(), r.table().table().description(), linked);
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
    /**
     * The question's words, normalized as example ids are (lower case, accents and punctuation removed): the same
     * words {@code fewshot.Questions} compares questions by, read here from common so this package stays below fewshot's.
     */
    static Set<String> words(String question) {
        Set<String> out = new HashSet<>();
        for (String w : ExampleIds.normalize(question).split(" ")) if (!w.isEmpty()) out.add(w);
        return out;
    }

    static Set<String> stems(Set<String> words) {
        Set<String> out = new HashSet<>();
        for (String w : words) {
            if (w.length() > 4 && w.endsWith("ies")) out.add(w.substring(0, w.length() - 3) + "y");
            else if (w.length() > 3 && w.endsWith("s") && !w.endsWith("ss")) out.add(w.substring(0, w.length() - 1));
            else out.add(w);
        }
        return out;
    }

    /** A table's own name, lower case, without the schema a catalog-wide read puts before it. */
    private static String bareName(String table) {
        return table.substring(table.lastIndexOf('.') + 1).toLowerCase(Locale.ROOT);
    }
}
