package dev.sqloop.embedded.eval;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * {@code eval --candidates 1,3,5}: one row per candidate count and attempt budget (issue 50). A <em>wrong answer</em>
 * is a question that succeeded with SQL whose result is not the gold's (EX false): what nothing refused. <em>Caught</em>
 * is the share of the questions the first count answered wrongly that this count answers right or marks uncertain.
 */
final class CandidatesTable {
    private CandidatesTable() {}

    static String of(Map<Integer, EvalReport> byCount, List<Integer> configs, double silentRate) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "Candidates per question (silent-variant rate per candidate %.0f %%)%n%n", silentRate * 100));
        b.append("| candidates | max attempts | questions | EX | uncertain | wrong answers | wrong answers caught | LLM tokens / question | LLM cost / question (USD) | cost vs first |\n");
        b.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
        Integer first = byCount.keySet().stream().findFirst().orElse(null);
        for (int m : configs) {
            Map<String, Eval.Row> base = rows(byCount.get(first), m);
            Set<String> wrongAtFirst = base.values().stream().filter(CandidatesTable::wrong).map(r -> r.c().id()).collect(Collectors.toSet());
            double firstCost = perQuestion(base, true);
            double firstTokens = perQuestion(base, false);
            for (Map.Entry<Integer, EvalReport> e : byCount.entrySet()) {
                Map<String, Eval.Row> rows = rows(e.getValue(), m);
                int n = rows.size();
                if (n == 0) continue;
                long ex = rows.values().stream().filter(r -> r.score().ex()).count();
                long uncertain = rows.values().stream().filter(r -> "uncertain".equals(r.reason())).count();
                long wrong = rows.values().stream().filter(CandidatesTable::wrong).count();
                long caught = wrongAtFirst.stream().map(rows::get)
                        .filter(r -> r != null && (r.score().ex() || "uncertain".equals(r.reason()))).count();
                double cost = perQuestion(rows, true);
                double tokens = perQuestion(rows, false);
                double ratio = firstCost > 0 ? cost / firstCost : firstTokens > 0 ? tokens / firstTokens : Double.NaN;
                b.append(String.format(Locale.ROOT, "| %d | %d | %d | %s | %s | %d | %s | %.0f | %.6f | %s |%n", e.getKey(), m, n,
                        pct(ex, n), pct(uncertain, n), wrong,
                        e.getKey().equals(first) ? "—" : wrongAtFirst.isEmpty() ? "none to catch" : caught + " of " + wrongAtFirst.size()
                                + " (" + pct(caught, wrongAtFirst.size()) + ")",
                        tokens, cost, Double.isNaN(ratio) ? "—" : String.format(Locale.ROOT, "%.2f×", ratio)));
            }
        }
        b.append("\nwrong answers: succeeded with SQL whose result is not the gold's (nothing refused them); caught: of the first")
                .append(" count's wrong answers, the share answered right or marked uncertain; cost vs first: LLM cost (tokens")
                .append(" without a price table) per question against the first count's.\n");
        return b.toString();
    }

    private static boolean wrong(Eval.Row r) {
        return "succeeded".equals(r.status()) && !r.score().ex();
    }

    private static Map<String, Eval.Row> rows(EvalReport report, int maxAttempts) {
        Map<String, Eval.Row> out = new HashMap<>();
        if (report == null) return out;
        report.rows().stream().filter(r -> r.maxAttempts() == maxAttempts).forEach(r -> out.put(r.c().id(), r));
        return out;
    }

    private static double perQuestion(Map<String, Eval.Row> rows, boolean cost) {
        if (rows.isEmpty()) return 0;
        return rows.values().stream().mapToDouble(r -> cost ? r.usage().cost() : r.usage().inputTokens() + r.usage().outputTokens())
                .sum() / rows.size();
    }

    private static String pct(long part, long whole) {
        return whole == 0 ? "—" : String.format(Locale.ROOT, "%.1f %%", 100.0 * part / whole);
    }
}
