package dev.sqloop.common.message;

import java.util.List;

/**
 * What an attempt's prompt held, as a reviewer reads it beside the SQL it produced: the tables of the schema shown,
 * the examples used with their retrieval scores, and the tokens spent so far. Carried on the attempt's trace event
 * (the validator's, the first stage that sees the generated SQL; the repair decision's for an answer that was not SQL),
 * never the prompt text itself.
 *
 * @param tables the linked schema's table names, in prompt order
 * @param wholeSchema the datasource's whole schema was shown (it fit), not a subset linked to the question
 * @param examples the few-shot examples, best first
 * @param usage tokens and cost of the question's attempts up to and including this one (a running sum: the attempt's
 *     own share is the difference to the attempt before it)
 */
public record PromptParts(List<String> tables, boolean wholeSchema, List<ExampleShown> examples, TokenUsage usage) {
    /** Longest example question kept on an event: the trace shows which example, the memory holds the rest. */
    static final int MAX_QUESTION_CHARS = 200;

    public PromptParts {
        tables = tables == null ? List.of() : List.copyOf(tables);
        examples = examples == null ? List.of() : List.copyOf(examples);
        usage = usage == null ? TokenUsage.ZERO : usage;
    }

    /** An example the prompt showed: its question, how similar retrieval scored it, and its source (seed, auto, manual). */
    public record ExampleShown(String question, double score, String source) {}

    /** The parts of the prompt {@code task}'s SQL was generated from. */
    public static PromptParts of(QuestionTask task) {
        LinkedSchema schema = task.linkedSchema();
        List<String> tables = schema == null ? List.of() : schema.tables().stream().map(LinkedSchema.Table::name).toList();
        List<ExampleShown> examples = task.examples() == null ? List.of() : task.examples().stream()
                .map(e -> new ExampleShown(clip(e.question()), e.score(), e.source())).toList();
        return new PromptParts(tables, schema != null && schema.whole(), examples, task.usage());
    }

    private static String clip(String s) {
        return s == null || s.length() <= MAX_QUESTION_CHARS ? s : s.substring(0, MAX_QUESTION_CHARS - 1) + "…";
    }
}
