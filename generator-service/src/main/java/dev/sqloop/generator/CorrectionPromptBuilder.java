package dev.sqloop.generator;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.Whitespace;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.Issue;
import dev.sqloop.common.message.QuestionTask;
import java.util.List;
import java.util.Optional;

/**
 * The user part of a retry: the failed SQL, the error (engine text, offending identifier, the engine's
 * suggestions), the category's instruction, the dialect guidance from the error-pattern registry, similar
 * past fixes, and "Fix and regenerate for: question". Concise on purpose (004: ~50 tokens plus the SQL and the
 * error); long errors such as Spark's stack traces are cut.
 */
public final class CorrectionPromptBuilder {
    /** Whether the error evidence goes into the prompt. {@link #STRIPPED} exists only to prove in tests that the evidence is what repairs. */
    public enum Evidence { INCLUDED, STRIPPED }

    static final int MAX_ERROR_CHARS = 300;
    private static final int MAX_ISSUES = 2;
    private static final int MAX_CANDIDATES = 5;

    private final ErrorPatternRegistry registry;
    private final PastFixes pastFixes;
    private final Evidence evidence;

    public CorrectionPromptBuilder(ErrorPatternRegistry registry, PastFixes pastFixes, Evidence evidence) {
        this.registry = registry;
        this.pastFixes = pastFixes;
        this.evidence = evidence;
    }

    public String build(QuestionTask task, Dialect dialect) {
        Issue primary = primaryIssue(task.issues());
        StringBuilder p = new StringBuilder();
        p.append("Failed SQL:\n").append(task.sql() == null ? "" : task.sql().strip()).append("\n\n");
        Optional<ErrorPatternRegistry.ErrorPattern> pattern = Optional.empty();
        if (evidence == Evidence.INCLUDED) {
            p.append("Error:\n");
            // Hints (heuristic doubts) are left out: the SQL fails for its errors, and a hint about a correct part
            // would make the model "repair" what was right.
            List<Issue> errors = errors(task.issues());
            errors.stream().limit(MAX_ISSUES).forEach(i -> p.append(describe(i)).append('\n'));
            if (errors.isEmpty()) p.append("unknown error\n");
            pattern = registry.match(dialect, primary.message());
        }
        p.append('\n');
        // A stage that could not classify the error still gets a targeted instruction when the registry knows it.
        ErrorCategory category = primary.category() == ErrorCategory.UNKNOWN && pattern.isPresent()
                ? pattern.get().category() : primary.category();
        p.append(CorrectionStrategy.forIssue(category, primary.message()).guidance(dialect, task)).append('\n');
        pattern.ifPresent(e -> p.append(dialect.displayName()).append(": ").append(e.guidance()).append('\n'));
        if (evidence == Evidence.INCLUDED) {
            List<PastFixes.PastFix> fixes = pastFixes.similar(task.datasource(), dialect, primary);
            if (!fixes.isEmpty()) {
                p.append("Similar past fixes:\n");
                fixes.stream().limit(PastFixes.MAX).forEach(f -> p.append("- error: ").append(clip(oneLine(f.error()), 120))
                        .append("\n  fix: ").append(clip(oneLine(f.fixedSql()), 400)).append('\n'));
            }
        }
        p.append("\nFix and regenerate for: \"").append(task.question().strip()).append('"');
        return p.toString();
    }

    /** The issue that decides the strategy: the first error, or a neutral one when a stage reported none. */
    static Issue primaryIssue(List<Issue> issues) {
        List<Issue> errors = errors(issues);
        return errors.isEmpty() ? Issue.of("repair", ErrorCategory.UNKNOWN, "") : errors.getFirst();
    }

    static List<Issue> errors(List<Issue> issues) {
        return issues.stream().filter(Issue::error).toList();
    }

    private static String describe(Issue issue) {
        StringBuilder s = new StringBuilder("[").append(issue.category().wireName()).append("] ")
                .append(clip(cutStackTrace(issue.message()), MAX_ERROR_CHARS));
        if (issue.category() == ErrorCategory.SYNTAX_ERROR && issue.identifier() != null && !issue.identifier().isBlank()) {
            // Quote the token the parser stopped at: a model that does not see its own slip (SELEC, FORM) repeats it.
            s.append(" Offending token: '").append(issue.identifier()).append("'.");
        } else if (issue.identifier() != null && !issue.identifier().isBlank() && !issue.message().contains(issue.identifier())) {
            s.append(" (at ").append(issue.identifier()).append(')');
        }
        if (!issue.candidates().isEmpty()) {
            s.append(" Did you mean: ").append(String.join(", ",
                    issue.candidates().subList(0, Math.min(MAX_CANDIDATES, issue.candidates().size())))).append('?');
        }
        return s.toString();
    }

    /** Spark and Hive append the server's stack trace and plan; the first lines carry the meaning. */
    static String cutStackTrace(String message) {
        String m = message == null ? "" : message;
        int at = m.indexOf("\n\tat ");
        if (at >= 0) m = m.substring(0, at);
        int plan = m.indexOf("\n== ");
        if (plan >= 0 && !m.contains("PARSE_SYNTAX_ERROR")) m = m.substring(0, plan);
        return oneLine(m);
    }

    private static String oneLine(String s) {
        return s == null ? "" : Whitespace.oneLine(s);
    }

    private static String clip(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max - 1) + "…";
    }
}
