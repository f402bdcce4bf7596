package dev.sqloop.common.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.SqloopHeaders;
import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.error.Outcomes;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.message.QuestionTask;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/** The per-record decisions of the runtime, without a consumer, a producer or real sleeps. */
class RecordHandlerTest {
    private static final Instant NOW = Instant.parse("2026-11-23T12:00:00Z");
    private static final RetryPolicy POLICY = new RetryPolicy(3, Duration.ofMillis(100), Duration.ofSeconds(2), 2.0);

    private final List<Duration> sleeps = new ArrayList<>();
    private final List<String> deadLetterReasons = new ArrayList<>();
    private final AtomicInteger retries = new AtomicInteger();
    private final AtomicBoolean stopping = new AtomicBoolean();

    /** A question stage whose behaviour is a function of the call number (0-based). */
    private static final class Scripted extends AbstractStage<QuestionTask> {
        final AtomicInteger calls = new AtomicInteger();
        final Function<Integer, Outcome> script;

        Scripted(Function<Integer, Outcome> script) {
            super("scripted", QuestionTask.class);
            this.script = script;
        }

        @Override
        public Outcome process(QuestionTask input) {
            return script.apply(calls.getAndIncrement());
        }
    }

    private <I> RecordHandler<I> handler(Stage<I> stage) {
        return handler(stage, NOW);
    }

    /** {@link #handler(Stage)} with the clock at {@code now}. */
    private <I> RecordHandler<I> handler(Stage<I> stage, Instant now) {
        return new RecordHandler<>(stage, POLICY, Clock.fixed(now, ZoneOffset.UTC),
                new DeadLetterReporter(stage.name(), deadLetterReasons::add), stopping::get, retries::incrementAndGet,
                d -> {
                    sleeps.add(d);
                    return true;
                });
    }

    private static ConsumerRecord<byte[], byte[]> record(String key, byte[] value, Map<String, String> headers) {
        RecordHeaders h = new RecordHeaders();
        headers.forEach((k, v) -> h.add(k, v.getBytes(StandardCharsets.UTF_8)));
        return new ConsumerRecord<>("in", 2, 41L, -1L, TimestampType.CREATE_TIME, -1, -1,
                key.getBytes(StandardCharsets.UTF_8), value, h, java.util.Optional.empty());
    }

    private static ConsumerRecord<byte[], byte[]> record(QuestionTask task) {
        return record(task.key(), JsonCodec.encode(task), task.headers());
    }

    private static QuestionTask task() {
        return QuestionTask.create("q1", "acme", "demo", "how many orders?", 3, NOW.minusSeconds(10));
    }

    private static String header(ProducerRecord<byte[], byte[]> r, String name) {
        var h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    private static <T> T decode(ProducerRecord<byte[], byte[]> r, Class<T> type) {
        try {
            return JsonCodec.decode(r.value(), type);
        } catch (JsonCodec.DecodeException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void shouldForwardTheOutcomeOfAStageWithTheIncomingHeaders() throws Exception {
        Scripted stage = new Scripted(n -> Outcome.forward(Topics.GENERATE, task().withSql("SELECT 1", null)));
        RecordHandler.Handled handled = handler(stage).handle(record(task()));
        assertEquals("forward", handled.kind());
        assertEquals(1, handled.records().size());
        ProducerRecord<byte[], byte[]> out = handled.records().getFirst();
        assertEquals(Topics.GENERATE.name(), out.topic());
        assertEquals("q1", new String(out.key(), StandardCharsets.UTF_8));
        assertEquals("demo", header(out, SqloopHeaders.DATASOURCE));
        assertEquals("SELECT 1", decode(out, QuestionTask.class).sql());
        assertEquals(0, retries.get());
        assertTrue(deadLetterReasons.isEmpty());
    }

    @Test
    void shouldEndACancelledQuestionOrBatchWithoutCallingTheStage() throws Exception {
        Scripted stage = new Scripted(n -> Outcome.forward(Topics.GENERATE, task().withSql("SELECT 1", null)));
        java.util.Set<String> cancelled = new java.util.HashSet<>();
        RecordHandler<QuestionTask> h = new RecordHandler<>(stage, POLICY, Clock.fixed(NOW, ZoneOffset.UTC),
                new DeadLetterReporter(stage.name(), deadLetterReasons::add), stopping::get, retries::incrementAndGet,
                d -> true, headers -> Cancellations.matches(cancelled, headers));
        QuestionTask inBatch = task().withBatch("b7", null, null);
        assertEquals("forward", h.handle(record(inBatch)).kind(), "nothing cancelled yet");

        cancelled.add(dev.sqloop.common.message.Cancellation.BATCH + "b7");
        RecordHandler.Handled handled = h.handle(record(inBatch));
        assertEquals("cancelled", handled.kind());
        dev.sqloop.common.message.QuestionResult result = decode(handled.records().getFirst(), dev.sqloop.common.message.QuestionResult.class);
        assertEquals(Topics.RESULTS.name(), handled.records().getFirst().topic());
        assertEquals(dev.sqloop.common.error.Outcomes.CANCELLED, result.reason());
        assertEquals(1, stage.calls.get(), "the stage ran only before the cancellation");
        assertEquals("forward", h.handle(record(task())).kind(), "a question outside the batch goes on");

        cancelled.add(dev.sqloop.common.message.Cancellation.QUESTION + "q1");
        assertEquals("cancelled", h.handle(record(task())).kind(), "a single question by its id");
    }

    @Test
    void shouldEndARecordCancelledWhileTheStageWaitedAtItsCancellationPoint() throws Exception {
        java.util.Set<String> cancelled = new java.util.HashSet<>();
        Scripted stage = new Scripted(n -> {
            cancelled.add(dev.sqloop.common.message.Cancellation.QUESTION + "q1"); // cancelled while the stage waited
            Cancellations.checkpoint();
            return Outcome.forward(Topics.GENERATE, task().withSql("SELECT 1", null));
        });
        RecordHandler<QuestionTask> h = new RecordHandler<>(stage, POLICY, Clock.fixed(NOW, ZoneOffset.UTC),
                new DeadLetterReporter(stage.name(), deadLetterReasons::add), stopping::get, retries::incrementAndGet,
                d -> true, headers -> Cancellations.matches(cancelled, headers));
        RecordHandler.Handled handled = h.handle(record(task()));
        assertEquals("cancelled", handled.kind());
        assertEquals(Topics.RESULTS.name(), handled.records().getFirst().topic());
        assertTrue(deadLetterReasons.isEmpty(), "a cancellation is not a failure");
        Cancellations.checkpoint(); // outside a record nothing is cancelled
    }

    @Test
    void shouldDeadLetterAnUndecodableRecordWithoutCallingTheStage() throws Exception {
        Scripted stage = new Scripted(n -> Outcome.drop("never"));
        RecordHandler.Handled handled = handler(stage).handle(record("bad", "{not json".getBytes(StandardCharsets.UTF_8),
                Map.of("origin", "test")));
        assertEquals("dlq", handled.kind());
        assertEquals(0, stage.calls.get());
        ProducerRecord<byte[], byte[]> dead = handled.records().getFirst();
        assertEquals(Topics.DLQ.name(), dead.topic());
        assertEquals("{not json", new String(dead.value(), StandardCharsets.UTF_8));
        assertEquals("test", header(dead, "origin"));
        assertEquals(DeadLetterReporter.UNDECODABLE, header(dead, SqloopHeaders.ERROR_REASON));
        assertEquals(List.of(DeadLetterReporter.UNDECODABLE), deadLetterReasons);
    }

    @Test
    void shouldRetryInfrastructureFailuresWithBackoffAndNeverCountThemAsAttempts() throws Exception {
        Scripted stage = new Scripted(n -> {
            if (n < 2) throw new InfrastructureException("503", null);
            return Outcome.forward(Topics.STATIC_VALIDATE, task());
        });
        RecordHandler.Handled handled = handler(stage).handle(record(task()));
        assertEquals("forward", handled.kind());
        assertEquals(3, stage.calls.get());
        assertEquals(2, retries.get());
        assertEquals(2, sleeps.size());
        // full jitter: retry n waits within [cap/2, cap], cap = 100 ms * 2^(n-1)
        assertTrue(sleeps.get(0).toMillis() >= 50 && sleeps.get(0).toMillis() <= 100, "first backoff " + sleeps);
        assertTrue(sleeps.get(1).toMillis() >= 100 && sleeps.get(1).toMillis() <= 200, "second backoff " + sleeps);
        assertEquals(1, decode(handled.records().getFirst(), QuestionTask.class).attempt());
    }

    /** Issue 46: the retries are counted in the question itself, per stage, so its result and trace show them. */
    @Test
    void shouldCountEachInfrastructureRetryInTheQuestionPerStage() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        Stage<QuestionTask> forwarding = new AbstractStage<>("execute", QuestionTask.class) {
            @Override
            public Outcome process(QuestionTask input) {
                if (calls.getAndIncrement() < 2) throw new InfrastructureException("connection reset", null);
                return Outcome.forward(Topics.STATIC_VALIDATE, input);
            }
        };
        QuestionTask earlier = task().withRetry("generate");
        QuestionTask out = decode(handler(forwarding).handle(record(earlier)).records().getFirst(), QuestionTask.class);
        assertEquals(Map.of("generate", 1, "execute", 2), out.retries());
        assertEquals(1, out.attempt(), "no attempt spent");
        assertEquals(Map.of("generate", 1, "execute", 2), dev.sqloop.common.message.QuestionResult.succeeded(out, NOW).retries());
    }

    /** Issue 46: retries showed only in metrics; each is one INFO line naming the stage, the retry, the question and the wait. */
    @Test
    void shouldLogEveryInfrastructureRetry() throws Exception {
        ch.qos.logback.classic.Logger logger = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(RecordHandler.class);
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> lines = new ch.qos.logback.core.read.ListAppender<>();
        lines.start();
        logger.addAppender(lines);
        try {
            Scripted stage = new Scripted(n -> {
                if (n < 2) throw new InfrastructureException("endpoint returned 503", null);
                return Outcome.drop("done");
            });
            handler(stage).handle(record(task()));
        } finally {
            logger.detachAppender(lines);
        }
        List<String> retries = lines.list.stream().map(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage)
                .filter(m -> m.contains("infrastructure retry")).toList();
        assertEquals(2, retries.size(), retries.toString());
        assertTrue(retries.get(1).contains("retry 2 of q1") && retries.get(1).contains("endpoint returned 503")
                && retries.get(1).contains("no attempt spent"), retries.get(1));
    }

    @Test
    void shouldHonourRetryAfterFromTheServer() throws Exception {
        Scripted stage = new Scripted(n -> {
            if (n == 0) throw new InfrastructureException("429", null, Duration.ofMillis(1500));
            return Outcome.drop("done");
        });
        assertEquals("drop", handler(stage).handle(record(task())).kind());
        assertEquals(List.of(Duration.ofMillis(1500)), sleeps);
    }

    @Test
    void shouldGiveUpPastTheBudgetWithTheStagesOutcomeAndADeadLetter() throws Exception {
        Scripted stage = new Scripted(n -> {
            throw new InfrastructureException("endpoint returned 503", null);
        });
        RecordHandler.Handled handled = handler(stage).handle(record(task()));
        assertEquals("gave_up", handled.kind());
        assertEquals(4, stage.calls.get(), "one call plus three retries");
        assertEquals(3, retries.get());
        assertEquals(2, handled.records().size());
        QuestionResult result = decode(handled.records().get(0), QuestionResult.class);
        assertEquals(Topics.RESULTS.name(), handled.records().get(0).topic());
        assertEquals(Outcomes.INFRASTRUCTURE_ERROR, result.reason());
        ProducerRecord<byte[], byte[]> dead = handled.records().get(1);
        assertEquals(DeadLetterReporter.RETRIES_EXHAUSTED, header(dead, SqloopHeaders.ERROR_REASON));
        assertEquals("endpoint returned 503", header(dead, SqloopHeaders.ERROR_MESSAGE));
        assertEquals("1", header(dead, SqloopHeaders.ATTEMPT), "original headers kept on the dead letter");
    }

    @Test
    void shouldSendADefectToTheDeadLetterQueueAtOnceAndEndTheQuestion() throws Exception {
        Scripted stage = new Scripted(n -> {
            throw new IllegalStateException("bug");
        });
        RecordHandler.Handled handled = handler(stage).handle(record(task()));
        assertEquals("failed", handled.kind());
        assertEquals(1, stage.calls.get(), "a defect is not retried");
        assertEquals(Outcomes.INTERNAL_ERROR, decode(handled.records().get(0), QuestionResult.class).reason());
        assertEquals(DeadLetterReporter.PROCESSING_FAILED, header(handled.records().get(1), SqloopHeaders.ERROR_REASON));
        assertEquals(IllegalStateException.class.getName(), header(handled.records().get(1), SqloopHeaders.ERROR_CLASS));
    }

    @Test
    void shouldEndAQuestionPastItsDeadlineWithoutWorkingOnIt() throws Exception {
        Scripted stage = new Scripted(n -> Outcome.drop("never"));
        QuestionTask late = task().withBatch(null, NOW.minusSeconds(1), Map.of());
        RecordHandler.Handled handled = handler(stage).handle(record(late));
        assertEquals("deadline", handled.kind());
        assertEquals(0, stage.calls.get());
        assertEquals(Outcomes.DEADLINE_EXCEEDED, decode(handled.records().getFirst(), QuestionResult.class).reason());
    }

    @Test
    void shouldStartTheDeadlineAtTheStageThatStartsQuestionsRatherThanAtSubmission() throws Exception {
        // submitted 10 s ago with a 9 s budget: it waited longer than its budget to be started (behind its batch)
        QuestionTask waited = task().withBatch("b1", NOW.minusSeconds(1), Map.of());
        AtomicReference<QuestionTask> seen = new AtomicReference<>();
        Stage<QuestionTask> entry = new AbstractStage<>("entry", QuestionTask.class) {
            @Override
            public boolean startsQuestions() {
                return true;
            }

            @Override
            public Outcome process(QuestionTask in) {
                seen.set(in);
                return Outcome.forward(Topics.GENERATE, in);
            }
        };
        RecordHandler.Handled handled = handler(entry).handle(record(waited));
        assertEquals(NOW.plusSeconds(9), seen.get().deadline(), "the whole budget, counted from the start");
        assertEquals(Topics.GENERATE.name(), handled.records().getFirst().topic());
        assertEquals(NOW.plusSeconds(9), decode(handled.records().getFirst(), QuestionTask.class).deadline());
        assertEquals(Long.toString(NOW.plusSeconds(9).toEpochMilli()), header(handled.records().getFirst(), SqloopHeaders.DEADLINE),
                "the header follows the moved deadline");
        assertEquals(waited.submittedAt(), seen.get().submittedAt(), "latency still counts from submission");

        // any later stage holds the question to it
        Scripted next = new Scripted(n -> Outcome.drop("never"));
        assertEquals("deadline", handler(next, NOW.plusSeconds(10)).handle(record(decode(handled.records().getFirst(), QuestionTask.class))).kind());
        assertEquals(0, next.calls.get());
    }

    @Test
    void shouldLeaveATaskWithoutDeadlineOrStartedBeforeItsSubmissionAsItIs() {
        QuestionTask none = task();
        assertSame(none, none.started(NOW));
        QuestionTask timed = task().withBatch(null, NOW.plusSeconds(5), Map.of());
        assertSame(timed, timed.started(timed.submittedAt()), "no wait, no move");
        assertSame(timed, timed.started(timed.submittedAt().minusSeconds(3)), "a clock behind the gateway's moves nothing");
    }

    @Test
    void shouldReadTheDeadlineHeaderOfAMessageWithoutOne() {
        assertEquals(Instant.ofEpochMilli(5), RecordHandler.deadlineOf(new Probe("p", 1, 0), Map.of(SqloopHeaders.DEADLINE, "5")));
        assertNull(RecordHandler.deadlineOf(new Probe("p", 1, 0), Map.of(SqloopHeaders.DEADLINE, "soon")), "malformed: none");
        assertNull(RecordHandler.deadlineOf(new Probe("p", 1, 0), Map.of()));
    }

    @Test
    void shouldAbandonARetryingRecordWhenTheRunnerStops() {
        Scripted stage = new Scripted(n -> {
            stopping.set(true);
            throw new InfrastructureException("503", null);
        });
        assertThrows(RecordHandler.Abandoned.class, () -> handler(stage).handle(record(task())));
        assertTrue(deadLetterReasons.isEmpty(), "an abandoned record stays uncommitted, not dead-lettered");
    }

    @Test
    void shouldAbandonWhenTheBackoffIsInterrupted() {
        Scripted stage = new Scripted(n -> {
            throw new InfrastructureException("503", null);
        });
        RecordHandler<QuestionTask> interrupted = new RecordHandler<>(stage, POLICY, Clock.fixed(NOW, ZoneOffset.UTC),
                new DeadLetterReporter("scripted", deadLetterReasons::add), () -> false, () -> {}, d -> false);
        assertThrows(RecordHandler.Abandoned.class, () -> interrupted.handle(record(task())));
        assertEquals(1, stage.calls.get());
    }
}
