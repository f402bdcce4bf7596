package dev.sqloop.common.runtime;

import static dev.sqloop.common.runtime.KafkaTestSupport.header;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.SqloopHeaders;
import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.error.Outcomes;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.testkit.EmbeddedKafka;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The stage runtime against a real KRaft broker. */
class StageRunnerIT {
    private static EmbeddedKafka broker;
    private static KafkaTestSupport kafka;
    private final List<StageRunner<?>> runners = new ArrayList<>();

    @BeforeAll
    static void startBroker() {
        broker = EmbeddedKafka.start();
        kafka = new KafkaTestSupport(broker.bootstrapServers());
        kafka.createTopics(1, Topics.DLQ.name(), Topics.RESULTS.name());
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) broker.close();
    }

    @AfterEach
    void stopRunners() {
        StageRunner.closeAll(runners);
        runners.clear();
    }

    private <I> StageRunner<I> run(Stage<I> stage, String topic, RunnerSettings settings) {
        StageRunner<I> r = KafkaClients.runner(stage, topic, kafka.settings(), settings, new SimpleMeterRegistry());
        runners.add(r);
        return r.start();
    }

    private static RunnerSettings settings(String group) {
        return RunnerSettings.defaults(group).withShutdownTimeout(Duration.ofSeconds(10));
    }

    private static Set<String> keys(List<ConsumerRecord<byte[], byte[]>> records) {
        return KafkaTestSupport.distinctKeys(records);
    }

    @Test
    void shouldMoveTenThousandRecordsThroughThreePassThroughStagesWithNoneMissing() {
        kafka.createTopics(3, "chain-a", "chain-b", "chain-c", "chain-d");
        run(new PassThroughStage("hop1", "chain-b", Duration.ZERO), "chain-a", settings("chain-1"));
        run(new PassThroughStage("hop2", "chain-c", Duration.ZERO), "chain-b", settings("chain-2"));
        run(new PassThroughStage("hop3", "chain-d", Duration.ZERO), "chain-c", settings("chain-3"));

        kafka.sendProbes("chain-a", 10_000);
        List<ConsumerRecord<byte[], byte[]>> out = kafka.readUntil("chain-d", Duration.ofSeconds(120), l -> keys(l).size() >= 10_000);

        assertEquals(KafkaTestSupport.probeIds(10_000), keys(out), "every record reaches the final topic");
        for (ConsumerRecord<byte[], byte[]> r : out) {
            assertEquals(3, decode(r.value(), Probe.class).hops(), "each record went through all three stages");
            assertNotNull(header(r, SqloopHeaders.TRACEPARENT), "every hop carries trace context");
        }
    }

    @Test
    void shouldDeadLetterPoisonRecordsWithTheirHeadersAndKeepProcessingOthers() {
        kafka.createTopics(1, "poison-in", "poison-out");
        run(new PassThroughStage("poison", "poison-out", Duration.ZERO), "poison-in", settings("poison"));

        kafka.send("poison-in", "good-1", JsonCodec.encode(new Probe("good-1", 1, 0)), Map.of());
        kafka.send("poison-in", "bad-bytes", "\u0000not json{".getBytes(StandardCharsets.UTF_8), Map.of("origin", "test"));
        kafka.send("poison-in", "bad-missing", "{\"seq\":3}".getBytes(StandardCharsets.UTF_8), Map.of());
        kafka.send("poison-in", "good-2", JsonCodec.encode(new Probe("good-2", 2, 0)), Map.of());

        List<ConsumerRecord<byte[], byte[]>> out = kafka.readUntil("poison-out", Duration.ofSeconds(60), l -> keys(l).size() >= 2);
        assertEquals(Set.of("good-1", "good-2"), keys(out));

        List<ConsumerRecord<byte[], byte[]>> dlq = kafka.readUntil(Topics.DLQ.name(), Duration.ofSeconds(60),
                l -> keys(l).containsAll(Set.of("bad-bytes", "bad-missing")));
        ConsumerRecord<byte[], byte[]> bytes = dlq.stream().filter(r -> new String(r.key(), StandardCharsets.UTF_8).equals("bad-bytes")).findFirst().orElseThrow();
        assertEquals("\u0000not json{", new String(bytes.value(), StandardCharsets.UTF_8), "original value kept");
        assertEquals("test", header(bytes, "origin"), "original headers kept");
        assertEquals("poison-in", header(bytes, SqloopHeaders.ERROR_TOPIC));
        assertEquals("0", header(bytes, SqloopHeaders.ERROR_PARTITION));
        assertEquals("1", header(bytes, SqloopHeaders.ERROR_OFFSET));
        assertEquals("poison", header(bytes, SqloopHeaders.ERROR_STAGE));
        assertEquals("undecodable", header(bytes, SqloopHeaders.ERROR_REASON));
        assertEquals(JsonCodec.DecodeException.class.getName(), header(bytes, SqloopHeaders.ERROR_CLASS));
        ConsumerRecord<byte[], byte[]> missing = dlq.stream().filter(r -> new String(r.key(), StandardCharsets.UTF_8).equals("bad-missing")).findFirst().orElseThrow();
        assertTrue(header(missing, SqloopHeaders.ERROR_MESSAGE).contains("missing or invalid required field: id"), "the reason names the missing field: " + header(missing, SqloopHeaders.ERROR_MESSAGE));
    }

    /** A question stage whose dependency is always down. */
    private static final class AlwaysDown implements Stage<QuestionTask> {
        final List<Long> callTimes = new CopyOnWriteArrayList<>();

        @Override
        public String name() {
            return "always-down";
        }

        @Override
        public Class<QuestionTask> inputType() {
            return QuestionTask.class;
        }

        @Override
        public Outcome process(QuestionTask input) {
            callTimes.add(System.nanoTime());
            throw new InfrastructureException("endpoint returned 503", null);
        }
    }

    @Test
    void shouldRetryInfrastructureFailuresWithBackoffThenDeadLetterAndFinishTheQuestion() {
        kafka.createTopics(1, "down-in");
        AlwaysDown stage = new AlwaysDown();
        RetryPolicy policy = new RetryPolicy(4, Duration.ofMillis(100), Duration.ofSeconds(2), 2.0);
        run(stage, "down-in", settings("down").withRetry(policy));

        QuestionTask task = QuestionTask.create("q-down", "acme", "demo", "how many orders?", 3, Instant.now());
        kafka.send("down-in", task.key(), JsonCodec.encode(task), task.headers());

        List<ConsumerRecord<byte[], byte[]>> results = kafka.readUntil(Topics.RESULTS.name(), Duration.ofSeconds(60),
                l -> keys(l).contains("q-down"));
        QuestionResult result = results.stream().filter(r -> new String(r.key(), StandardCharsets.UTF_8).equals("q-down"))
                .map(r -> decode(r.value(), QuestionResult.class)).findFirst().orElseThrow();
        assertEquals(QuestionResult.FAILED, result.status());
        assertEquals(Outcomes.INFRASTRUCTURE_ERROR, result.reason());
        assertEquals(1, result.attempts(), "infrastructure retries never count as attempts");

        assertEquals(5, stage.callTimes.size(), "one call plus four retries");
        List<Long> gaps = new ArrayList<>();
        for (int i = 1; i < stage.callTimes.size(); i++) gaps.add((stage.callTimes.get(i) - stage.callTimes.get(i - 1)) / 1_000_000);
        // full-jitter bounds: retry n waits within [cap/2, cap], cap = 100ms * 2^(n-1)
        assertTrue(gaps.get(0) >= 50, "first backoff >= 50 ms: " + gaps);
        assertTrue(gaps.get(3) >= 400, "fourth backoff >= 400 ms (exponential): " + gaps);
        assertTrue(gaps.get(3) > gaps.get(0), "backoff grows: " + gaps);

        List<ConsumerRecord<byte[], byte[]>> dlq = kafka.readUntil(Topics.DLQ.name(), Duration.ofSeconds(30), l -> keys(l).contains("q-down"));
        ConsumerRecord<byte[], byte[]> dead = dlq.stream().filter(r -> new String(r.key(), StandardCharsets.UTF_8).equals("q-down")).findFirst().orElseThrow();
        assertEquals("retries_exhausted", header(dead, SqloopHeaders.ERROR_REASON));
        assertEquals(InfrastructureException.class.getName(), header(dead, SqloopHeaders.ERROR_CLASS));
        assertEquals("endpoint returned 503", header(dead, SqloopHeaders.ERROR_MESSAGE));
        assertEquals("1", header(dead, SqloopHeaders.ATTEMPT), "original headers kept on the dead letter");
    }

    @Test
    void shouldEndAQuestionPastItsDeadlineAsDeadlineExceeded() {
        kafka.createTopics(1, "late-in", "late-out");
        AtomicInteger processed = new AtomicInteger();
        Stage<QuestionTask> stage = new Stage<>() {
            public String name() { return "late"; }
            public Class<QuestionTask> inputType() { return QuestionTask.class; }
            public Outcome process(QuestionTask in) {
                processed.incrementAndGet();
                return Outcome.forward("late-out", in);
            }
        };
        run(stage, "late-in", settings("late"));
        QuestionTask late = QuestionTask.create("q-late", "acme", "demo", "q", 3, Instant.now())
                .withBatch(null, Instant.now().minusSeconds(5), Map.of());
        kafka.send("late-in", late.key(), JsonCodec.encode(late), late.headers());

        List<ConsumerRecord<byte[], byte[]>> results = kafka.readUntil(Topics.RESULTS.name(), Duration.ofSeconds(60), l -> keys(l).contains("q-late"));
        QuestionResult result = results.stream().filter(r -> new String(r.key(), StandardCharsets.UTF_8).equals("q-late"))
                .map(r -> decode(r.value(), QuestionResult.class)).findFirst().orElseThrow();
        assertEquals(Outcomes.DEADLINE_EXCEEDED, result.reason());
        assertEquals(0, processed.get(), "an expired question is not worked on");
    }

    @Test
    void shouldFinishAndCommitInFlightRecordsOnGracefulClose() throws Exception {
        kafka.createTopics(1, "graceful-in", "graceful-out");
        StageRunner<Probe> runner = run(new PassThroughStage("graceful", "graceful-out", Duration.ofMillis(700)),
                "graceful-in", settings("graceful"));
        kafka.sendProbes("graceful-in", 50);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (runner.inFlight() < 50 && System.nanoTime() < deadline) Thread.sleep(20);
        assertEquals(50, runner.inFlight(), "all 50 records in flight on one partition at once");

        runner.close();

        assertEquals(StageRunner.State.STOPPED, runner.state());
        List<ConsumerRecord<byte[], byte[]>> out = kafka.readUntil("graceful-out", Duration.ofSeconds(30), l -> keys(l).size() >= 50);
        assertEquals(50, keys(out).size(), "in-flight records finished during shutdown");
        try (Admin admin = KafkaClients.admin(kafka.settings())) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets("graceful")
                    .partitionsToOffsetAndMetadata().get();
            assertEquals(50, committed.get(new TopicPartition("graceful-in", 0)).offset(), "and were committed");
        }
    }

    /** Runners closed together ({@link StageRunner#closeAll}, as a service stops) each finish and commit their own. */
    @Test
    void shouldFinishAndCommitTheInFlightRecordsOfRunnersClosedTogether() throws Exception {
        kafka.createTopics(1, "together-a", "together-b", "together-out");
        List<StageRunner<Probe>> both = List.of(
                run(new PassThroughStage("together-a", "together-out", Duration.ofMillis(700)), "together-a", settings("together-a")),
                run(new PassThroughStage("together-b", "together-out", Duration.ofMillis(700)), "together-b", settings("together-b")));
        kafka.sendProbes("together-a", 20);
        kafka.send("together-b", "b-1", JsonCodec.encode(new Probe("b-1", 1, 0)), Map.of());
        kafka.send("together-b", "b-2", JsonCodec.encode(new Probe("b-2", 2, 0)), Map.of());
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while ((both.get(0).inFlight() < 20 || both.get(1).inFlight() < 2) && System.nanoTime() < deadline) Thread.sleep(20);

        StageRunner.closeAll(both);

        both.forEach(r -> assertEquals(StageRunner.State.STOPPED, r.state(), r.stageName()));
        List<ConsumerRecord<byte[], byte[]>> out = kafka.readUntil("together-out", Duration.ofSeconds(30), l -> keys(l).size() >= 22);
        assertEquals(22, keys(out).size(), "the in-flight records of both finished during the stop");
        try (Admin admin = KafkaClients.admin(kafka.settings())) {
            assertEquals(20, admin.listConsumerGroupOffsets("together-a").partitionsToOffsetAndMetadata().get()
                    .get(new TopicPartition("together-a", 0)).offset());
            assertEquals(2, admin.listConsumerGroupOffsets("together-b").partitionsToOffsetAndMetadata().get()
                    .get(new TopicPartition("together-b", 0)).offset());
        }
    }

    /**
     * A stage whose outputs the broker is slow to acknowledge stops starting records once twice maxInFlight of them
     * wait (instead of queueing outputs in the producer until they expire), and carries on as acknowledgements come. The
     * input is a real topic on the real broker; the output is Kafka's MockProducer, so the test decides when a send is
     * acknowledged.
     */
    @Test
    void shouldStopStartingRecordsWhileMaxInFlightOutputsAwaitAcknowledgement() throws Exception {
        kafka.createTopics(1, "ack-in");
        var producer = new org.apache.kafka.clients.producer.MockProducer<byte[], byte[]>(false, null,
                new org.apache.kafka.common.serialization.ByteArraySerializer(), new org.apache.kafka.common.serialization.ByteArraySerializer());
        var consumer = new org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]>(
                KafkaClients.consumerProperties(kafka.settings(), "ack", 500, "ack-consumer"));
        StageRunner<Probe> runner = new StageRunner<>(new PassThroughStage("ack", "ack-out", Duration.ZERO), "ack-in", consumer,
                producer, settings("ack").withMaxInFlight(8), new SimpleMeterRegistry(), java.time.Clock.systemUTC());
        runners.add(runner);
        runner.start();
        kafka.sendProbes("ack-in", 200);

        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (runner.unacknowledged() < 16 && System.nanoTime() < deadline) Thread.sleep(10);
        assertEquals(16, runner.unacknowledged(), "sixteen records done, their outputs unacknowledged");
        Thread.sleep(1_000);
        assertEquals(16, producer.history().size(), "no record starts while twice maxInFlight outputs wait for the broker");
        assertEquals(0, runner.inFlight());

        int most = 0;
        deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (producer.history().size() < 200 || runner.unacknowledged() > 0) {
            assertTrue(System.nanoTime() < deadline, "timed out at " + producer.history().size() + " sends");
            most = Math.max(most, runner.unacknowledged());
            if (!producer.completeNext()) Thread.sleep(1);
        }
        assertTrue(most <= 16, "at most sixteen outputs awaited acknowledgement, saw " + most);
        Set<String> sent = producer.history().stream().map(r -> new String(r.key(), StandardCharsets.UTF_8)).collect(Collectors.toSet());
        assertEquals(KafkaTestSupport.probeIds(200), sent, "every record went through once acknowledged");
        assertEquals(200, producer.history().size(), "each once");
    }

    private static <T> T decode(byte[] bytes, Class<T> type) {
        try {
            return JsonCodec.decode(bytes, type);
        } catch (JsonCodec.DecodeException e) {
            throw new AssertionError(e);
        }
    }
}
