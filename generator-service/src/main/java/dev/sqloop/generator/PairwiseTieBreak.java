package dev.sqloop.generator;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.message.Candidate;
import dev.sqloop.common.message.Execution;
import dev.sqloop.common.message.QuestionTask;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The pure parts of issue 50's tie-break, as CHASE-SQL's pairwise selector: which candidates tie (one per largest group of
 * agreeing results), the prompt that shows the LLM two of them — question, SQL and first rows — and the reading of its
 * choice. A tournament of them costs one call per contender after the first.
 */
public final class PairwiseTieBreak {
    /** The line that asks for a comparison: the simulated LLM recognizes a comparison prompt by it. */
    public static final String ASK = "Compare candidate A and candidate B: which one answers the question?";
    /** Rows of each result shown to the LLM: enough to see a wrong filter or aggregate, few enough to stay cheap. */
    static final int PREVIEW_ROWS = 10;
    private static final int CELL_CHARS = 60;
    private static final Pattern CHOICE = Pattern.compile("(?i)\"?choice\"?\\s*[:=]\\s*\"?\\s*\\b([AB])\\b");
    private static final Pattern REASON = Pattern.compile("(?i)\"?reason\"?\\s*[:=]\\s*\"?([^\"\\n]*)");

    /** The LLM's choice between A and B, and why. */
    public record Verdict(boolean chooseA, String reason) {}

    private PairwiseTieBreak() {}

    /**
     * One candidate per group of agreeing results as large as the largest (its lowest index), in index order: those the
     * selector could not choose among. Fewer than two: nothing to compare.
     */
    public static List<Candidate> contenders(List<Candidate> candidates) {
        Map<String, List<Candidate>> byResult = new LinkedHashMap<>();
        for (Candidate c : candidates) {
            if (c.votes()) byResult.computeIfAbsent(c.fingerprint(), k -> new ArrayList<>()).add(c);
        }
        int largest = byResult.values().stream().mapToInt(List::size).max().orElse(0);
        return byResult.values().stream().filter(g -> g.size() == largest)
                .map(g -> g.stream().min(Comparator.comparingInt(Candidate::index)).orElseThrow())
                .sorted(Comparator.comparingInt(Candidate::index)).toList();
    }

    /** The comparison prompt: a fixed system part (cacheable), the question with both candidates as the user part. */
    public static LlmClient.Prompt prompt(QuestionTask task, Dialect dialect, Candidate a, Candidate b) {
        String system = "You judge SQL answers to a question about a " + dialect.wireName() + " database. You get the question,"
                + " two candidate queries that return different results, and the first rows each returned. Choose the one that"
                + " answers the question correctly: check the join keys, the filter values, the date bounds, the aggregates,"
                + " DISTINCT, the ordering and the limit against what the question asks.\n"
                + "Reply with two lines: `CHOICE: A` or `CHOICE: B`, then `REASON: ` and one sentence. When asked for JSON,"
                + " reply {\"choice\": \"A\" or \"B\", \"reason\": \"one sentence\"}.";
        StringBuilder user = new StringBuilder("Question: ").append(task.question()).append('\n');
        if (task.instructions() != null) user.append("Instructions: ").append(task.instructions()).append('\n');
        user.append('\n');
        candidate(user, "A", a);
        candidate(user, "B", b);
        user.append(ASK);
        // served before first attempts, as corrections are: the question's work is done but for this choice
        return new LlmClient.Prompt(system, "", user.toString(), true);
    }

    private static void candidate(StringBuilder out, String label, Candidate c) {
        out.append("Candidate ").append(label).append(":\n```sql\n").append(c.sql().strip()).append("\n```\n");
        Execution e = c.execution();
        if (e == null) {
            out.append("Result of ").append(label).append(": none\n\n");
            return;
        }
        int shown = Math.min(PREVIEW_ROWS, e.preview().size());
        out.append("Result of ").append(label).append(" (").append(e.rowCount()).append(e.rowCount() == 1 ? " row" : " rows")
                .append(shown < e.rowCount() ? ", first " + shown + " shown" : "").append("):\n");
        out.append(String.join(" | ", e.columns())).append('\n');
        for (List<Object> row : e.preview().subList(0, shown)) {
            out.append(row.stream().map(PairwiseTieBreak::cell).collect(Collectors.joining(" | "))).append('\n');
        }
        out.append('\n');
    }

    private static String cell(Object v) {
        String s = v == null ? "NULL" : v.toString().replaceAll("\\s+", " ");
        return s.length() > CELL_CHARS ? s.substring(0, CELL_CHARS) + "…" : s;
    }

    /** The choice in a reply ({@code CHOICE: B} or {@code {"choice": "B"}}); empty when it names neither. */
    public static Optional<Verdict> parse(String reply) {
        if (reply == null) return Optional.empty();
        Matcher m = CHOICE.matcher(reply);
        if (!m.find()) return Optional.empty();
        boolean a = m.group(1).toUpperCase(Locale.ROOT).equals("A");
        Matcher r = REASON.matcher(reply);
        String reason = r.find() ? r.group(1).strip() : "";
        return Optional.of(new Verdict(a, reason.isEmpty() ? "no reason given" : reason));
    }
}
