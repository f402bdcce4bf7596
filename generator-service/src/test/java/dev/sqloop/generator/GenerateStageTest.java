package dev.sqloop.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.langchain4j.exception.HttpException;
import dev.langchain4j.exception.InternalServerException;
import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.error.Outcomes;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.message.TokenUsage;
import dev.sqloop.common.metrics.Metrics;
import dev.sqloop.common.runtime.InfrastructureException;
import dev.sqloop.common.runtime.MicrometerStageMetrics;
import dev.sqloop.common.runtime.Outcome;
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
    void shouldAskForTheOtherCandidatesOnAFirstAttemptOnlyWhereTheDatasourceWantsThem() {
        GenerateStage three = stage(p -> p.user().contains("Candidate 3 of 3") ? new LlmClient.Reply("no idea", new TokenUsage(50, 3))
                : new LlmClient.Reply("SELECT " + prompts.size(), new TokenUsage(100, 10))).withCandidates(Map.of("warehouse", 3));
        QuestionTask t = only(three.process(Tasks.fresh("warehouse")), Topics.STATIC_VALIDATE.name());
        assertEquals("SELECT 1", t.sql());
        assertEquals(3, prompts.size());
        assertTrue(prompts.get(1).user().endsWith(GenerateStage.candidateLine(2, 3)), prompts.get(1).user());
        assertEquals(prompts.get(0).prefix(), prompts.get(1).prefix(), "the shared prefix stays cacheable");
        assertEquals(List.of(2, 3), t.candidates().stream().map(dev.sqloop.common.message.Candidate::index).toList());
        assertEquals("SELECT 2", t.candidates().get(0).sql());
        assertEquals(dev.sqloop.common.message.Candidate.INVALID, t.candidates().get(1).status(), "prose does not vote");
        assertEquals(new TokenUsage(250, 23), t.usage(), "every candidate's tokens are the question's");
        // another datasource, and a correction of this one, ask once
        prompts.clear();
        assertTrue(only(three.process(Tasks.fresh("demo")), Topics.STATIC_VALIDATE.name()).candidates().isEmpty());
        QuestionTask correction = Tasks.fresh("warehouse").nextAttempt("The previous SQL failed: regenerate");
        only(three.process(correction), Topics.STATIC_VALIDATE.name());
        assertEquals(2, prompts.size());
    }

    @Test
    void shouldAskForAsManyCandidatesAsTheSubmitterWantedWhateverTheDatasourceSays() {
        GenerateStage stage = stage(p -> new LlmClient.Reply("SELECT " + prompts.size(), new TokenUsage(100, 10)))
                .withCandidates(Map.of("warehouse", 3));
        // "demo" asks for one by default; its submitter wants three
        QuestionTask three = only(stage.process(Tasks.fresh("demo").withCandidatesWanted(3)), Topics.STATIC_VALIDATE.name());
        assertEquals(List.of(2, 3), three.candidates().stream().map(dev.sqloop.common.message.Candidate::index).toList());
        assertTrue(prompts.get(2).user().endsWith(GenerateStage.candidateLine(3, 3)), prompts.get(2).user());
        // "warehouse" asks for three by default; its submitter wants one
        prompts.clear();
        assertTrue(only(stage.process(Tasks.fresh("warehouse").withCandidatesWanted(1)), Topics.STATIC_VALIDATE.name()).candidates().isEmpty());
        assertEquals(1, prompts.size());
        // a correction never asks for candidates, whatever was wanted
        prompts.clear();
        only(stage.process(Tasks.fresh("demo").withCandidatesWanted(3).nextAttempt("The previous SQL failed: regenerate")),
                Topics.STATIC_VALIDATE.name());
        assertEquals(1, prompts.size());
    }

    /** What the executor sends back when its candidates tie (issue 50): every candidate ran, three different results. */
    private static QuestionTask tied() {
        List<dev.sqloop.common.message.Candidate> cs = List.of(PairwiseTieBreakTest.ran(1, "SELECT 1", "x", 1),
                PairwiseTieBreakTest.ran(2, "SELECT 2", "y", 2), PairwiseTieBreakTest.ran(3, "SELECT 3", "z", 3));
        return Tasks.fresh("demo").withSql("SELECT 1", TokenUsage.ZERO).withExecution(cs.getFirst().execution()).withCandidates(cs);
    }

    @Test
    void shouldBreakATieWithAPairwiseTournamentAndEndTheQuestionWithItsWinner() {
        assertTrue(tied().awaitsTieBreak());
        assertFalse(Tasks.fresh("demo").awaitsTieBreak());
        // 1 vs 2: B; then 2 vs 3: A
        GenerateStage stage = stage(p -> new LlmClient.Reply(prompts.size() == 1 ? "CHOICE: B\nREASON: 2 filters right" : "CHOICE: A\nREASON: 3 drops the limit",
                new TokenUsage(300, 20)));
        Outcome.Send send = assertInstanceOf(Outcome.Send.class, stage.process(tied()));
        assertEquals(List.of(Topics.RESULTS.name(), Topics.EVENTS.name()), send.emissions().stream().map(Outcome.Emission::topic).toList(),
                "the winner ends the question; nothing goes to success, so it is never captured");
        QuestionResult r = (QuestionResult) send.emissions().get(0).message();
        assertEquals("succeeded", r.status());
        assertEquals("SELECT 2", r.sql());
        assertEquals(2, r.execution().preview().getFirst().getFirst(), "the winner's own result");
        assertEquals(new TokenUsage(600, 40), r.usage(), "both comparisons are the question's cost");
        assertEquals(3, r.candidates().size());
        dev.sqloop.common.message.AttemptEvent e = (dev.sqloop.common.message.AttemptEvent) send.emissions().get(1).message();
        assertEquals("pairwise", e.decision());
        assertEquals("pairwise: 3 candidates, 3 tied; candidate 2 over 1 (2 filters right); candidate 2 over 3 (3 drops the limit);"
                + " candidate 2 chosen", e.reason());
        assertEquals(2, prompts.size());
        assertTrue(prompts.get(0).user().contains("Candidate A:\n```sql\nSELECT 1") && prompts.get(0).user().contains("Candidate B:\n```sql\nSELECT 2"));
        assertTrue(prompts.get(1).user().contains("Candidate A:\n```sql\nSELECT 2") && prompts.get(1).user().contains("Candidate B:\n```sql\nSELECT 3"));
    }

    @Test
    void shouldCorrectTheCandidatesTheExecutorSentForRepairAndSendThemBackToRun() {
        dev.sqloop.common.message.Issue missing = new dev.sqloop.common.message.Issue("execute", ErrorCategory.COLUMN_NOT_FOUND,
                "Binder Error: Referenced column \"nam\" not found", "nam", List.of("name"));
        List<dev.sqloop.common.message.Candidate> cs = List.of(PairwiseTieBreakTest.ran(1, "SELECT 1", "x", 1),
                dev.sqloop.common.message.Candidate.generated(2, "SELECT nam FROM t").failed(missing).toRepair(),
                PairwiseTieBreakTest.ran(3, "SELECT 3", "z", 3));
        QuestionTask task = Tasks.fresh("demo").withSql("SELECT 1", TokenUsage.ZERO).withExecution(cs.getFirst().execution()).withCandidates(cs);
        assertTrue(task.awaitsCandidateRepair());
        assertFalse(task.awaitsTieBreak(), "a candidate still to repair: no tie to break yet");
        prompts.clear();
        Outcome.Send send = assertInstanceOf(Outcome.Send.class, stage(p -> new LlmClient.Reply("SELECT name FROM t", new TokenUsage(200, 10)))
                .process(task));
        assertEquals("candidate-repair", send.kind());
        assertEquals(List.of(Topics.EXECUTE.name(), Topics.EVENTS.name()), send.emissions().stream().map(Outcome.Emission::topic).toList());
        assertEquals(1, prompts.size(), "one call, for the one candidate to repair");
        String asked = prompts.getFirst().user();
        assertTrue(asked.contains("SELECT nam FROM t") && asked.contains("Referenced column \"nam\" not found"),
                "a correction prompt with the candidate's SQL and the engine's error: " + asked);
        QuestionTask back = (QuestionTask) send.emissions().getFirst().message();
        dev.sqloop.common.message.Candidate second = back.candidates().get(1);
        assertEquals(dev.sqloop.common.message.Candidate.GENERATED, second.status());
        assertEquals("SELECT name FROM t", second.sql());
        assertEquals(2, second.attempt());
        assertEquals(List.of("ran", "generated", "ran"), back.candidates().stream().map(dev.sqloop.common.message.Candidate::status).toList());
        assertEquals("SELECT 1", back.sql(), "the question's own SQL and result stay");
        assertEquals(cs.getFirst().execution(), back.execution());
        assertEquals(1, back.attempt(), "a candidate's repair is its own attempt, not the question's");
        assertEquals(new TokenUsage(200, 10), back.usage(), "the call is the question's cost");
        dev.sqloop.common.message.AttemptEvent event = (dev.sqloop.common.message.AttemptEvent) send.emissions().get(1).message();
        assertEquals(dev.sqloop.common.message.AttemptEvent.CANDIDATE_REPAIR, event.kind());
        assertEquals("candidates-repaired", event.decision());
        assertEquals("candidate 2 attempt 2: corrected", event.reason());
    }

    @Test
    void shouldEndATieUncertainWhenTheComparisonFailsOrNamesNeither() {
        for (Function<LlmClient.Prompt, LlmClient.Reply> llm : List.<Function<LlmClient.Prompt, LlmClient.Reply>>of(
                p -> new LlmClient.Reply("They are both plausible.", new TokenUsage(300, 5)),
                p -> { throw new InfrastructureException("LLM endpoint unavailable: 503", null); })) {
            Outcome.Send send = assertInstanceOf(Outcome.Send.class, stage(llm).process(tied()));
            QuestionResult r = (QuestionResult) send.emissions().get(0).message();
            assertEquals(Outcomes.UNCERTAIN, r.reason());
            assertNull(r.sql(), "no answer");
            assertTrue(r.errorMessage().startsWith("no agreement: 3 candidates, 3 tied; tie-break failed: "), r.errorMessage());
            assertEquals("uncertain", ((dev.sqloop.common.message.AttemptEvent) send.emissions().get(1).message()).decision());
        }
    }

    @Test
    void shouldStopAskingOnceAMajorityOfTheCandidatesWroteTheSameSql() {
        // candidates 1-3 agree (spacing and a semicolon aside): 3 of 5 is a majority no later candidate can outvote
        GenerateStage five = stage(p -> new LlmClient.Reply(prompts.size() == 2 ? "SELECT  1;" : "SELECT 1", new TokenUsage(100, 10)))
                .withCandidates(Map.of("warehouse", 5));
        QuestionTask agreed = only(five.process(Tasks.fresh("warehouse")), Topics.STATIC_VALIDATE.name());
        assertEquals(3, prompts.size(), "two calls saved");
        assertEquals(List.of(2, 3), agreed.candidates().stream().map(dev.sqloop.common.message.Candidate::index).toList());
        assertEquals(new TokenUsage(300, 30), agreed.usage(), "only the calls made are paid");
        // answers that differ (or are prose) never stop it early
        prompts.clear();
        GenerateStage differing = stage(p -> new LlmClient.Reply(prompts.size() == 3 ? "no idea" : "SELECT " + prompts.size(),
                new TokenUsage(100, 10))).withCandidates(Map.of("warehouse", 5));
        assertEquals(4, only(differing.process(Tasks.fresh("warehouse")), Topics.STATIC_VALIDATE.name()).candidates().size());
        assertEquals(5, prompts.size());
        assertEquals(GenerateStage.sameTextKey("SELECT a\n  FROM t ;"), GenerateStage.sameTextKey("SELECT a FROM t"));
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
        assertTrue(!scrape.contains("sqloop_llm_duration") && !scrape.contains("sqloop_llm_tokens"), "the old sqloop.llm.* meters are gone");
        assertTrue(scrape.contains("gen_ai_client_token_usage_count{" + tokenTags + "\"cache_read\"} 1"), scrape);
        assertTrue(scrape.contains("sqloop_llm_cost_usd_total{gen_ai_provider_name=\"ollama\",gen_ai_request_model=\"llama3.1\"} 0.0"), scrape);
    }
}
