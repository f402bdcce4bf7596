package dev.sqloop.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.message.Example;
import dev.sqloop.common.message.LinkedSchema;
import dev.sqloop.common.message.NlConstraints;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.runtime.InfrastructureException;
import dev.sqloop.testkit.llm.PromptCache;
import dev.sqloop.testkit.llm.SimulatedLlm;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The Anthropic client over real HTTP against the simulator's Messages API: two questions of one datasource, the first
 * writing the stable prefix (rules and whole schema) to the prompt cache, the second reading it, each priced as Anthropic
 * bills it; a 429 may pass with its Retry-After, a 400 never will.
 */
class AnthropicLlmClientIT {
    // Claude Haiku 4.5's list prices (USD per million tokens): input, cache read, output; cache write 1.25x input
    private static final LlmPrices HAIKU = new LlmPrices(1.00, 0.10, 5.00, 0.5);

    @Test
    void shouldReadTheDatasourcesPrefixFromTheCacheOnItsSecondQuestion() {
        try (SimulatedLlm llm = SimulatedLlm.start(call -> "{\"sql\":\"SELECT count(*) FROM t00\"}")) {
            AnthropicLlmClient client = new AnthropicLlmClient(llm.anthropicBaseUrl(), "sk-ant-test",
                    new AnthropicLlmClient.Settings("claude-haiku-4-5", 0, 256), Duration.ofSeconds(30), 4, new RequestPacer(0), HAIKU);
            PromptBuilder prompts = new PromptBuilder(true);

            LlmClient.Reply first = client.complete(prompts.build(task("q-1", "How many rows has t00?"), Dialect.DUCKDB));
            LlmClient.Reply second = client.complete(prompts.build(task("q-2", "What is the largest c1 of t07?"), Dialect.DUCKDB));

            assertEquals("{\"sql\":\"SELECT count(*) FROM t00\"}", first.text());
            assertEquals(0, first.usage().cachedInputTokens(), "nothing cached before the first question");
            long prefix = second.usage().cachedInputTokens();
            assertTrue(prefix >= PromptCache.MIN_TOKENS, "the second question reads the rules and schema from the cache: " + second.usage());
            assertTrue(prefix < second.usage().inputTokens(), "its question and examples are not cached: " + second.usage());
            double share = (double) prefix / second.usage().inputTokens();
            assertTrue(share > 0.8, "a whole schema is most of the prompt, cached " + share);
            // the first pays the cache write (1.25x) on the prefix, the second 0.1x on it
            long uncachedFirst = first.usage().inputTokens() - prefix;
            assertEquals((uncachedFirst * 1.00 + prefix * 1.25 + first.usage().outputTokens() * 5.00) / 1e6, first.usage().cost(), 1e-9,
                    "first: " + first.usage());
            long uncachedSecond = second.usage().inputTokens() - prefix;
            assertEquals((uncachedSecond * 1.00 + prefix * 0.10 + second.usage().outputTokens() * 5.00) / 1e6, second.usage().cost(), 1e-9,
                    "second: " + second.usage());
            System.out.printf("anthropic online, 2 questions of one datasource: prompt %d / %d tokens, cached 0 / %d (%.0f %%), cost $%.6f / $%.6f%n",
                    first.usage().inputTokens(), second.usage().inputTokens(), prefix, 100 * share, first.usage().cost(), second.usage().cost());

            assertEquals(2, llm.requests().size());
            assertEquals("anthropic", llm.requests().get(1).call().api());
            assertTrue(llm.requests().get(1).call().system().contains("CREATE TABLE") || llm.requests().get(1).call().system().contains("t07"),
                    "the simulator sees the schema as the system text");

            llm.faults().rateLimitNext(1, Duration.ofSeconds(7));
            InfrastructureException limited = assertThrows(InfrastructureException.class,
                    () -> client.complete(new LlmClient.Prompt("rules", "how many?")));
            assertEquals(Duration.ofSeconds(7), limited.retryAfter().orElseThrow(), limited.getMessage());
            assertTrue(limited.getMessage().contains("429") && limited.getMessage().contains("rate_limit_error"), limited.getMessage());

            llm.faults().failNext(1, 400, null);
            LlmRejectedException rejected = assertThrows(LlmRejectedException.class,
                    () -> client.complete(new LlmClient.Prompt("rules", "how many?")));
            assertEquals(400, rejected.statusCode());
        }
    }

    /** A question about a 40-table datasource given whole, as the linker sends a schema that fits. */
    private static QuestionTask task(String id, String question) {
        List<LinkedSchema.Table> tables = new ArrayList<>();
        for (int t = 0; t < 40; t++) {
            List<LinkedSchema.Column> columns = new ArrayList<>();
            columns.add(new LinkedSchema.Column("id", "INTEGER", null, List.of()));
            for (int c = 1; c < 6; c++) columns.add(new LinkedSchema.Column("c" + c, "VARCHAR", "column " + c + " of t" + t, List.of()));
            tables.add(new LinkedSchema.Table(String.format("t%02d", t), "table number " + t, columns));
        }
        return QuestionTask.create(id, "acme", "demo", question, 3, Instant.parse("2026-01-01T00:00:00Z"))
                .withContext(List.of(new Example("How many rows has t01?", "SELECT count(*) FROM t01", 0.9, "seed")),
                        new LinkedSchema(tables, true), NlConstraints.NONE);
    }
}
