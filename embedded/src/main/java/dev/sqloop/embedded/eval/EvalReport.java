package dev.sqloop.embedded.eval;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.datasource.Datasources;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Predicate;

/** The scored rows of an eval run, aggregated per configuration and broken down by query category, dialect and error. */
public final class EvalReport {
    private static final Set<String> REPAIR_FAILURES = Set.of("max_attempts", "unchanged_sql", "non_retryable");

    /** One configuration's figures. */
    /** @param ts questions right on every neighbour database; @param tsMeasured questions that have neighbour databases */
    public record Summary(int maxAttempts, int questions, int va, int ex, int ts, int tsMeasured, int em, int firstAttempt, int corrected, int failed,
                          double correctionEffectiveness, double averageAttempts, double tokensPerQuestion, double seconds) {
        public double exRate() {
            return questions == 0 ? 0 : (double) ex / questions;
        }

        public double vaRate() {
            return questions == 0 ? 0 : (double) va / questions;
        }
    }

    private final List<EvalCase> cases;
    private final List<Integer> configs;
    private final List<Eval.Row> rows;
    private final Map<Integer, Double> seconds;
    private final Datasources datasources;
    private final Map<Integer, Map<String, Long>> metricsByOutcome;
    private final int remaining;

    EvalReport(List<EvalCase> cases, List<Integer> configs, List<Eval.Row> rows, Map<Integer, Double> seconds, Datasources datasources,
               Map<Integer, Map<String, Long>> metricsByOutcome) {
        this(cases, configs, rows, seconds, datasources, metricsByOutcome, 0);
    }

    /** @param remaining (question, configuration) runs not scored yet: above 0, the report is partial */
    EvalReport(List<EvalCase> cases, List<Integer> configs, List<Eval.Row> rows, Map<Integer, Double> seconds, Datasources datasources,
               Map<Integer, Map<String, Long>> metricsByOutcome, int remaining) {
        this.remaining = remaining;
        this.metricsByOutcome = metricsByOutcome;
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
        return new Summary(maxAttempts, r.size(), count(r, x -> x.score().va()), count(r, x -> x.score().ex()),
                count(r, x -> Boolean.TRUE.equals(x.score().ts())), count(r, x -> x.score().ts() != null),
                count(r, x -> x.score().em()), first, corrected, failed,
                corrected + repairFailed == 0 ? Double.NaN : (double) corrected / (corrected + repairFailed),
                r.stream().mapToInt(Eval.Row::attempts).average().orElse(0),
                r.stream().mapToLong(Eval.Row::tokens).average().orElse(0), seconds.getOrDefault(maxAttempts, 0.0));
    }

    /** EX rate per value of {@code key}, per configuration. */
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
        if (m.failed() > 0) out.put("failed", (long) m.failed());
        return out;
    }

    /** The no-retry vs retry table (what the command prints). */
    public String comparison() {
        return (remaining > 0 ? partialNote() + "\n" : "") + comparisonTable();
    }

    private String comparisonTable() {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "%-28s", "max attempts"));
        for (int m : configs) b.append(String.format(Locale.ROOT, "%12d", m));
        b.append('\n');
        line(b, "questions", m -> Integer.toString(summary(m).questions()));
        line(b, "VA (executes)", m -> pct(summary(m).va(), summary(m).questions()));
        line(b, "EX (right result)", m -> pct(summary(m).ex(), summary(m).questions()));
        line(b, "TS (right on neighbours)", m -> summary(m).tsMeasured() == 0 ? "-" : pct(summary(m).ts(), summary(m).tsMeasured()));
        line(b, "EM (same SQL)", m -> pct(summary(m).em(), summary(m).questions()));
        line(b, "first-attempt successes", m -> Integer.toString(summary(m).firstAttempt()));
        line(b, "corrected", m -> Integer.toString(summary(m).corrected()));
        line(b, "failed", m -> Integer.toString(summary(m).failed()));
        line(b, "correction effectiveness", m -> Double.isNaN(summary(m).correctionEffectiveness()) ? "-"
                : String.format(Locale.ROOT, "%.1f %%", 100 * summary(m).correctionEffectiveness()));
        line(b, "average attempts", m -> String.format(Locale.ROOT, "%.2f", summary(m).averageAttempts()));
        line(b, "LLM tokens per question", m -> String.format(Locale.ROOT, "%.0f", summary(m).tokensPerQuestion()));
        line(b, "wall time", m -> String.format(Locale.ROOT, "%.1f s", summary(m).seconds()));
        line(b, "pipeline metrics agree", m -> !metricsByOutcome.containsKey(m) ? "-"
                // interrupted: the pipeline may have finished questions not scored yet
                : summary(m).questions() < cases.size() ? "(partial)"
                : metricsByOutcome.get(m).equals(outcomes(m)) ? "yes" : "NO " + metricsByOutcome.get(m));
        return b.toString();
    }

    private void line(StringBuilder b, String label, Function<Integer, String> cell) {
        b.append(String.format(Locale.ROOT, "%-28s", label));
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
        ArrayNode summaries = json.putArray("configurations");
        for (int m : configs) summaries.add(JsonCodec.mapper().valueToTree(summary(m)));
        json.set("exByCategory", JsonCodec.mapper().valueToTree(exBy(r -> r.c().category())));
        json.set("exByDialect", JsonCodec.mapper().valueToTree(exBy(this::dialect)));
        json.set("firstErrors", JsonCodec.mapper().valueToTree(firstErrors()));
        json.set("pipelineOutcomes", JsonCodec.mapper().valueToTree(metricsByOutcome));
        Files.writeString(dir.resolve("report.json"), json.toPrettyString());
        Files.writeString(dir.resolve("report.md"), markdown());
        Files.writeString(dir.resolve("report.html"), html());
    }

    /** One scored question as a line of {@code questions.jsonl}. */
    static String line(Eval.Row r, Datasources datasources) {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("id", r.c().id());
        o.put("maxAttempts", r.maxAttempts());
        o.put("datasource", r.c().datasource());
        o.put("dialect", datasources.find(r.c().datasource()).map(d -> d.dialect().wireName()).orElse("unknown"));
        o.put("category", r.c().category());
        o.put("question", r.c().question());
        o.put("status", r.status());
        o.put("reason", r.reason());
        o.put("attempts", r.attempts());
        o.put("firstError", r.firstError());
        o.put("va", r.score().va());
        o.put("ex", r.score().ex());
        o.put("ts", r.score().ts());
        o.put("em", r.score().em());
        o.put("note", r.score().note());
        o.put("sql", r.sql());
        o.put("gold", r.c().gold());
        o.put("tokens", r.tokens());
        return JsonCodec.encodeToString(o);
    }

    /**
     * The scored questions an earlier run left in {@code file} (an interrupted run's, to resume it): those of a
     * question still in the dataset, with the same gold, in a configuration still asked for; the last line of a
     * question wins, and a torn last line (the run killed mid-write) is ignored.
     */
    static List<Eval.Row> readRows(Path file, Map<String, EvalCase> cases, List<Integer> configs) throws IOException {
        Map<String, Eval.Row> out = new LinkedHashMap<>();
        if (!Files.exists(file)) return new java.util.ArrayList<>();
        for (String line : Files.readAllLines(file)) {
            if (line.isBlank()) continue;
            com.fasterxml.jackson.databind.JsonNode n;
            try {
                n = JsonCodec.mapper().readTree(line);
            } catch (IOException torn) {
                continue;
            }
            EvalCase c = cases.get(n.path("id").asText());
            int m = n.path("maxAttempts").asInt();
            if (c == null || !configs.contains(m) || !c.gold().equals(n.path("gold").asText())) continue;
            Boolean ts = n.path("ts").isBoolean() ? n.get("ts").asBoolean() : null;
            out.put(m + "\u0000" + c.id(), new Eval.Row(c, m, n.path("status").asText(), n.path("reason").asText(), n.path("attempts").asInt(),
                    n.hasNonNull("sql") ? n.get("sql").asText() : null, n.hasNonNull("firstError") ? n.get("firstError").asText() : null,
                    n.path("tokens").asLong(), new Scorer.Score(n.path("va").asBoolean(), n.path("ex").asBoolean(), ts,
                    n.path("em").asBoolean(), n.hasNonNull("note") ? n.get("note").asText() : null)));
        }
        return new java.util.ArrayList<>(out.values());
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

    /** A self-contained page (no script, no external resource): the comparison and four bar charts as inline SVG. */
    String html() {
        StringBuilder b = new StringBuilder("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>sqloop eval</title>"
                + "<style>body{font:14px system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse}"
                + "td,th{border:1px solid #ccc;padding:4px 10px;text-align:right}th:first-child,td:first-child{text-align:left}"
                + "svg{display:block;margin:0.5em 0 2em}</style></head><body>\n<h1>sqloop eval</h1>\n");
        if (remaining > 0) b.append("<p><strong>").append(escape(partialNote())).append("</strong></p>\n");
        b.append("<p>").append(cases.size()).append(" questions; max attempts ").append(configs).append(".</p>\n<table><tr><th></th>");
        for (int m : configs) b.append("<th>max ").append(m).append("</th>");
        b.append("</tr>\n");
        for (String line : comparisonTable().lines().skip(1).toList()) {
            String label = line.substring(0, Math.min(28, line.length())).strip();
            String[] cells = line.length() > 28 ? line.substring(28).strip().split("\\s{2,}") : new String[0];
            b.append("<tr><td>").append(escape(label)).append("</td>");
            for (String c : cells) b.append("<td>").append(escape(c)).append("</td>");
            b.append("</tr>\n");
        }
        b.append("</table>\n");
        List<String> series = configs.stream().map(m -> "max " + m).toList();
        Map<String, double[]> attempts = new LinkedHashMap<>();
        // attempt 1 … the largest budget, then failed, whichever configuration comes first
        int most = configs.stream().mapToInt(Integer::intValue).max().orElse(1);
        for (int a = 1; a <= most; a++) attempts.put("attempt " + a, new double[configs.size()]);
        attempts.put("failed", new double[configs.size()]);
        successByAttempt().forEach((m, byAttempt) -> byAttempt.forEach((k, v) ->
                attempts.computeIfAbsent(k, x -> new double[configs.size()])[configs.indexOf(m)] = v));
        b.append(Charts.bars("Questions by the attempt that succeeded", series, attempts, "questions"));
        Map<String, double[]> errors = new LinkedHashMap<>();
        firstErrors().forEach((m, byCategory) -> byCategory.forEach((k, v) ->
                errors.computeIfAbsent(k, x -> new double[configs.size()])[configs.indexOf(m)] = v[0]));
        b.append(Charts.bars("First-attempt errors by category", series, errors, "questions"));
        Map<String, double[]> exByCategory = new LinkedHashMap<>();
        exBy(r -> r.c().category()).forEach((k, byConfig) -> {
            double[] v = new double[configs.size()];
            for (int i = 0; i < configs.size(); i++) {
                double[] c = byConfig.getOrDefault(configs.get(i), new double[2]);
                v[i] = c[1] == 0 ? 0 : 100 * c[0] / c[1];
            }
            exByCategory.put(k, v);
        });
        b.append(Charts.bars("EX by query category (%)", series, exByCategory, "%"));
        Map<String, double[]> retry = new LinkedHashMap<>();
        for (String k : List.of("VA", "EX", "EM")) retry.put(k, new double[configs.size()]);
        for (int i = 0; i < configs.size(); i++) {
            Summary s = summary(configs.get(i));
            double n = Math.max(1, s.questions());
            retry.get("VA")[i] = 100 * s.va() / n;
            retry.get("EX")[i] = 100 * s.ex() / n;
            retry.get("EM")[i] = 100 * s.em() / n;
        }
        b.append(Charts.bars("Retry vs no retry (%)", series, retry, "%"));
        return b.append("</body></html>\n").toString();
    }

    static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    /** Per configuration: first-attempt error category → [questions, of which corrected]. */
    Map<Integer, Map<String, int[]>> firstErrors() {
        Map<Integer, Map<String, int[]>> out = new TreeMap<>();
        for (Eval.Row r : rows) {
            if (r.firstError() == null) continue;
            int[] c = out.computeIfAbsent(r.maxAttempts(), k -> new TreeMap<>()).computeIfAbsent(r.firstError(), k -> new int[2]);
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
