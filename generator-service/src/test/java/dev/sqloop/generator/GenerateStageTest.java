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
import dev.langchain4j.exception.HttpException;
import dev.langchain4j.exception.InternalServerException;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
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
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
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
        assertEquals(1, registry.get(Metrics.GEN_AI_OPERATION_DURATION).tag(Metrics.ERROR_TYPE, "").timer().count());
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
        Outcome.Send out = (Outcome.Send) stage(p -> new LlmClient.Reply("SELECT 1", TokenUsage.ZERO)).process(retry);
        assertTrue(prompts.getFirst().user().startsWith("Failed SQL:"));
        // answered: validation, execution and a next repair do not carry it (a next repair writes its own)
        QuestionTask generated = (QuestionTask) out.emissions().getFirst().message();
        assertEquals("SELECT 1", generated.sql());
        assertNull(generated.correctionPrompt());
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
        assertEquals(1, registry.get(Metrics.GEN_AI_OPERATION_DURATION).tag(Metrics.ERROR_TYPE, "InfrastructureException").timer().count(),
                "no status known: the exception's class");
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
        assertEquals(1, registry.get(Metrics.GEN_AI_OPERATION_DURATION).tag(Metrics.ERROR_TYPE, "401").timer().count());
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
        assertEquals(80.0, registry.get(Metrics.GEN_AI_TOKEN_USAGE).tag(Metrics.GEN_AI_TOKEN_TYPE, "input").summary().totalAmount());
        assertEquals(16.0, registry.get(Metrics.GEN_AI_TOKEN_USAGE).tag(Metrics.GEN_AI_TOKEN_TYPE, "output").summary().totalAmount());
        assertEquals(2, registry.get(Metrics.GEN_AI_TOKEN_USAGE).tag(Metrics.GEN_AI_TOKEN_TYPE, "output").summary().count(), "one per call");
    }

    @Test
    void shouldExportEveryLlmCallUnderTheGenAiNamesWithABoundedErrorType() {
        List<RuntimeException> failures = new ArrayList<>(List.of(
                LangChainLlmClient.classify(new InternalServerException(new HttpException(503, "overloaded"))),
                LangChainLlmClient.classify(new dev.langchain4j.exception.TimeoutException("read timed out")),
                LangChainLlmClient.classify(new RuntimeException(new java.io.UncheckedIOException(new java.net.ConnectException("refused"))))));
        LlmClient client = new LlmClient() {
            @Override
            public Reply complete(Prompt prompt) {
                if (!failures.isEmpty()) throw failures.removeFirst();
                return new Reply("SELECT 1", new TokenUsage(300, 12));
            }

            @Override
            public String provider() {
                return GeneratorConfig.OLLAMA;
            }

            @Override
            public String model() {
                return "llama3.1";
            }
        };
        GenerateStage s = new GenerateStage(client, Tasks.DIALECTS, new PromptBuilder(true), new MicrometerStageMetrics(registry),
                Clock.systemUTC());
        for (int i = 0; i < 3; i++) assertThrows(InfrastructureException.class, () -> s.process(Tasks.fresh("demo")));
        only(s.process(Tasks.fresh("demo")), Topics.STATIC_VALIDATE.name());

        String scrape = registry.scrape();
        String tags = ",gen_ai_operation_name=\"chat\",gen_ai_provider_name=\"ollama\",gen_ai_request_model=\"llama3.1\"";
        for (String errorType : List.of("", "503", "timeout", "ConnectException")) {
            String count = "gen_ai_client_operation_duration_seconds_count{error_type=\"" + errorType + "\"" + tags + "} 1";
            assertTrue(scrape.contains(count), () -> "missing " + count + " in\n" + scrape);
        }
        String le = "gen_ai_client_operation_duration_seconds_bucket{error_type=\"\"" + tags + ",le=\"81.92\"} 1";
        assertTrue(scrape.contains(le), () -> "missing " + le + " in\n" + scrape);
        String tokenTags = "gen_ai_operation_name=\"chat\",gen_ai_provider_name=\"ollama\",gen_ai_request_model=\"llama3.1\",gen_ai_token_type=";
        for (String bucket : List.of(tokenTags + "\"input\",le=\"256.0\"} 0", tokenTags + "\"input\",le=\"1024.0\"} 1",
                tokenTags + "\"output\",le=\"4.0\"} 0", tokenTags + "\"output\",le=\"16.0\"} 1")) {
            assertTrue(scrape.contains("gen_ai_client_token_usage_bucket{" + bucket), () -> "missing " + bucket + " in\n" + scrape);
        }
        assertEquals(1, registry.get(Metrics.GEN_AI_TOKEN_USAGE).tag(Metrics.GEN_AI_TOKEN_TYPE, "input").summary().count(),
                "failed calls record no tokens");
        assertTrue(!scrape.contains("sqloop_llm"), "the old sqloop.llm.* meters are gone");
    }
}
