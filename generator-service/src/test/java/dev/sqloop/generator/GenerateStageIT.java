package dev.sqloop.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.error.Outcomes;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.message.LinkedSchema;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.message.TokenUsage;
import dev.sqloop.common.runtime.InfrastructureException;
import dev.sqloop.common.runtime.MicrometerStageMetrics;
import dev.sqloop.common.runtime.Outcome;
import dev.sqloop.testkit.llm.Fault;
import dev.sqloop.testkit.llm.Injection;
import dev.sqloop.testkit.llm.OracleResponder;
import dev.sqloop.testkit.llm.RecordedRequest;
import dev.sqloop.testkit.llm.ScriptedResponder;
import dev.sqloop.testkit.llm.SimulatedLlm;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.ServerSocket;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The generate stage through the real langchain4j clients, over HTTP, against the simulated LLM. */
class GenerateStageIT {
    private static final String GOLD = "SELECT region, sum(amount) AS total FROM sales GROUP BY region";
    private SimulatedLlm llm;

    @AfterEach
    void stop() {
        if (llm != null) llm.close();
    }

    private static GenerateStage stage(String provider, String baseUrl, boolean json, Duration timeout) {
        return stage(provider, baseUrl, json, timeout, Map.of());
    }

    private static GenerateStage stage(String provider, String baseUrl, boolean json, Duration timeout, Map<String, String> more) {
        Map<String, String> env = new HashMap<>(Map.of(
                "SQLOOP_LLM_PROVIDER", provider,
                "SQLOOP_LLM_BASE_URL", baseUrl,
                "SQLOOP_LLM_API_KEY", "sk-test",
                "SQLOOP_LLM_MODEL", "sim-sql",
                "SQLOOP_LLM_JSON_MODE", Boolean.toString(json),
                "SQLOOP_LLM_TIMEOUT", timeout.toMillis() + "ms",
                "SQLOOP_DATASOURCE_DEMO_DIALECT", "duckdb", "SQLOOP_DATASOURCE_WAREHOUSE_DIALECT", "trino"));
        env.putAll(more);
        GeneratorConfig config = GeneratorConfig.fromEnv(new EnvConfig(env));
        return new GenerateStage(LangChainLlmClient.fromConfig(config), config.dialectLookup(), new PromptBuilder(json),
                new MicrometerStageMetrics(new SimpleMeterRegistry()), Clock.systemUTC());
    }

    private GenerateStage openAi(boolean json) {
        return stage("openai", llm.openAiBaseUrl(), json, Duration.ofSeconds(5));
    }

    private static QuestionTask forwarded(Outcome out, String topic) {
        Outcome.Send send = assertInstanceOf(Outcome.Send.class, out);
        assertEquals(topic, send.emissions().getFirst().topic(), send.toString());
        return (QuestionTask) send.emissions().getFirst().message();
    }

    @Test
    void shouldExportHowLongLlmCallsHeldTheConcurrencyLimit() throws Exception {
        llm = SimulatedLlm.start(new ScriptedResponder(Map.of(Tasks.QUESTION, List.of("{\"sql\": \"" + GOLD + "\"}"))));
        llm.faults().latency(dev.sqloop.testkit.llm.Latency.fixed(Duration.ofMillis(300)));
        GeneratorConfig config = GeneratorConfig.fromEnv(new EnvConfig(Map.of("SQLOOP_LLM_BASE_URL", llm.openAiBaseUrl(),
                "SQLOOP_LLM_API_KEY", "sk-test", "SQLOOP_LLM_MODEL", "sim-sql", "SQLOOP_LLM_MAX_CONCURRENCY", "3")));
        var registry = new io.micrometer.prometheusmetrics.PrometheusMeterRegistry(io.micrometer.prometheusmetrics.PrometheusConfig.DEFAULT);
        LangChainLlmClient client = LangChainLlmClient.fromConfig(config).bindTo(registry);
        List<Thread> calls = new java.util.ArrayList<>();
        for (int i = 0; i < 2; i++) {
            calls.add(Thread.ofVirtual().start(() -> client.complete(new LlmClient.Prompt("system", Tasks.QUESTION))));
        }
        for (Thread t : calls) t.join(Duration.ofSeconds(10));
        String scrape = registry.scrape();
        assertTrue(scrape.contains("sqloop_llm_slots_limit 3.0"), scrape);
        assertTrue(scrape.contains("sqloop_llm_slots_in_use 0.0"), "both calls returned their slot:\n" + scrape);
        java.util.regex.Matcher busy = java.util.regex.Pattern.compile("(?m)^sqloop_llm_slots_busy_seconds_total ([0-9.]+)$").matcher(scrape);
        assertTrue(busy.find(), scrape);
        double seconds = Double.parseDouble(busy.group(1));
        assertTrue(seconds >= 2 * 0.3 && seconds < 2 * 10, "two calls held a slot for at least their 300 ms latency each: " + seconds);
        assertEquals(2, llm.stats().calls());
        assertTrue(llm.stats().meanHandling().compareTo(Duration.ofMillis(300)) >= 0, "the handler's time includes the latency: " + llm.stats());
    }

    @Test
    void shouldGenerateFromAScriptedJsonAnswerAndRecordThePrompt() {
        llm = SimulatedLlm.start(new ScriptedResponder(Map.of(Tasks.QUESTION, List.of("{\"sql\": \"" + GOLD + ";\"}"))));
        QuestionTask t = forwarded(openAi(true).process(Tasks.fresh("warehouse")), Topics.STATIC_VALIDATE.name());
        assertEquals(GOLD, t.sql());
        assertTrue(t.usage().inputTokens() > 50 && t.usage().outputTokens() > 5, "usage from the response: " + t.usage());

        RecordedRequest r = llm.requests().getFirst();
        assertTrue(r.call().jsonMode(), "response_format json_object was sent");
        assertEquals("sim-sql", r.call().model());
        assertTrue(r.system().startsWith("Write Trino SQL"), r.system());
        assertTrue(r.system().indexOf("## Instructions") < r.system().indexOf("## Similar Examples"),
                "the answer format in the shared prefix, the examples after it: " + r.system());
        assertEquals(Tasks.QUESTION, r.user());
    }

    /** A warehouse's whole schema, large enough (over 1,024 tokens with the rules) for a provider to cache its prompts. */
    private static LinkedSchema wideSchema() {
        List<LinkedSchema.Table> tables = new java.util.ArrayList<>();
        for (int t = 0; t < 30; t++) {
            List<LinkedSchema.Column> columns = new java.util.ArrayList<>();
            for (int c = 0; c < 8; c++) columns.add(new LinkedSchema.Column("attribute_" + c, "VARCHAR", "attribute " + c + " of table " + t, List.of()));
            tables.add(new LinkedSchema.Table("table_" + t, "facts of kind " + t, columns));
        }
        return new LinkedSchema(tables, true);
    }

    @Test
    void shouldReadTheCachedPartOfThePromptThroughLangchain4jAndPriceEveryCall() {
        String other = "Which region sold the least?";
        llm = SimulatedLlm.start(new ScriptedResponder(Map.of(Tasks.QUESTION, List.of("{\"sql\": \"" + GOLD + "\"}"),
                other, List.of("{\"sql\": \"SELECT region FROM sales GROUP BY region ORDER BY sum(amount) LIMIT 1\"}"))));
        GenerateStage s = stage("openai", llm.openAiBaseUrl(), true, Duration.ofSeconds(5), Map.of("SQLOOP_LLM_PRICE_INPUT", "2",
                "SQLOOP_LLM_PRICE_CACHED_INPUT", "0.5", "SQLOOP_LLM_PRICE_OUTPUT", "8"));
        LinkedSchema schema = wideSchema();
        QuestionTask first = forwarded(s.process(QuestionTask.create("q-1", "t", "warehouse", Tasks.QUESTION, 3, null)
                .withContext(List.of(), schema, null)), Topics.STATIC_VALIDATE.name());
        QuestionTask second = forwarded(s.process(QuestionTask.create("q-2", "t", "warehouse", other, 3, null)
                .withContext(List.of(), schema, null)), Topics.STATIC_VALIDATE.name());

        TokenUsage a = first.usage();
        TokenUsage b = second.usage();
        assertTrue(a.inputTokens() > 1024, "large enough to be cached: " + a);
        assertEquals(0, a.cachedInputTokens(), "nothing cached before: " + a);
        // the second question shares everything up to its own question with the first
        assertTrue(b.cachedInputTokens() >= 1024 && b.cachedInputTokens() % 128 == 0 && b.inputTokens() - b.cachedInputTokens() < 128 + 40,
                "the shared prefix came from the cache: " + b);
        assertEquals(((b.inputTokens() - b.cachedInputTokens()) * 2 + b.cachedInputTokens() * 0.5 + b.outputTokens() * 8) / 1e6, b.cost(), 1e-12);
        assertEquals((a.inputTokens() * 2 + a.outputTokens() * 8) / 1e6, a.cost(), 1e-12);
        assertTrue(b.cost() < a.cost() * 0.5, "cached input at a quarter of the price: " + a.cost() + " then " + b.cost());
    }

    @Test
    void shouldExtractAFencedBlockWithoutJsonModeAndFlagProse() {
        String other = "How many sales are there per day?";
        llm = SimulatedLlm.start(new ScriptedResponder(Map.of(
                Tasks.QUESTION, List.of("Sure!\n```sql\n" + GOLD + ";\n```"),
                other, List.of("Sorry, I cannot see your tables."))));
        GenerateStage s = openAi(false);
        assertEquals(GOLD, forwarded(s.process(Tasks.fresh("demo")), Topics.STATIC_VALIDATE.name()).sql());
        assertTrue(!llm.requests().getFirst().call().jsonMode());

        QuestionTask prose = QuestionTask.create("q-2", "acme", "demo", other, 3, Instant.now());
        QuestionTask t = forwarded(s.process(prose), Topics.REPAIR_FEEDBACK.name());
        assertEquals(ErrorCategory.LLM_OUTPUT_INVALID, t.issues().getFirst().category());
    }

    /** A chatty model's answers, over HTTP through langchain4j: the query comes out of each, no attempt spent. */
    @Test
    void shouldTakeTheQueryOutOfAChattyModelsAnswers() {
        List<String> chatty = List.of(
                "Here is the SQL query:\n\n" + GOLD + ";\n\nThis query answers the question from the sales table.",
                "<think>\nThe user wants the total. Let me check the schema.\n</think>\n\n```sql\n" + GOLD + "\n```",
                "```json\n{\"sql\": \"" + GOLD + "\"}\n```",
                "SQL: " + GOLD + "\n\nExplanation: it sums the amounts.");
        for (String answer : chatty) {
            llm = SimulatedLlm.start(new ScriptedResponder(Map.of(Tasks.QUESTION, List.of(answer))));
            try {
                assertEquals(GOLD, forwarded(openAi(false).process(Tasks.fresh("demo")), Topics.STATIC_VALIDATE.name()).sql(), answer);
            } finally {
                llm.close();
            }
        }
        llm = null;
    }

    @Test
    void shouldAnswerFaultyThenGoldFromTheOracleWhenTheCorrectionCarriesTheEvidence() {
        OracleResponder oracle = new OracleResponder(Map.of(Tasks.QUESTION, GOLD), Map.of(), "trino", 1)
                .withFaults(Map.of(Tasks.QUESTION, Fault.FOREIGN_FUNCTION));
        llm = SimulatedLlm.start(oracle);
        GenerateStage s = openAi(true);
        QuestionTask first = forwarded(s.process(Tasks.fresh("warehouse")), Topics.STATIC_VALIDATE.name());
        Injection injection = oracle.injectionFor(Tasks.QUESTION);
        assertEquals(injection.faultyAnswer(), first.sql());

        CorrectionPromptBuilder prompts = new CorrectionPromptBuilder(ErrorPatternRegistry.load(), PastFixes.NONE,
                CorrectionPromptBuilder.Evidence.INCLUDED);
        QuestionTask failed = first.withIssues(List.of(new dev.sqloop.common.message.Issue("static-validate",
                ErrorCategory.UNSUPPORTED_FUNCTION, injection.errorMessage(), injection.identifier(), List.of())));
        QuestionTask retry = failed.nextAttempt(prompts.build(failed, dev.sqloop.common.Dialect.TRINO));
        QuestionTask second = forwarded(s.process(retry), Topics.STATIC_VALIDATE.name());
        assertEquals(GOLD, second.sql());
        assertEquals(2, second.attempt());
        assertTrue(llm.requests().get(1).user().contains("Function 'strftime' not registered"), llm.requests().get(1).user());
    }

    @Test
    void shouldWorkThroughTheOllamaApi() {
        llm = SimulatedLlm.start(new ScriptedResponder(Map.of(Tasks.QUESTION, List.of("{\"sql\": \"" + GOLD + "\"}"))));
        GenerateStage s = stage("ollama", llm.ollamaBaseUrl(), true, Duration.ofSeconds(5));
        QuestionTask t = forwarded(s.process(Tasks.fresh("demo")), Topics.STATIC_VALIDATE.name());
        assertEquals(GOLD, t.sql());
        assertEquals("ollama", llm.requests().getFirst().call().api());
        assertTrue(llm.requests().getFirst().call().jsonMode(), "format: json was sent");
    }

    @Test
    void shouldTurnRateLimitsIntoInfrastructureFailuresCarryingRetryAfter() {
        llm = SimulatedLlm.start(new ScriptedResponder(Map.of(Tasks.QUESTION, List.of(GOLD))));
        llm.faults().rateLimitNext(1, Duration.ofSeconds(3));
        GenerateStage s = openAi(true);
        InfrastructureException e = assertThrows(InfrastructureException.class, () -> s.process(Tasks.fresh("demo")));
        assertEquals(Duration.ofSeconds(3), e.retryAfter().orElseThrow(), e.getMessage());
        assertTrue(e.getMessage().contains("429"), e.getMessage());
        assertEquals(1, llm.requests().size(), "the client itself did not retry (maxRetries 0)");
        assertEquals(GOLD, forwarded(s.process(Tasks.fresh("demo")), Topics.STATIC_VALIDATE.name()).sql(), "and the next call works");
    }

    @Test
    void shouldTurnServerErrorsMalformedBodiesTimeoutsAndRefusedConnectionsIntoInfrastructureFailures() throws Exception {
        llm = SimulatedLlm.start(new ScriptedResponder(Map.of(Tasks.QUESTION, List.of(GOLD))));
        GenerateStage s = stage("openai", llm.openAiBaseUrl(), true, Duration.ofMillis(700));

        llm.faults().failNext(1, 500, null);
        assertTrue(assertThrows(InfrastructureException.class, () -> s.process(Tasks.fresh("demo"))).getMessage().contains("500"));
        llm.faults().failNext(1, 503, null);
        assertThrows(InfrastructureException.class, () -> s.process(Tasks.fresh("demo")));
        llm.faults().malformedNext(1);
        assertThrows(InfrastructureException.class, () -> s.process(Tasks.fresh("demo")));
        llm.faults().slowNext(1, Duration.ofSeconds(3));
        long start = System.nanoTime();
        assertThrows(InfrastructureException.class, () -> s.process(Tasks.fresh("demo")));
        assertTrue(Duration.ofNanos(System.nanoTime() - start).toMillis() < 2500, "the client timeout cut the slow answer");
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (llm.requests().size() < 4 && System.nanoTime() < deadline) Thread.sleep(50); // the slow one is recorded when it answers
        Thread.sleep(200);
        assertEquals(4, llm.requests().size(), "one request per call: no hidden client retries");

        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        GenerateStage refused = stage("openai", "http://127.0.0.1:" + closedPort + "/v1", true, Duration.ofSeconds(2));
        assertThrows(InfrastructureException.class, () -> refused.process(Tasks.fresh("demo")));
    }

    @Test
    void shouldEndTheQuestionWhenTheEndpointRejectsTheCredentials() {
        llm = SimulatedLlm.start(new ScriptedResponder(Map.of(Tasks.QUESTION, List.of(GOLD))));
        llm.faults().failNext(1, 401, null);
        Outcome out = openAi(true).process(Tasks.fresh("demo"));
        QuestionResult r = (QuestionResult) assertInstanceOf(Outcome.Send.class, out).emissions().getFirst().message();
        assertEquals(Outcomes.LLM_UNAVAILABLE, r.reason());
        assertTrue(r.errorMessage().contains("HTTP 401"), r.errorMessage());
    }
}
