package dev.sqloop.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Topics;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.error.Outcomes;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.message.TokenUsage;
import dev.sqloop.common.metrics.Metrics;
import dev.sqloop.common.metrics.MicrometerStageMetrics;
import dev.sqloop.common.runtime.InfrastructureException;
import dev.sqloop.common.runtime.Outcome;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class GenerateStageTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final List<LlmClient.Prompt> prompts = new ArrayList<>();

    private GenerateStage stage(Function<LlmClient.Prompt, LlmClient.Reply> llm) {
        LlmClient client = p -> {
            prompts.add(p);
            return llm.apply(p);
        };
        return new GenerateStage(client, Tasks.DIALECTS, new PromptBuilder(true), new MicrometerStageMetrics(registry),
                Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC));
    }

    private static QuestionTask only(Outcome outcome, String topic) {
        Outcome.Send send = assertInstanceOf(Outcome.Send.class, outcome);
        assertEquals(1, send.emissions().size());
        assertEquals(topic, send.emissions().getFirst().topic());
        return (QuestionTask) send.emissions().getFirst().message();
    }

    @Test
    void shouldWriteTheDialectTheTaskCarriesRatherThanLookItUp() {
        // "elsewhere" is unknown to this generator's settings: the gateway resolved its dialect at submission
        QuestionTask task = Tasks.fresh("elsewhere").withDialect(dev.sqloop.common.Dialect.HIVE);
        QuestionTask t = only(stage(p -> new LlmClient.Reply("SELECT 1", TokenUsage.ZERO)).process(task), Topics.STATIC_VALIDATE.name());
        assertEquals("SELECT 1", t.sql());
        assertTrue(prompts.getFirst().system().startsWith("Write HiveQL"), prompts.getFirst().system());
    }

    @Test
    void shouldForwardValidSqlToStaticValidationWithTokenUsage() {
        Outcome out = stage(p -> new LlmClient.Reply("{\"sql\": \"SELECT region, sum(amount) FROM sales GROUP BY region;\"}",
                new TokenUsage(120, 15))).process(Tasks.fresh("warehouse"));
        QuestionTask t = only(out, Topics.STATIC_VALIDATE.name());
        assertEquals("SELECT region, sum(amount) FROM sales GROUP BY region", t.sql());
        assertEquals(new TokenUsage(120, 15), t.usage());
        assertEquals(1, t.attempt(), "generation never changes the attempt");
        assertTrue(t.timings().containsKey("generate"));
        assertTrue(prompts.getFirst().system().startsWith("Write Trino SQL"));
        assertEquals(1, registry.get(Metrics.LLM_DURATION).tag("outcome", "ok").timer().count());
    }

    @Test
    void shouldRouteProseToRepairAsLlmOutputInvalid() {
        Outcome out = stage(p -> new LlmClient.Reply("I would need more context to answer that.", new TokenUsage(100, 9)))
                .process(Tasks.fresh("demo"));
        assertEquals("repair", out.kind());
        QuestionTask t = only(out, Topics.REPAIR_FEEDBACK.name());
        assertEquals(ErrorCategory.LLM_OUTPUT_INVALID, t.issues().getFirst().category());
        assertEquals("I would need more context to answer that.", t.sql(), "kept so the retry guard can compare");
        assertEquals(new TokenUsage(100, 9), t.usage(), "an invalid answer still cost tokens");
    }

    @Test
    void shouldSendTheCorrectionPromptOnARetry() {
        QuestionTask retry = Tasks.fresh("warehouse").withSql("SELECT x", null).nextAttempt("Failed SQL:\nSELECT x\n\nFix and regenerate for: \"q\"");
        stage(p -> new LlmClient.Reply("SELECT 1", TokenUsage.ZERO)).process(retry);
        assertTrue(prompts.getFirst().user().startsWith("Failed SQL:"));
    }

    @Test
    void shouldEndAQuestionOnAnUnknownDatasourceWithoutCallingTheLlm() {
        Outcome out = stage(p -> new LlmClient.Reply("SELECT 1", TokenUsage.ZERO)).process(Tasks.fresh("nowhere"));
        QuestionResult r = (QuestionResult) assertInstanceOf(Outcome.Send.class, out).emissions().getFirst().message();
        assertEquals(Outcomes.UNKNOWN_DATASOURCE, r.reason());
        assertTrue(prompts.isEmpty());
    }

    @Test
    void shouldLetInfrastructureFailuresReachTheRunner() {
        InfrastructureException down = new InfrastructureException("HTTP 503", null, Duration.ofSeconds(2));
        GenerateStage s = stage(p -> {
            throw down;
        });
        assertSame(down, assertThrows(InfrastructureException.class, () -> s.process(Tasks.fresh("demo"))));
        assertEquals(1, registry.get(Metrics.LLM_DURATION).tag("outcome", "error").timer().count());
    }

    @Test
    void shouldEndTheQuestionLlmUnavailableWhenTheRetryBudgetIsSpent() {
        GenerateStage s = stage(p -> null);
        Outcome out = s.onGiveUp(Tasks.fresh("demo"), new InfrastructureException("HTTP 500", null), true, Instant.EPOCH);
        QuestionResult r = (QuestionResult) assertInstanceOf(Outcome.Send.class, out).emissions().getFirst().message();
        assertEquals(Outcomes.LLM_UNAVAILABLE, r.reason());
        assertEquals(1, r.attempts());
        assertTrue(r.errorMessage().contains("HTTP 500"));
        QuestionResult defect = (QuestionResult) ((Outcome.Send) s.onGiveUp(Tasks.fresh("demo"), new IllegalStateException("bug"),
                false, Instant.EPOCH)).emissions().getFirst().message();
        assertEquals(Outcomes.INTERNAL_ERROR, defect.reason(), "defects keep the default reason");
    }

    @Test
    void shouldFailTheQuestionClearlyWhenTheEndpointRejectsTheRequest() {
        Outcome out = stage(p -> {
            throw new LlmRejectedException(401, "LLM endpoint rejected the request (HTTP 401): invalid api key", null);
        }).process(Tasks.fresh("demo"));
        QuestionResult r = (QuestionResult) assertInstanceOf(Outcome.Send.class, out).emissions().getFirst().message();
        assertEquals(QuestionResult.FAILED, r.status());
        assertEquals(Outcomes.LLM_UNAVAILABLE, r.reason());
        assertTrue(r.errorMessage().contains("HTTP 401"), r.errorMessage());
        assertNull(r.sql());
    }

    @Test
    void shouldApplyTheProjectionContractOnlyWhenEnabledAndCountTokens() {
        LlmClient llm = p -> new LlmClient.Reply("SELECT id, email, name FROM customers", new TokenUsage(40, 8));
        QuestionTask q = QuestionTask.create("q-p", "acme", "demo", "List the name and email of all customers", 3, Instant.now());
        Clock clock = Clock.systemUTC();
        QuestionTask on = only(new GenerateStage(llm, Tasks.DIALECTS, new PromptBuilder(true), ProjectionContract.ON, new MicrometerStageMetrics(registry), clock)
                .process(q), Topics.STATIC_VALIDATE.name());
        assertEquals("SELECT name, email FROM customers", on.sql());
        QuestionTask off = only(new GenerateStage(llm, Tasks.DIALECTS, new PromptBuilder(true), new MicrometerStageMetrics(registry), clock).process(q),
                Topics.STATIC_VALIDATE.name());
        assertEquals("SELECT id, email, name FROM customers", off.sql());
        assertEquals(80.0, registry.get(GenerateStage.TOKENS).tag("type", "input").counter().count());
        assertEquals(16.0, registry.get(GenerateStage.TOKENS).tag("type", "output").counter().count());
    }
}
