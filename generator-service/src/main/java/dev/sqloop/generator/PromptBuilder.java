package dev.sqloop.generator;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.message.Example;
import dev.sqloop.common.message.LinkedSchema;
import dev.sqloop.common.message.QuestionTask;

/**
 * Builds the generation prompt. System part: dialect hint, the linked schema carried in the message, rules,
 * similar examples, then the answer format. User part: the question, or on a retry the repair worker's
 * correction prompt (which already names the question), followed on every attempt by the instructions the asker
 * gave with the question, if any: they are part of what is asked (the gold of an evaluation was written to them).
 */
public final class PromptBuilder {
    /** Examples beyond this add tokens without adding much; the retriever usually sends 3-5. */
    private static final int MAX_EXAMPLES = 5;

    private final boolean jsonMode;

    public PromptBuilder(boolean jsonMode) {
        this.jsonMode = jsonMode;
    }

    public LlmClient.Prompt build(QuestionTask task, Dialect dialect) {
        StringBuilder s = new StringBuilder();
        s.append("Write ").append(dialect.displayName()).append(" SQL that answers the user's question.\n\n");
        LinkedSchema schema = task.linkedSchema();
        if (schema != null && !schema.tables().isEmpty()) {
            s.append("## Schema\n").append(schema.render());
            s.append('\n');
        }
        s.append("## Rules\n")
                .append("- Exactly one read-only query (SELECT or WITH); never modify data.\n")
                .append("- Use only the tables and columns of the schema.\n")
                .append("- Use ").append(dialect.displayName()).append(" functions and syntax.\n")
                .append("- No explanations, no comments.\n\n");
        if (!task.examples().isEmpty()) {
            s.append("## Similar Examples\n");
            task.examples().stream().limit(MAX_EXAMPLES).forEach(e -> appendExample(s, e));
            s.append('\n');
        }
        s.append("## Instructions\n");
        s.append(jsonMode
                ? "Answer with a JSON object {\"sql\": \"<the query>\"} and nothing else."
                : "Answer with the query in one ```sql fenced block and nothing else.");
        boolean correction = task.attempt() > 1 && task.correctionPrompt() != null && !task.correctionPrompt().isBlank();
        String user = correction ? task.correctionPrompt() : task.question();
        if (task.instructions() != null) user = user + "\n\n" + INSTRUCTIONS + task.instructions().strip();
        return new LlmClient.Prompt(s.toString(), user, task.attempt() > 1);
    }

    /** What introduces the asker's instructions after the question in the user part. */
    public static final String INSTRUCTIONS = "Instructions for this question: ";

    private static void appendExample(StringBuilder s, Example e) {
        s.append("Q: ").append(e.question().strip()).append('\n').append("SQL: ").append(e.sql().strip()).append('\n');
    }
}
