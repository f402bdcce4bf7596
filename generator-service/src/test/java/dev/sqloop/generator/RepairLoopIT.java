package dev.sqloop.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.error.Outcomes;
import dev.sqloop.common.message.AttemptEvent;
import dev.sqloop.common.message.Issue;
import dev.sqloop.common.message.LinkedSchema;
import dev.sqloop.common.message.NlConstraints;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.runtime.KafkaClients;
import dev.sqloop.common.runtime.MicrometerStageMetrics;
import dev.sqloop.common.runtime.Outcome;
import dev.sqloop.common.runtime.RetryPolicy;
import dev.sqloop.common.runtime.RunnerSettings;
import dev.sqloop.common.runtime.Stage;
import dev.sqloop.common.runtime.StageRunner;
import dev.sqloop.common.sql.SqlNormalizer;
import dev.sqloop.testkit.EmbeddedKafka;
import dev.sqloop.testkit.llm.Fault;
import dev.sqloop.testkit.llm.Injection;
import dev.sqloop.testkit.llm.OracleResponder;
import dev.sqloop.testkit.llm.RecordedRequest;
import dev.sqloop.testkit.llm.Responder;
import dev.sqloop.testkit.llm.SimulatedLlm;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The generate ↔ repair loop on a real broker, with the real langchain4j client against the simulated LLM, and a
 * validator written here that compares each SQL with the oracle's gold SQL and reports the oracle's fault as
 * an engine would. Runners keep fixed group ids, so each test continues from the offsets the previous one
 * committed; question ids are unique per test.
 */
class RepairLoopIT {
    private static final String DATASOURCE = "warehouse";
    private static final DialectLookup DIALECTS = DialectLookup.of(Map.of(DATASOURCE, Dialect.TRINO));
    private static final String GOLD = "SELECT region, sum(amount) AS total FROM sales GROUP BY region ORDER BY total DESC";
    private static final LinkedSchema SCHEMA = new LinkedSchema(List.of(new LinkedSchema.Table("sales", null, List.of(
            new LinkedSchema.Column("region", "varchar", null, List.of()),
            new LinkedSchema.Column("amount", "double", null, List.of())))));
    private static final RetryPolicy FAST_RETRY = new RetryPolicy(3, Duration.ofMillis(20), Duration.ofSeconds(2), 2.0);

    private static EmbeddedKafka broker;
    private static BrokerIo io;
    private final List<StageRunner<?>> runners = new ArrayList<>();
    private SimulatedLlm llm;

    @BeforeAll
    static void startBroker() {
        broker = EmbeddedKafka.start();
        io = new BrokerIo(broker.bootstrapServers());
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) broker.close();
    }

    @AfterEach
    void stopPipeline() {
        StageRunner.closeAll(runners);
        runners.clear();
        if (llm != null) llm.close();
    }

    /** A stand-in for the validator: gold SQL passes; anything else fails with what {@code judge} reports. */
    private record FakeValidator(Map<String, String> gold, Function<QuestionTask, Issue> judge) implements Stage<QuestionTask> {
        public String name() {
            return "fake-validate";
        }

        public Class<QuestionTask> inputType() {
            return QuestionTask.class;
        }

        public Outcome process(QuestionTask task) {
            if (SqlNormalizer.sameStatement(task.sql(), gold.get(task.question()))) {
                return Outcome.finish(QuestionResult.succeeded(task, Instant.now()));
            }
            return Outcome.repair(task.withIssues(List.of(judge.apply(task))));
        }
    }

    /** Reports the oracle's injected fault with the offending identifier, as an engine or validator would. */
    private static FakeValidator oracleValidator(OracleResponder oracle, Map<String, String> gold) {
        return new FakeValidator(gold, task -> {
            Injection i = oracle.injectionFor(task.question());
            ErrorCategory category = i.category() == null ? ErrorCategory.UNKNOWN : ErrorCategory.fromWire(i.category());
            return new Issue("static-validate", category, i.errorMessage() == null ? "wrong result" : i.errorMessage(),
                    i.identifier(), List.of());
        });
    }

    private void startPipeline(Responder responder, CorrectionPromptBuilder.Evidence evidence, FakeValidator validator) {
        llm = SimulatedLlm.start(responder);
        GeneratorConfig config = new GeneratorConfig(GeneratorConfig.OPENAI, llm.openAiBaseUrl(), "sk-test", "sim-sql", 0.0,
                512, Duration.ofSeconds(2), true, 16, 0, false, Map.of());
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        GenerateStage generate = new GenerateStage(LangChainLlmClient.fromConfig(config), DIALECTS, new PromptBuilder(true),
                new MicrometerStageMetrics(registry), Clock.systemUTC());
        RepairStage repair = new RepairStage(DIALECTS,
                new CorrectionPromptBuilder(ErrorPatternRegistry.load(), PastFixes.NONE, evidence), Clock.systemUTC());
        runners.add(KafkaClients.runner(generate, Topics.GENERATE, io.settings(), settings("it-generate"), registry).start());
        runners.add(KafkaClients.runner(generate, Topics.REGENERATE, io.settings(), settings("it-regenerate"), registry).start());
        runners.add(KafkaClients.runner(repair, Topics.REPAIR_FEEDBACK, io.settings(), settings("it-repair"), registry).start());
        runners.add(KafkaClients.runner(validator, Topics.STATIC_VALIDATE, io.settings(), settings("it-validate"), registry).start());
    }

    private static RunnerSettings settings(String group) {
        return RunnerSettings.defaults(group).withRetry(FAST_RETRY).withShutdownTimeout(Duration.ofSeconds(5));
    }

    private static QuestionTask question(String id, String text, int maxAttempts) {
        return QuestionTask.create(id, "acme", DATASOURCE, text, maxAttempts, Instant.now()).withContext(List.of(), SCHEMA, NlConstraints.NONE);
    }

    private static Map<String, QuestionResult> awaitResults(Set<String> ids) {
        List<QuestionResult> all = io.readUntil(Topics.RESULTS.name(), QuestionResult.class, Duration.ofSeconds(90),
                l -> l.stream().map(QuestionResult::questionId).collect(Collectors.toSet()).containsAll(ids));
        Map<String, QuestionResult> byId = new LinkedHashMap<>();
        all.stream().filter(r -> ids.contains(r.questionId())).forEach(r -> byId.put(r.questionId(), r));
        assertEquals(ids, byId.keySet(), "every question ended");
        return byId;
    }

    private static Map<String, String> oneQuestionPerFault(String prefix) {
        Map<String, String> gold = new LinkedHashMap<>();
        for (Fault f : Fault.classic()) gold.put(prefix + " " + f.name().toLowerCase() + ": what is the total amount per region?", GOLD);
        return gold;
    }

    private static Map<String, Fault> faultsOf(Map<String, String> gold) {
        Map<String, Fault> faults = new LinkedHashMap<>();
        gold.keySet().forEach(q -> faults.put(q, Fault.valueOf(q.substring(q.indexOf(' ') + 1, q.indexOf(':')).toUpperCase())));
        return faults;
    }

    private int llmCalls(String question) {
        return (int) llm.requests().stream().filter(r -> r.status() == 200).map(RecordedRequest::user)
                .filter(u -> u.contains(question)).count();
    }

    @Test
    void shouldRepairEveryFaultTypeWithinThreeAttempts() {
        Map<String, String> gold = oneQuestionPerFault("repairable");
        OracleResponder oracle = new OracleResponder(gold, Map.of(), "trino", 3).withFaults(faultsOf(gold));
        startPipeline(oracle, CorrectionPromptBuilder.Evidence.INCLUDED, oracleValidator(oracle, gold));
        Map<String, String> ids = new LinkedHashMap<>();
        int n = 0;
        for (String q : gold.keySet()) ids.put("fix-" + n++, q);
        io.send(Topics.GENERATE.name(), ids.entrySet().stream().map(e -> question(e.getKey(), e.getValue(), 3)).toArray(QuestionTask[]::new));

        Map<String, QuestionResult> results = awaitResults(ids.keySet());
        for (Map.Entry<String, String> e : ids.entrySet()) {
            QuestionResult r = results.get(e.getKey());
            Fault fault = oracle.injectionFor(e.getValue()).fault();
            assertEquals(QuestionResult.SUCCEEDED, r.status(), fault + ": " + r);
            assertEquals(GOLD, r.sql(), fault + " ends with the gold SQL");
            assertEquals(fault == Fault.NONE ? 1 : 2, r.attempts(), fault + ": one correction suffices when the feedback carries the evidence");
            assertEquals(fault == Fault.NONE ? Outcomes.FIRST_ATTEMPT_SUCCESS : Outcomes.CORRECTED_SUCCESS, r.reason());
            assertEquals(r.attempts(), llmCalls(e.getValue()), fault + ": one LLM call per attempt, exactly");
        }
        List<AttemptEvent> events = io.readUntil(Topics.EVENTS.name(), AttemptEvent.class, Duration.ofSeconds(30),
                l -> l.stream().filter(ev -> ids.containsKey(ev.questionId())).count() >= ids.size() - 1);
        AttemptEvent column = events.stream().filter(ev -> ids.get(ev.questionId()) != null
                && ids.get(ev.questionId()).contains("wrong_column")).findFirst().orElseThrow();
        assertEquals("retry", column.decision());
        assertEquals(ErrorCategory.COLUMN_NOT_FOUND, column.issues().getFirst().category());
        assertEquals("new", column.sqlDiff(), "the first attempt has no previous SQL");
        String correction = llm.requests().stream().map(RecordedRequest::user)
                .filter(u -> u.startsWith("Failed SQL:") && u.contains("wrong_column")).findFirst().orElseThrow();
        assertTrue(correction.contains("Column 'region_nm' cannot be resolved"), correction);
    }

    @Test
    void shouldNotRepairWhenTheCorrectionPromptIsStrippedOfTheEvidence() {
        Map<String, String> gold = oneQuestionPerFault("blind");
        gold.keySet().removeIf(q -> q.contains(" none:"));
        OracleResponder oracle = new OracleResponder(gold, Map.of(), "trino", 3).withFaults(faultsOf(gold));
        startPipeline(oracle, CorrectionPromptBuilder.Evidence.STRIPPED, oracleValidator(oracle, gold));
        Map<String, String> ids = new LinkedHashMap<>();
        int n = 0;
        for (String q : gold.keySet()) ids.put("blind-" + n++, q);
        io.send(Topics.GENERATE.name(), ids.entrySet().stream().map(e -> question(e.getKey(), e.getValue(), 3)).toArray(QuestionTask[]::new));

        Map<String, QuestionResult> results = awaitResults(ids.keySet());
        for (Map.Entry<String, String> e : ids.entrySet()) {
            QuestionResult r = results.get(e.getKey());
            Fault fault = oracle.injectionFor(e.getValue()).fault();
            assertFalse(r.succeeded(), fault + " cannot be repaired without the evidence: " + r);
            assertTrue(Set.of(Outcomes.UNCHANGED_SQL, Outcomes.MAX_ATTEMPTS).contains(r.reason()), fault + ": " + r.reason());
            assertEquals(2, r.attempts(), fault + ": the oracle repeats itself, so the retry guard stops at attempt 2");
            assertEquals(2, llmCalls(e.getValue()));
        }
    }

    @Test
    void shouldNeverExceedTheMaximumAttemptsAndStopOnNonRetryableErrors() {
        String stubborn = "which region sells the most?";
        String stubbornShort = "which region sold least?";
        String denied = "show me the secret salaries";
        Map<String, Integer> calls = new java.util.concurrent.ConcurrentHashMap<>();
        Responder alwaysNewWrongSql = call -> {
            String q = call.user().contains(stubbornShort) ? stubbornShort : call.user().contains(stubborn) ? stubborn : denied;
            int k = calls.merge(q, 1, Integer::sum);
            return "{\"sql\": \"SELECT region_" + k + " FROM sales\"}";
        };
        Map<String, String> gold = Map.of(stubborn, GOLD, stubbornShort, GOLD, denied, GOLD);
        FakeValidator validator = new FakeValidator(gold, task -> task.question().equals(denied)
                ? Issue.of("execute", ErrorCategory.PERMISSION_DENIED, "Access Denied: Cannot select from table hr.salaries")
                : new Issue("static-validate", ErrorCategory.COLUMN_NOT_FOUND, "Column '" + task.sql().substring(7, 15) + "' cannot be resolved",
                        task.sql().substring(7, 15), List.of("region")));
        startPipeline(alwaysNewWrongSql, CorrectionPromptBuilder.Evidence.INCLUDED, validator);
        io.send(Topics.GENERATE.name(), question("max-3", stubborn, 3), question("max-2", stubbornShort, 2), question("denied", denied, 3));

        Map<String, QuestionResult> results = awaitResults(Set.of("max-3", "max-2", "denied"));
        assertEquals(Outcomes.MAX_ATTEMPTS, results.get("max-3").reason());
        assertEquals(3, results.get("max-3").attempts());
        assertEquals(3, calls.get(stubborn), "exactly three LLM calls for three attempts");
        assertEquals(Outcomes.MAX_ATTEMPTS, results.get("max-2").reason());
        assertEquals(2, results.get("max-2").attempts());
        assertEquals(2, calls.get(stubbornShort));
        assertEquals(Outcomes.NON_RETRYABLE, results.get("denied").reason());
        assertEquals(ErrorCategory.PERMISSION_DENIED, results.get("denied").errorCategory());
        assertEquals(1, results.get("denied").attempts());
        assertEquals(1, calls.get(denied), "no correction for a non-retryable error");
    }

    /**
     * The priority lane: with one LLM slot and 60 first attempts queued on {@code generate}, a correction arriving on
     * {@code regenerate} gets the LLM within a few calls (the time its record takes to reach the lane's consumer), not after
     * the queued first attempts. Before the lane it went into {@code generate}'s partition behind all of them.
     */
    @Test
    void shouldGiveACorrectionTheNextLlmSlotAheadOfQueuedFirstAttempts() throws Exception {
        Map<String, String> gold = new LinkedHashMap<>();
        for (int i = 0; i < 60; i++) gold.put("how many sales are in lane batch " + i + "?", GOLD);
        llm = SimulatedLlm.start(new OracleResponder(gold, Map.of(Fault.NONE, 1.0), "trino", 5));
        llm.faults().latency(dev.sqloop.testkit.llm.Latency.fixed(Duration.ofMillis(100)));
        GeneratorConfig oneSlot = new GeneratorConfig(GeneratorConfig.OPENAI, llm.openAiBaseUrl(), "sk-test", "sim-sql", 0.0,
                512, Duration.ofSeconds(5), true, 1, 0, false, Map.of());
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        GenerateStage generate = new GenerateStage(LangChainLlmClient.fromConfig(oneSlot), DIALECTS, new PromptBuilder(true),
                new MicrometerStageMetrics(registry), Clock.systemUTC());
        runners.add(KafkaClients.runner(generate, Topics.GENERATE, io.settings(), settings("it-lane-generate"), registry).start());
        runners.add(KafkaClients.runner(generate, Topics.REGENERATE, io.settings(), settings("it-lane-regenerate"), registry).start());
        runners.add(KafkaClients.runner(new FakeValidator(gold, t -> new Issue("static-validate", ErrorCategory.UNKNOWN, "wrong", null, List.of())), Topics.STATIC_VALIDATE, io.settings(),
                settings("it-lane-validate"), registry).start());
        Map<String, String> ids = new LinkedHashMap<>();
        int n = 0;
        for (String q : gold.keySet()) ids.put("lane-" + n++, q);
        io.send(Topics.GENERATE.name(), ids.entrySet().stream().map(e -> question(e.getKey(), e.getValue(), 3)).toArray(QuestionTask[]::new));
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (llm.requests().size() < 5 && System.nanoTime() < deadline) Thread.sleep(5);
        int before = llm.requests().size();
        String marker = "lane-correction-marker";
        QuestionTask correction = question("lane-fix", "how many sales are there per lane?", 3).withSql("SELECT nope FROM sales", null)
                .nextAttempt("The previous SQL failed (" + marker + "): column nope cannot be resolved.");
        io.send(Topics.REGENERATE.name(), correction);
        awaitResults(ids.keySet());
        deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (llm.requestsMentioning(marker).isEmpty() && System.nanoTime() < deadline) Thread.sleep(10);

        List<RecordedRequest> calls = llm.requests();
        int at = -1;
        for (int i = 0; i < calls.size(); i++) if (calls.get(i).user().contains(marker)) at = i;
        assertTrue(at >= 0, "the correction reached the LLM");
        long firstAttemptsAfter = calls.subList(at + 1, calls.size()).stream().filter(r -> r.user().contains("lane batch")).count();
        // a few calls pass while the correction travels through the broker to the lane's consumer (~100 ms each here)
        assertTrue(at <= before + 10, "the correction was call " + at + ", sent when " + before + " calls had been made");
        assertTrue(firstAttemptsAfter >= 40, "first attempts still queued behind it: " + firstAttemptsAfter);
    }

    @Test
    void shouldEndLlmUnavailableAfterTheRetryBudgetWithoutConsumingAttempts() throws Exception {
        String q = "how many regions are there?";
        String later = "how many sales are there?";
        String slow = "how many sales per region are there?";
        Map<String, String> gold = Map.of(q, GOLD, later, GOLD, slow, GOLD);
        OracleResponder oracle = new OracleResponder(gold, Map.of(Fault.NONE, 1.0), "trino", 3);
        startPipeline(oracle, CorrectionPromptBuilder.Evidence.INCLUDED, oracleValidator(oracle, gold));

        llm.faults().failAlways(500, null);
        io.send(Topics.GENERATE.name(), question("storm", q, 3));
        QuestionResult storm = awaitResults(Set.of("storm")).get("storm");
        assertEquals(Outcomes.LLM_UNAVAILABLE, storm.reason());
        assertEquals(1, storm.attempts(), "infrastructure retries are not attempts");
        assertEquals(1 + FAST_RETRY.maxRetries(), llm.requestsMentioning(q).size(), "one call plus the runner's retries, no client retries");
        assertTrue(llm.requestsMentioning(q).stream().allMatch(r -> r.status() == 500));
        assertEquals(Map.of(GenerateStage.NAME, FAST_RETRY.maxRetries()), storm.retries(), "the result counts the retries (issue 46)");

        llm.faults().clear();
        llm.faults().rateLimitNext(2, Duration.ofSeconds(1));
        io.send(Topics.GENERATE.name(), question("throttled", later, 3));
        QuestionResult throttled = awaitResults(Set.of("throttled")).get("throttled");
        assertEquals(Outcomes.FIRST_ATTEMPT_SUCCESS, throttled.reason(), "429s are waited out, not counted");
        assertEquals(1, throttled.attempts());
        assertEquals(Map.of(GenerateStage.NAME, 2), throttled.retries(), "two 429s waited out, counted in the question");
        List<RecordedRequest> tries = llm.requestsMentioning(later);
        assertEquals(List.of(429, 429, 200), tries.stream().map(RecordedRequest::status).toList());
        for (int i = 1; i < tries.size(); i++) {
            long gap = Duration.between(tries.get(i - 1).at(), tries.get(i).at()).toMillis();
            assertTrue(gap >= 900, "Retry-After: 1 honoured, gap was " + gap + " ms");
        }

        llm.faults().slowNext(1 + FAST_RETRY.maxRetries(), Duration.ofSeconds(3)); // each beyond the client's 2 s timeout
        io.send(Topics.GENERATE.name(), question("timeouts", slow, 3));
        QuestionResult timedOut = awaitResults(Set.of("timeouts")).get("timeouts");
        assertEquals(Outcomes.LLM_UNAVAILABLE, timedOut.reason());
        assertEquals(1, timedOut.attempts(), "timeouts are not attempts either");
        assertTrue(timedOut.errorMessage().contains("Timeout"), timedOut.errorMessage());
    }

    @Test
    void shouldRepairAMixOfFaultsOverTheDefogQuestions() throws Exception {
        java.nio.file.Path csv = dev.sqloop.testkit.engines.DefogDatasets.questionsCsv();
        Map<String, String> gold = dev.sqloop.testkit.llm.GoldSql.byQuestion(dev.sqloop.testkit.llm.GoldSql.fromDefogCsv(csv));
        Map<Fault, Double> mix = OracleResponder.uniformMix();
        mix.put(Fault.NONE, 2.0);
        OracleResponder oracle = new OracleResponder(gold, mix, "trino", 11);
        startPipeline(oracle, CorrectionPromptBuilder.Evidence.INCLUDED, oracleValidator(oracle, gold));
        Map<String, String> ids = new LinkedHashMap<>();
        int n = 0;
        for (String q : gold.keySet()) ids.put("defog-" + n++, q);
        io.send(Topics.GENERATE.name(), ids.entrySet().stream().map(e -> question(e.getKey(), e.getValue(), 3)).toArray(QuestionTask[]::new));

        Map<String, QuestionResult> results = awaitResults(ids.keySet());
        Map<Fault, Integer> drawn = new java.util.EnumMap<>(Fault.class);
        for (Map.Entry<String, String> e : ids.entrySet()) {
            QuestionResult r = results.get(e.getKey());
            Fault fault = oracle.injectionFor(e.getValue()).fault();
            drawn.merge(fault, 1, Integer::sum);
            assertTrue(r.succeeded(), fault + ": " + r);
            assertEquals(fault == Fault.NONE ? 1 : 2, r.attempts(), fault + ": " + e.getValue());
        }
        assertEquals(Fault.classic().size(), drawn.size(), "the mix drew every fault: " + drawn);
    }
}
