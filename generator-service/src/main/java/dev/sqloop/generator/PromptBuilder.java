package dev.sqloop.generator;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.message.Example;
import dev.sqloop.common.message.LinkedSchema;
import dev.sqloop.common.message.QuestionTask;

/**
 * Builds the generation prompt, laid out for the providers' prompt caches: first what every question of a datasource
 * shares (the dialect, the rules, the answer format and, when the linker gave it whole, the datasource's schema), then
 * this question's context (a linked schema subset, similar examples), and in the user part the question, or on a retry
 * the repair worker's correction prompt (which already names the question), followed on every attempt by the
 * instructions the asker gave with the question, if any: they are part of what is asked (the gold of an evaluation
 * was written to them). Consecutive questions of a datasource thus share the longest possible prefix. Examples fill
 * the prompt up to {@link #PROMPT_TOKEN_BUDGET} estimated tokens, best first (the best one always).
 */
public final class PromptBuilder {
    /** Examples beyond this add tokens without adding much; the retriever usually sends 3-5. */
    private static final int MAX_EXAMPLES = 5;
    /**
     * Estimated tokens ({@link LinkedSchema#estimateTokens}) a whole prompt may reach by adding examples, for issue 49's
     * target of at most 1,500 tokens with examples and the needed schema: five examples took a 1,000-token schema's
     * prompts to 1,635 tokens on average (defog advising, {@code ./sqloop bench cost --single-datasource --examples}).
     * 1,400, not 1,500: four characters a token undercounts these prompts (identifiers, SQL) by about 5 % against
     * gpt-4o's tokenizer; a budget of 1,500 left advising at 1,527 a call.
     */
    public static final int PROMPT_TOKEN_BUDGET = 1400;

    private final boolean jsonMode;
    private final int promptTokenBudget;

    public PromptBuilder(boolean jsonMode) {
        this(jsonMode, PROMPT_TOKEN_BUDGET);
    }

    /** @param promptTokenBudget estimated tokens up to which examples are added (the best one always) */
    public PromptBuilder(boolean jsonMode, int promptTokenBudget) {
        this.jsonMode = jsonMode;
        this.promptTokenBudget = promptTokenBudget;
    }

    public LlmClient.Prompt build(QuestionTask task, Dialect dialect) {
        StringBuilder prefix = new StringBuilder();
        prefix.append("Write ").append(dialect.displayName()).append(" SQL that answers the user's question.\n\n");
        prefix.append("## Rules\n")
                .append("- Exactly one read-only query (SELECT or WITH); never modify data.\n")
                .append("- Use only the tables and columns of the schema.\n")
                .append("- Use ").append(dialect.displayName()).append(" functions and syntax.\n")
                .append(dialectRules(dialect))
                .append("- No explanations, no comments.\n\n");
        prefix.append("## Instructions\n");
        prefix.append(jsonMode
                ? "Answer with a JSON object {\"sql\": \"<the query>\"} and nothing else."
                : "Answer with the query in one ```sql fenced block and nothing else.");
        prefix.append("\n\n");
        StringBuilder context = new StringBuilder();
        LinkedSchema schema = task.linkedSchema();
        if (schema != null && !schema.tables().isEmpty()) {
            // the whole schema is the same for every question of the datasource: cacheable; a linked subset is not
            (schema.whole() ? prefix : context).append("## Schema\n").append(schema.render()).append('\n');
        }
        boolean correction = task.attempt() > 1 && task.correctionPrompt() != null && !task.correctionPrompt().isBlank();
        String user = correction ? task.correctionPrompt() : task.question();
        if (task.instructions() != null) user = user + "\n\n" + INSTRUCTIONS + task.instructions().strip();
        if (!task.examples().isEmpty()) {
            // The examples are the per-question part that grows a prompt (five took a 1,000-token schema's prompt to
            // ~1,650 tokens); they fill what the budget leaves, best first, and the best one always (the schema, which
            // recall needs whole, is never cut for them). The shared prefix is unchanged, so the cache still serves it.
            StringBuilder examples = new StringBuilder("## Similar Examples\n");
            int used = LinkedSchema.estimateTokens(prefix.toString() + context + user);
            int added = 0;
            for (Example e : task.examples().subList(0, Math.min(MAX_EXAMPLES, task.examples().size()))) {
                StringBuilder one = new StringBuilder();
                appendExample(one, e);
                if (added > 0 && used + LinkedSchema.estimateTokens(examples.toString() + one) > promptTokenBudget) break;
                examples.append(one);
                added++;
            }
            context.append(examples).append('\n');
        }
        return new LlmClient.Prompt(prefix.toString(), context.toString(), user, task.attempt() > 1);
    }

    /**
     * What models trained mostly on PostgreSQL get wrong on ClickHouse (the repair registry's most frequent fixes):
     * case-sensitive function names, its conditional aggregates, date functions, window functions, arrays, FINAL,
     * and scalar subqueries that cannot see outer columns.
     */
    static String dialectRules(Dialect dialect) {
        if (dialect != Dialect.CLICKHOUSE) return "";
        return "- ClickHouse function names are case-sensitive: countIf(cond), sumIf(x, cond), uniqExact(x), toStartOfMonth(d),"
                + " toYear(d), formatDateTime(d, '%Y-%m'), dateDiff('day', a, b).\n"
                + "- For the previous/next row use lagInFrame(x)/leadInFrame(x) OVER (PARTITION BY … ORDER BY … ROWS BETWEEN"
                + " UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING).\n"
                + "- Arrays: groupArray(x), arrayJoin(arr), has(arr, v); add FINAL after a ReplacingMergeTree table for its"
                + " latest rows.\n"
                + "- A scalar subquery cannot use the outer query's columns: join on the key instead.\n";
    }

    /** What introduces the asker's instructions after the question in the user part. */
    public static final String INSTRUCTIONS = "Instructions for this question: ";

    private static void appendExample(StringBuilder s, Example e) {
        s.append("Q: ").append(e.question().strip()).append('\n').append("SQL: ").append(e.sql().strip()).append('\n');
    }
}
