package dev.sqloop.embedded.eval;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.datasource.Datasources;
import dev.sqloop.common.message.TokenUsage;
import dev.sqloop.testkit.engines.ResultComparison;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The scored rows of an eval run, aggregated per configuration and broken down by query category, dialect and error,
 * with every metric's definition, the example memory each configuration had, and one row per question (HTML).
 */
public final class EvalReport {
    /** Outcomes of a question that failed after the repair loop decided to stop. */
    static final Set<String> REPAIR_FAILURES = Set.of("max_attempts", "unchanged_sql", "non_retryable");

    /** Every figure of the report and what it means, in the order the report shows them. */
    static final Map<String, String> DEFINITIONS = definitions();

    private static Map<String, String> definitions() {
        Map<String, String> d = new LinkedHashMap<>();
        d.put("VA", "Valid: the final SQL executes on the datasource (read-only, through the executor's guard). A question that "
                + "failed has no final SQL and is not VA. Share of all questions of the configuration.");
        d.put("EX", "Execution accuracy: the final SQL's result equals the result of one accepted gold form on the datasource, "
                + "compared by values (rows as a multiset unless the gold orders them; numbers equal within a relative "
                + java.math.BigDecimal.valueOf(ResultComparison.TOLERANCE).toPlainString() + "). Share of all questions.");
        d.put("TS", "Test-suite accuracy: EX, and the same result as that gold form on every neighbour database where the gold "
                + "runs (copies of the datasource with every non-key column's values shuffled across its rows, --ts of them). A "
                + "question counts only if it is right on the original and on every neighbour, so TS never exceeds EX. Share of "
                + "the questions whose datasource has neighbour databases (all of them unless the report says otherwise); a "
                + "question whose gold runs on no neighbour is judged on the original alone and counted apart.");
        d.put("EM", "Exact match: the final SQL is the same statement as a gold form after normalization. Diagnostic only: a "
                + "right query is often written differently. Share of all questions.");
        d.put("first-attempt successes", "Questions whose first SQL ran (outcome first_attempt_success).");
        d.put("corrected", "Questions that ran after one or more repairs (outcome corrected_success).");
        d.put("failed", "Questions that ended without SQL that ran (any other outcome; the last refused SQL and the first "
                + "error are kept per question).");
        d.put("correction effectiveness", "corrected / (corrected + questions that failed after the repair loop stopped: "
                + "max_attempts, unchanged_sql, non_retryable).");
        d.put("average attempts", "Attempts per question, averaged over all questions (1 for a question answered at once).");
        d.put("LLM tokens per question", "Input + output tokens the pipeline reported, averaged over all questions.");
        d.put("prompt / cached / output tokens per question", "The input tokens, the part of them the provider served from its "
                + "prompt cache (billed at the cached-input price), and the output tokens, averaged over all questions.");
        d.put("LLM cost per question", "USD at the generator's price table (SQLOOP_LLM_PRICE_*), all attempts, averaged over "
                + "all questions; per successful question: the whole configuration's cost over its successes.");
        d.put("answered without an LLM call", "Questions with 0 tokens: attempt 1 came from a stored example (the "
                + "repeat-question shortcut), so the memory they started from decided them.");
        d.put("first error", "The first error of attempt 1: its category, the stage that found it and its message "
                + "(none when attempt 1 succeeded).");
        return java.util.Collections.unmodifiableMap(d);
    }

    /**
     * One configuration's figures.
     *
     * @param ts questions right on the datasource and every neighbour database (never more than {@code exInTsScope})
     * @param tsScope questions whose datasource has neighbour databases: TS's denominator
     * @param exInTsScope EX among those questions: what TS compares with when the scope is not every question
     * @param tsOnDatasourceOnly questions of the scope whose gold ran on no neighbour (judged on the original alone)
     * @param withoutLlm questions answered with 0 tokens (a stored example's SQL)
     */
    public record Summary(int maxAttempts, int questions, int va, int ex, int ts, int tsScope, int exInTsScope, int tsOnDatasourceOnly,
                          int em, int firstAttempt, int corrected, int failed, double correctionEffectiveness, double averageAttempts,
                          double tokensPerQuestion, int withoutLlm, double seconds, TokenUsage usage) {
        /** USD per question, over all questions. */
        public double costPerQuestion() {
            return questions == 0 ? 0 : usage.cost() / questions;
        }

        /** USD per successful question: everything spent, failures included, over the successes. */
        public double costPerSuccess() {
            int succeeded = firstAttempt + corrected;
            return succeeded == 0 ? Double.NaN : usage.cost() / succeeded;
        }

        /** The share of prompt tokens served from the provider's cache. */
        public double cachedShare() {
            return usage.inputTokens() == 0 ? 0 : (double) usage.cachedInputTokens() / usage.inputTokens();
        }

        public double exRate() {
            return questions == 0 ? 0 : (double) ex / questions;
        }

        public double vaRate() {
            return questions == 0 ? 0 : (double) va / questions;
        }

        /** TS over its scope; NaN where no question has neighbour databases. */
        public double tsRate() {
            return tsScope == 0 ? Double.NaN : (double) ts / tsScope;
        }
    }

    private final List<EvalCase> cases;
    private final List<Integer> configs;
    private final List<Eval.Row> rows;
    private final Map<Integer, Double> seconds;
    private final Datasources datasources;
    private final Map<Integer, Map<String, Long>> metricsByOutcome;
    private final Map<Integer, EvalMemory> memory;
    private final int remaining;

    EvalReport(List<EvalCase> cases, List<Integer> configs, List<Eval.Row> rows, Map<Integer, Double> seconds, Datasources datasources,
               Map<Integer, Map<String, Long>> metricsByOutcome) {
        this(cases, configs, rows, seconds, datasources, metricsByOutcome, Map.of(), 0);
    }

    /**
     * @param memory the example memory each configuration had (none recorded: absent)
     * @param remaining (question, configuration) runs not scored yet: above 0, the report is partial
     */
    EvalReport(List<EvalCase> cases, List<Integer> configs, List<Eval.Row> rows, Map<Integer, Double> seconds, Datasources datasources,
               Map<Integer, Map<String, Long>> metricsByOutcome, Map<Integer, EvalMemory> memory, int remaining) {
        this.remaining = remaining;
        this.metricsByOutcome = metricsByOutcome;
        this.memory = memory;
        this.cases = cases;
        this.configs = configs;
        this.rows = rows;
        this.seconds = seconds;
        this.datasources = datasources;
    }

    public List<Eval.Row> rows() {
        return rows;
    }

    /** Question runs not scored yet (an interrupted run's partial report); 0 when complete. */
    public int remaining() {
        return remaining;
    }

    /** The example memory a configuration had, or null when none was recorded. */
    public EvalMemory memory(int maxAttempts) {
        return memory.get(maxAttempts);
    }

    /**
     * Whether every configuration started from the same examples and left them unchanged; null when a configuration's
     * memory was not recorded (or not read at its end).
     */
    public Boolean sameMemory() {
        if (configs.stream().anyMatch(m -> memory.get(m) == null || memory.get(m).atEnd() == null)) return null;
        var first = memory.get(configs.getFirst()).atStart();
        return configs.stream().allMatch(m -> memory.get(m).atStart().equals(first) && memory.get(m).unchanged());
    }

    private String partialNote() {
        return "PARTIAL: interrupted with " + remaining + " of " + cases.size() * configs.size()
                + " question runs not scored yet; rerun the same command with the same --out to resume.";
    }

    public Summary summary(int maxAttempts) {
        List<Eval.Row> r = rows.stream().filter(x -> x.maxAttempts() == maxAttempts).toList();
        int first = count(r, x -> "first_attempt_success".equals(x.reason()));
        int corrected = count(r, x -> "corrected_success".equals(x.reason()));
        int failed = count(r, x -> !"succeeded".equals(x.status()));
        int repairFailed = count(r, x -> REPAIR_FAILURES.contains(x.reason()));
        // TS is counted only where EX holds too: TS <= EX whatever a row says
        Predicate<Eval.Row> tsRight = x -> x.score().ex() && Boolean.TRUE.equals(x.score().ts());
        return new Summary(maxAttempts, r.size(), count(r, x -> x.score().va()), count(r, x -> x.score().ex()),
                count(r, tsRight), count(r, x -> x.score().ts() != null), count(r, x -> x.score().ts() != null && x.score().ex()),
                count(r, x -> tsRight.test(x) && x.score().tsDatabases() == 1),
                count(r, x -> x.score().em()), first, corrected, failed,
                corrected + repairFailed == 0 ? Double.NaN : (double) corrected / (corrected + repairFailed),
                r.stream().mapToInt(Eval.Row::attempts).average().orElse(0),
                r.stream().mapToLong(Eval.Row::tokens).average().orElse(0), count(r, x -> x.tokens() == 0),
                seconds.getOrDefault(maxAttempts, 0.0),
                r.stream().map(Eval.Row::usage).reduce(TokenUsage.ZERO, TokenUsage::plus));
    }

    /** EX rate per value of {@code key}, per configuration: [right, questions]. */
    Map<String, Map<Integer, double[]>> exBy(Function<Eval.Row, String> key) {
        Map<String, Map<Integer, double[]>> out = new TreeMap<>();
        for (Eval.Row r : rows) {
            double[] c = out.computeIfAbsent(key.apply(r), k -> new TreeMap<>()).computeIfAbsent(r.maxAttempts(), k -> new double[2]);
            c[0] += r.score().ex() ? 1 : 0;
            c[1]++;
        }
        return out;
    }

    String dialect(Eval.Row r) {
        return datasources.find(r.c().datasource()).map(d -> d.dialect().wireName()).orElse("unknown");
    }

    /** What the pipeline's metrics counted for a configuration (in-process runs; null otherwise). */
    public Map<String, Long> pipelineOutcomes(int maxAttempts) {
        return metricsByOutcome.get(maxAttempts);
    }

    /** The report's own outcome counts for a configuration, as the pipeline's metrics name them. */
    public Map<String, Long> outcomes(int maxAttempts) {
        Summary m = summary(maxAttempts);
        Map<String, Long> out = new TreeMap<>();
        if (m.firstAttempt() > 0) out.put("first_attempt_success", (long) m.firstAttempt());
        if (m.corrected() > 0) out.put("corrected_success", (long) m.corrected());
        // an uncertain question (issue 50) failed by status; the metrics count it as an outcome of its own
        long uncertain = rows().stream().filter(r -> r.maxAttempts() == maxAttempts && "uncertain".equals(r.reason())).count();
        if (m.failed() - uncertain > 0) out.put("failed", m.failed() - uncertain);
        if (uncertain > 0) out.put("uncertain", uncertain);
        return out;
    }

    /** The no-retry vs retry table (what the command prints). */
    public String comparison() {
        return (remaining > 0 ? partialNote() + "\n" : "") + comparisonTable();
    }

    private boolean tsPartialScope() {
        return configs.stream().map(this::summary).anyMatch(s -> s.tsScope() > 0 && s.tsScope() < s.questions());
    }

    private String comparisonTable() {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "%-30s", "max attempts"));
        for (int m : configs) b.append(String.format(Locale.ROOT, "%12d", m));
        b.append('\n');
        line(b, "questions", m -> Integer.toString(summary(m).questions()));
        line(b, "VA (executes)", m -> pct(summary(m).va(), summary(m).questions()));
        line(b, "EX (right result)", m -> pct(summary(m).ex(), summary(m).questions()));
        line(b, "TS (EX + every neighbour)", m -> pct(summary(m).ts(), summary(m).tsScope()));
        if (tsPartialScope()) {
            line(b, "  TS scope (has neighbours)", m -> summary(m).tsScope() + " of " + summary(m).questions());
            line(b, "  EX in the TS scope", m -> pct(summary(m).exInTsScope(), summary(m).tsScope()));
        }
        line(b, "  TS on the datasource only", m -> summary(m).tsScope() == 0 ? "-" : Integer.toString(summary(m).tsOnDatasourceOnly()));
        line(b, "EM (same SQL)", m -> pct(summary(m).em(), summary(m).questions()));
        line(b, "first-attempt successes", m -> Integer.toString(summary(m).firstAttempt()));
        line(b, "corrected", m -> Integer.toString(summary(m).corrected()));
        line(b, "failed", m -> Integer.toString(summary(m).failed()));
        line(b, "correction effectiveness", m -> Double.isNaN(summary(m).correctionEffectiveness()) ? "-"
                : String.format(Locale.ROOT, "%.1f %%", 100 * summary(m).correctionEffectiveness()));
        line(b, "average attempts", m -> String.format(Locale.ROOT, "%.2f", summary(m).averageAttempts()));
        line(b, "LLM tokens per question", m -> String.format(Locale.ROOT, "%.0f", summary(m).tokensPerQuestion()));
        line(b, "prompt / cached / output tokens per question", m -> {
            Summary x = summary(m);
            double n = Math.max(1, x.questions());
            return String.format(Locale.ROOT, "%.0f / %.0f (%.0f %%) / %.0f", x.usage().inputTokens() / n,
                    x.usage().cachedInputTokens() / n, 100 * x.cachedShare(), x.usage().outputTokens() / n);
        });
        line(b, "LLM cost per question", m -> String.format(Locale.ROOT, "%.6f USD (per success %.6f)", summary(m).costPerQuestion(),
                summary(m).costPerSuccess()));
        line(b, "answered without an LLM call", m -> Integer.toString(summary(m).withoutLlm()));
        line(b, "wall time", m -> String.format(Locale.ROOT, "%.1f s", summary(m).seconds()));
        line(b, "pipeline metrics agree", m -> !metricsByOutcome.containsKey(m) ? "-"
                // interrupted: the pipeline may have finished questions not scored yet
                : summary(m).questions() < cases.size() ? "(partial)"
                : metricsByOutcome.get(m).equals(outcomes(m)) ? "yes" : "NO " + metricsByOutcome.get(m));
        Boolean same = sameMemory();
        line(b, "same example memory", m -> memory.get(m) == null ? "-"
                : memory.get(m).atEnd() == null ? "(partial)"
                : Boolean.TRUE.equals(same) ? "yes" : memory.get(m).unchanged() ? "NO (start)" : "NO (changed)");
        return b.toString();
    }

    private void line(StringBuilder b, String label, Function<Integer, String> cell) {
        b.append(String.format(Locale.ROOT, "%-30s", label));
        for (int m : configs) b.append(String.format(Locale.ROOT, "%12s", cell.apply(m)));
        b.append('\n');
    }

    void write(Path dir) throws IOException {
        StringBuilder q = new StringBuilder();
        for (Eval.Row r : rows) q.append(line(r, datasources)).append('\n');
        // the resumable record of what was scored: replaced whole, never left half written
        Path tmp = dir.resolve(Eval.QUESTIONS + ".tmp");
        Files.writeString(tmp, q);
        Files.move(tmp, dir.resolve(Eval.QUESTIONS), java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);

        ObjectNode json = JsonCodec.mapper().createObjectNode();
        json.put("partial", remaining > 0);
        json.put("remaining", remaining);
        json.set("definitions", JsonCodec.mapper().valueToTree(DEFINITIONS));
        ArrayNode summaries = json.putArray("configurations");
        for (int m : configs) {
            ObjectNode s = JsonCodec.mapper().valueToTree(summary(m));
            s.set("memory", JsonCodec.mapper().valueToTree(memory.get(m)));
            summaries.add(s);
        }
        Boolean same = sameMemory();
        if (same == null) json.putNull("sameMemory");
        else json.put("sameMemory", same);
        json.set("exByCategory", JsonCodec.mapper().valueToTree(exBy(r -> r.c().category())));
        json.set("exByDialect", JsonCodec.mapper().valueToTree(exBy(this::dialect)));
        json.set("firstErrors", JsonCodec.mapper().valueToTree(firstErrors()));
        json.set("pipelineOutcomes", JsonCodec.mapper().valueToTree(metricsByOutcome));
        Files.writeString(dir.resolve("report.json"), json.toPrettyString());
        Files.writeString(dir.resolve("report.md"), markdown());
        Files.writeString(dir.resolve("report.html"), html());
    }

    /**
     * One scored question as a line of {@code questions.jsonl}: the question (and its instructions), its outcome and
     * attempts, the final SQL (on success) or the last refused SQL (on failure), the first error (category, stage,
     * message), the gold and the scores.
     */
    static String line(Eval.Row r, Datasources datasources) {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("id", r.c().id());
        o.put("maxAttempts", r.maxAttempts());
        o.put("datasource", r.c().datasource());
        o.put("dialect", datasources.find(r.c().datasource()).map(d -> d.dialect().wireName()).orElse("unknown"));
        o.put("category", r.c().category());
        o.put("question", r.c().question());
        o.put("instructions", r.c().instructions());
        o.put("status", r.status());
        o.put("outcome", r.reason());
        o.put("attempts", r.attempts());
        o.put("sql", r.sql());
        o.put("lastRejectedSql", r.lastRejectedSql());
        o.put("firstError", r.firstError());
        o.put("gold", r.c().gold());
        o.put("va", r.score().va());
        o.put("ex", r.score().ex());
        o.put("ts", r.score().ts());
        o.put("tsDatabases", r.score().tsDatabases());
        o.put("em", r.score().em());
        o.put("note", r.score().note());
        o.put("tokens", r.tokens());
        o.put("usage", r.usage());
        return JsonCodec.encodeToString(o);
    }

    /**
     * The scored questions an earlier run left in {@code file} (an interrupted run's, to resume it): those of a
     * question still in the dataset, with the same gold, in a configuration still asked for; the last line of a
     * question wins, and a torn last line (the run killed mid-write) is ignored.
     */
    static List<Eval.Row> readRows(Path file, Map<String, EvalCase> cases, List<Integer> configs) throws IOException {
        Map<String, Eval.Row> out = new LinkedHashMap<>();
        if (!Files.exists(file)) return new ArrayList<>();
        for (String line : Files.readAllLines(file)) {
            if (line.isBlank()) continue;
            JsonNode n;
            try {
                n = JsonCodec.mapper().readTree(line);
            } catch (IOException torn) {
                continue;
            }
            EvalCase c = cases.get(n.path("id").asText());
            int m = n.path("maxAttempts").asInt();
            if (c == null || !configs.contains(m) || !c.gold().equals(n.path("gold").asText())) continue;
            Boolean ts = n.path("ts").isBoolean() ? n.get("ts").asBoolean() : null;
            JsonNode fe = n.path("firstError");
            Eval.FirstError firstError = fe.isObject() ? new Eval.FirstError(text(fe, "category"), text(fe, "stage"), text(fe, "message")) : null;
            out.put(m + "\u0000" + c.id(), new Eval.Row(c, m, n.path("status").asText(), n.path("outcome").asText(), n.path("attempts").asInt(),
                    text(n, "sql"), text(n, "lastRejectedSql"), firstError, n.path("tokens").asLong(),
                    new Scorer.Score(n.path("va").asBoolean(), n.path("ex").asBoolean(), ts, n.path("em").asBoolean(), text(n, "note"),
                            n.path("tsDatabases").asInt()), n.has("usage") ? Eval.usage(n.path("usage")) : null));
        }
        return new ArrayList<>(out.values());
    }

    private static String text(JsonNode n, String field) {
        return n.hasNonNull(field) ? n.get(field).asText() : null;
    }

    /** Questions per configuration that succeeded at attempt 1, 2, … and that failed. */
    Map<Integer, Map<String, Integer>> successByAttempt() {
        Map<Integer, Map<String, Integer>> out = new TreeMap<>();
        for (int m : configs) {
            Map<String, Integer> byAttempt = new LinkedHashMap<>();
            for (int a = 1; a <= m; a++) byAttempt.put("attempt " + a, 0);
            byAttempt.put("failed", 0);
            out.put(m, byAttempt);
        }
        for (Eval.Row r : rows) {
            String k = "succeeded".equals(r.status()) ? "attempt " + Math.max(1, r.attempts()) : "failed";
            out.get(r.maxAttempts()).merge(k, 1, Integer::sum);
        }
        return out;
    }

    /**
     * A self-contained page (nothing loaded from elsewhere): the comparison, the definitions, the memory each
     * configuration had, four bar charts on 0–100 % axes as inline SVG, and one row per question and configuration,
     * filtered by a few lines of script (a filter in the address, {@code #outcome=max_attempts&config=3}, applies on load).
     */
    String html() {
        StringBuilder b = new StringBuilder("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>sqloop eval</title>"
                + "<style>body{font:14px system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse}"
                + "td,th{border:1px solid #ccc;padding:4px 10px;text-align:right;vertical-align:top}th:first-child,td:first-child{text-align:left}"
                + "svg{display:block;margin:0.5em 0 2em}dt{font-weight:bold;margin-top:0.4em}"
                + "#questions td,#questions th{text-align:left;max-width:34em}#questions code{white-space:pre-wrap;font-size:12px}"
                + "#questions .n{text-align:right}.instr{color:#555;font-size:12px}#filters{margin:0.5em 0}#filters label{margin-right:1em}"
                + "</style></head><body>\n<h1>sqloop eval</h1>\n");
        if (remaining > 0) b.append("<p><strong>").append(escape(partialNote())).append("</strong></p>\n");
        b.append("<p>").append(cases.size()).append(" questions; max attempts ").append(configs).append(".</p>\n<table><tr><th></th>");
        for (int m : configs) b.append("<th>max ").append(m).append("</th>");
        b.append("</tr>\n");
        for (String line : comparisonTable().lines().skip(1).toList()) {
            String label = line.substring(0, Math.min(30, line.length())).strip();
            String[] cells = line.length() > 30 ? line.substring(30).strip().split("\\s{2,}") : new String[0];
            b.append("<tr><td>").append(escape(label)).append("</td>");
            for (String c : cells) b.append("<td>").append(escape(c)).append("</td>");
            b.append("</tr>\n");
        }
        b.append("</table>\n");
        b.append("<h2>Example memory</h2>\n<ul>\n");
        for (int m : configs) {
            EvalMemory mem = memory.get(m);
            b.append("<li>max ").append(m).append(": ").append(escape(mem == null ? "not recorded" : mem.describe())).append("</li>\n");
        }
        b.append("</ul>\n");
        b.append("<h2>Definitions</h2>\n<dl>\n");
        DEFINITIONS.forEach((k, v) -> b.append("<dt>").append(escape(k)).append("</dt><dd>").append(escape(v)).append("</dd>\n"));
        b.append("</dl>\n");
        charts(b);
        questionRows(b);
        return b.append("</body></html>\n").toString();
    }

    private void charts(StringBuilder b) {
        List<String> series = configs.stream().map(m -> "max " + m).toList();
        String ofQuestions = "% of the configuration's questions";
        Map<String, Charts.Bar[]> attempts = new LinkedHashMap<>();
        // attempt 1 … the largest budget, then failed, whichever configuration comes first
        int most = configs.stream().mapToInt(Integer::intValue).max().orElse(1);
        for (int a = 1; a <= most; a++) attempts.put("attempt " + a, new Charts.Bar[configs.size()]);
        attempts.put("failed", new Charts.Bar[configs.size()]);
        successByAttempt().forEach((m, byAttempt) -> byAttempt.forEach((k, v) ->
                attempts.computeIfAbsent(k, x -> new Charts.Bar[configs.size()])[configs.indexOf(m)] = Charts.Bar.of(v, summary(m).questions())));
        b.append(Charts.bars("Questions by the attempt that succeeded", ofQuestions, series, attempts));
        Map<String, Charts.Bar[]> errors = new LinkedHashMap<>();
        firstErrors().forEach((m, byCategory) -> byCategory.forEach((k, v) ->
                errors.computeIfAbsent(k, x -> new Charts.Bar[configs.size()])[configs.indexOf(m)] = Charts.Bar.of(v[0], summary(m).questions())));
        b.append(Charts.bars("First-attempt errors by category", ofQuestions, series, errors));
        Map<String, Charts.Bar[]> exByCategory = new LinkedHashMap<>();
        exBy(r -> r.c().category()).forEach((k, byConfig) -> {
            Charts.Bar[] v = new Charts.Bar[configs.size()];
            for (int i = 0; i < configs.size(); i++) {
                double[] c = byConfig.getOrDefault(configs.get(i), new double[2]);
                v[i] = Charts.Bar.of((long) c[0], (long) c[1]);
            }
            exByCategory.put(k, v);
        });
        b.append(Charts.bars("EX by query category", "% of the category's questions with the right result", series, exByCategory));
        Map<String, Charts.Bar[]> retry = new LinkedHashMap<>();
        boolean ts = configs.stream().anyMatch(m -> summary(m).tsScope() > 0);
        for (String k : ts ? List.of("VA", "EX", "TS", "EM") : List.of("VA", "EX", "EM")) retry.put(k, new Charts.Bar[configs.size()]);
        for (int i = 0; i < configs.size(); i++) {
            Summary s = summary(configs.get(i));
            retry.get("VA")[i] = Charts.Bar.of(s.va(), s.questions());
            retry.get("EX")[i] = Charts.Bar.of(s.ex(), s.questions());
            if (ts) retry.get("TS")[i] = Charts.Bar.of(s.ts(), s.tsScope());
            retry.get("EM")[i] = Charts.Bar.of(s.em(), s.questions());
        }
        b.append(Charts.bars("Retry vs no retry", "% of questions (TS: of its scope)", series, retry));
    }

    /** One row per question and configuration, with the controls and the script that filter them. */
    private void questionRows(StringBuilder b) {
        b.append("<h2>Questions</h2>\n<form id=\"filters\" onsubmit=\"return false\">");
        select(b, "config", "configuration", configs.stream().map(String::valueOf).toList());
        select(b, "outcome", "outcome", rows.stream().map(Eval.Row::reason).distinct().sorted().toList());
        select(b, "error", "first error", rows.stream().map(EvalReport::errorKey).distinct().sorted().toList());
        select(b, "ex", "EX", List.of("right", "wrong"));
        b.append("<label>text <input name=\"text\" type=\"search\"></label> <span id=\"shown\">").append(rows.size())
                .append("</span> of ").append(rows.size()).append(" rows</form>\n");
        b.append("<table id=\"questions\"><thead><tr><th>id</th><th>max</th><th>question</th><th>outcome</th><th>attempts</th>"
                + "<th>VA</th><th>EX</th><th>TS</th><th>EM</th><th>final SQL, or last refused SQL</th><th>first error</th><th>gold</th></tr></thead><tbody>\n");
        for (Eval.Row r : rows) {
            Scorer.Score s = r.score();
            b.append("<tr data-config=\"").append(r.maxAttempts()).append("\" data-outcome=\"").append(escape(r.reason()))
                    .append("\" data-error=\"").append(escape(errorKey(r))).append("\" data-ex=\"").append(s.ex() ? "right" : "wrong").append("\">");
            b.append("<td>").append(escape(r.c().id())).append("</td><td class=\"n\">").append(r.maxAttempts()).append("</td><td>")
                    .append(escape(r.c().question()));
            if (r.c().instructions() != null) b.append("<div class=\"instr\">instructions: ").append(escape(r.c().instructions())).append("</div>");
            b.append("</td><td>").append(escape(r.reason())).append("</td><td class=\"n\">").append(r.attempts()).append("</td>");
            for (Boolean v : new Boolean[] {s.va(), s.ex(), s.ts(), s.em()}) b.append("<td>").append(v == null ? "–" : v ? "✓" : "✗").append("</td>");
            b.append("<td>");
            if (r.sql() != null) b.append("<code>").append(escape(r.sql())).append("</code>");
            else if (r.lastRejectedSql() != null) b.append("refused: <code>").append(escape(r.lastRejectedSql())).append("</code>");
            else b.append("none");
            if (s.note() != null) b.append("<div class=\"instr\">").append(escape(s.note())).append("</div>");
            b.append("</td><td>");
            Eval.FirstError e = r.firstError();
            if (e != null) {
                b.append(escape(e.category())).append(" at ").append(escape(e.stage() == null ? "?" : e.stage())).append(": <code>")
                        .append(escape(e.message() == null ? "" : e.message())).append("</code>");
            }
            b.append("</td><td><code>").append(escape(r.c().gold())).append("</code></td></tr>\n");
        }
        b.append("</tbody></table>\n");
        // plain DOM, no library: each select narrows to rows whose data-* equals its value; the text box matches anywhere
        b.append("""
                <script>
                (function () {
                  var form = document.getElementById('filters'), shown = document.getElementById('shown');
                  var rows = document.querySelectorAll('#questions tbody tr');
                  function apply() {
                    var text = form.elements.text.value.toLowerCase(), n = 0;
                    rows.forEach(function (r) {
                      var ok = Array.prototype.every.call(form.querySelectorAll('select'), function (s) {
                        return !s.value || r.dataset[s.name] === s.value;
                      }) && (!text || r.textContent.toLowerCase().indexOf(text) >= 0);
                      r.hidden = !ok;
                      if (ok) n++;
                    });
                    shown.textContent = n;
                  }
                  new URLSearchParams(location.hash.slice(1)).forEach(function (v, k) {
                    if (form.elements[k]) form.elements[k].value = v;
                  });
                  form.addEventListener('input', apply);
                  form.addEventListener('change', apply);
                  apply();
                })();
                </script>
                """);
    }

    private static void select(StringBuilder b, String name, String label, List<String> values) {
        b.append("<label>").append(escape(label)).append(" <select name=\"").append(name).append("\"><option value=\"\">all</option>");
        for (String v : values) b.append("<option>").append(escape(v)).append("</option>");
        b.append("</select></label>");
    }

    private static String errorKey(Eval.Row r) {
        return r.firstError() == null ? "none" : r.firstError().category();
    }

    static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    /** Per configuration: first-attempt error category → [questions, of which corrected]. */
    Map<Integer, Map<String, int[]>> firstErrors() {
        Map<Integer, Map<String, int[]>> out = new TreeMap<>();
        for (Eval.Row r : rows) {
            if (r.firstError() == null) continue;
            int[] c = out.computeIfAbsent(r.maxAttempts(), k -> new TreeMap<>()).computeIfAbsent(r.firstError().category(), k -> new int[2]);
            c[0]++;
            if ("corrected_success".equals(r.reason())) c[1]++;
        }
        return out;
    }

    String markdown() {
        StringBuilder b = new StringBuilder("# sqloop eval\n\n");
        if (remaining > 0) b.append("**").append(partialNote()).append("**\n\n");
        b.append(cases.size()).append(" questions; configurations: max attempts ").append(configs).append(".\n\n```\n")
                .append(comparisonTable()).append("```\n\n");
        b.append("## Example memory\n\n");
        for (int m : configs) {
            EvalMemory mem = memory.get(m);
            b.append("- max ").append(m).append(": ").append(mem == null ? "not recorded" : mem.describe()).append('\n');
        }
        b.append("\n## Definitions\n\n");
        DEFINITIONS.forEach((k, v) -> b.append("- **").append(k).append("**: ").append(v).append('\n'));
        b.append('\n');
        table(b, "EX by query category", exBy(r -> r.c().category()));
        table(b, "EX by dialect", exBy(this::dialect));
        b.append("## First-attempt errors (questions; of which corrected)\n\n| category |");
        for (int m : configs) b.append(" max ").append(m).append(" |");
        b.append("\n|---|").append("---|".repeat(configs.size())).append('\n');
        Set<String> categories = new TreeSet<>();
        firstErrors().values().forEach(m -> categories.addAll(m.keySet()));
        for (String c : categories) {
            b.append("| ").append(c).append(" |");
            for (int m : configs) {
                int[] v = firstErrors().getOrDefault(m, Map.of()).getOrDefault(c, new int[2]);
                b.append(' ').append(v[0]).append("; ").append(v[1]).append(" |");
            }
            b.append('\n');
        }
        b.append("\nEvery question, its SQL and its first error: questions.jsonl and report.html.\n");
        return b.toString();
    }

    private void table(StringBuilder b, String title, Map<String, Map<Integer, double[]>> data) {
        b.append("## ").append(title).append("\n\n| |");
        for (int m : configs) b.append(" max ").append(m).append(" |");
        b.append("\n|---|").append("---|".repeat(configs.size())).append('\n');
        data.forEach((k, byConfig) -> {
            b.append("| ").append(k).append(" |");
            for (int m : configs) {
                double[] c = byConfig.getOrDefault(m, new double[2]);
                b.append(' ').append(pct((int) c[0], (int) c[1])).append(" (").append((int) c[1]).append(") |");
            }
            b.append('\n');
        });
        b.append('\n');
    }

    private static int count(List<Eval.Row> rows, Predicate<Eval.Row> p) {
        return (int) rows.stream().filter(p).count();
    }

    private static String pct(int part, int whole) {
        return whole == 0 ? "-" : String.format(Locale.ROOT, "%.1f %%", 100.0 * part / whole);
    }
}
