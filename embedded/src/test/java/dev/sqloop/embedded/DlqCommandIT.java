package dev.sqloop.embedded;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.cli.DlqCommand;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.SqloopHeaders;
import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.config.KafkaSettings;
import dev.sqloop.common.message.Message;
import dev.sqloop.common.runtime.KafkaClients;
import dev.sqloop.common.runtime.Outcome;
import dev.sqloop.common.runtime.RunnerSettings;
import dev.sqloop.common.runtime.Stage;
import dev.sqloop.common.runtime.StageRunner;
import dev.sqloop.testkit.EmbeddedKafka;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * {@code ./sqloop dlq} against a real broker and a real {@link StageRunner}: a stage fails on "broken" items until it
 * is fixed, and some records are not even JSON. {@code list} shows the dead letters with their reasons, the filters
 * narrow them, {@code replay} sends the failed ones back to their topic with their headers (the attempt unchanged)
 * and, run again, sends nothing twice. (Here and not in cli: cli's test classpath may not carry testkit.)
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class) // the first test counts every dead letter; the race adds its own
class DlqCommandIT {
    private static final String IN = "dlq-it-in";
    private static final String OUT = "dlq-it-out";
    private static final String STAGE = "flaky";

    private static EmbeddedKafka broker;
    private static KafkaSettings kafka;
    private static StageRunner<Item> runner;
    private static final AtomicBoolean fixed = new AtomicBoolean();

    /** The stage's input and output; "broken" ones fail until the stage is fixed. */
    public record Item(String id, boolean broken) implements Message {
        @Override
        public String key() {
            return id;
        }

        // no attempt header of its own: the output's sqloop-attempt is the one the input record carried
        @Override
        public Map<String, String> headers() {
            return Map.of(SqloopHeaders.QUESTION_ID, id);
        }
    }

    static final class FlakyStage implements Stage<Item> {
        @Override
        public String name() {
            return STAGE;
        }

        @Override
        public Class<Item> inputType() {
            return Item.class;
        }

        @Override
        public Outcome process(Item input) {
            if (input.broken() && !fixed.get()) throw new IllegalStateException("cannot handle broken item " + input.id());
            return Outcome.forward(OUT, input);
        }
    }

    @BeforeAll
    static void start() {
        broker = EmbeddedKafka.start();
        kafka = KafkaSettings.of(broker.bootstrapServers());
        KafkaClients.ensureTopics(kafka, List.of(new Topics.Spec(IN, 2, false), new Topics.Spec(OUT, 1, false),
                Topics.Spec.of(Topics.DLQ, 1, false)), Duration.ofSeconds(60));
        runner = KafkaClients.runner(new FlakyStage(), IN, kafka,
                RunnerSettings.defaults("dlq-it").withShutdownTimeout(Duration.ofSeconds(10)), new SimpleMeterRegistry()).start();
    }

    @AfterAll
    static void stop() {
        if (runner != null) runner.close();
        if (broker != null) broker.close();
    }

    @Test
    @Order(1)
    void shouldListFilterAndReplayDeadLettersEachOnce() throws Exception {
        Instant before = Instant.now();
        try (Producer<byte[], byte[]> p = KafkaClients.producer(kafka, "dlq-it-producer")) {
            for (int i = 0; i < 3; i++) send(p, "good-" + i, JsonCodec.encode(new Item("good-" + i, false)));
            for (int i = 0; i < 4; i++) send(p, "broken-" + i, JsonCodec.encode(new Item("broken-" + i, true)));
            for (int i = 0; i < 2; i++) send(p, "garbled-" + i, ("not json " + i).getBytes(StandardCharsets.UTF_8));
            p.flush();
        }
        assertEquals(3, awaitCount(OUT, 3).size());
        List<ConsumerRecord<byte[], byte[]>> dlq = awaitCount(Topics.DLQ.name(), 6);
        assertEquals(6, dlq.size());

        // list: every dead letter on one line, with its stage, reason, origin and question id
        String all = dlq("list");
        List<String> rows = rows(all);
        assertEquals(6, rows.size(), all);
        assertEquals(4, rows.stream().filter(r -> r.contains(" processing_failed ")).count(), all);
        assertEquals(2, rows.stream().filter(r -> r.contains(" undecodable ")).count(), all);
        assertTrue(rows.stream().allMatch(r -> r.contains(" " + STAGE + " ") && r.contains(" " + IN + "-") && replayed(r).equals("no")), all);
        for (int i = 0; i < 4; i++) {
            String id = "broken-" + i;
            assertTrue(rows.stream().anyMatch(r -> r.contains(" " + id + " ") && r.contains("IllegalStateException: cannot handle broken item " + id)), all);
        }
        ConsumerRecord<byte[], byte[]> firstBroken = dlq.stream().filter(r -> key(r).equals("broken-0")).findFirst().orElseThrow();
        String origin = IN + "-" + header(firstBroken, SqloopHeaders.ERROR_PARTITION) + "@" + header(firstBroken, SqloopHeaders.ERROR_OFFSET);
        assertTrue(rows.stream().anyMatch(r -> r.startsWith(firstBroken.offset() + " ") && r.contains(origin)), origin + " in " + all);

        // the filters
        assertEquals(2, rows(dlq("list", "--reason", "undecodable")).size());
        assertTrue(rows(dlq("list", "--reason", "undecodable")).stream().allMatch(r -> r.contains(" undecodable ") && r.contains(" garbled-")));
        assertEquals(4, rows(dlq("list", "--reason", "processing_failed", "--stage", STAGE, "--topic", IN)).size());
        assertEquals(0, rows(dlq("list", "--stage", "executor")).size());
        assertEquals(0, rows(dlq("list", "--topic", "execute")).size());
        assertEquals(6, rows(dlq("list", "--since", before.minusSeconds(1).toString())).size());
        assertEquals(6, rows(dlq("list", "--since", "1h")).size());
        assertEquals(0, rows(dlq("list", "--since", Instant.now().plusSeconds(3600).toString())).size());
        String limited = dlq("list", "--limit", "2");
        assertEquals(2, rows(limited).size());
        assertTrue(limited.contains("the last 2 of 6 dead letters"), limited);

        // show: the whole dead letter
        String shown = dlq("show", Long.toString(firstBroken.offset()));
        assertTrue(shown.contains(SqloopHeaders.ATTEMPT + ": 2"), shown);
        assertTrue(shown.contains(SqloopHeaders.ERROR_REASON + ": processing_failed"), shown);
        assertTrue(shown.contains(SqloopHeaders.ERROR_CLASS + ": java.lang.IllegalStateException"), shown);
        assertTrue(shown.contains("key\n  broken-0") && shown.contains("\"broken\":true"), shown);

        // --offset picks dead letters by their dlq offset, repeatable
        long secondBroken = dlq.stream().filter(r -> key(r).equals("broken-1")).findFirst().orElseThrow().offset();
        String picked = dlq("replay", "--offset", Long.toString(firstBroken.offset()), "--offset", Long.toString(secondBroken), "--dry-run");
        assertEquals(java.util.Set.of(firstBroken.offset() + "", secondBroken + ""), picked.lines().filter(l -> l.startsWith("would replay "))
                .map(l -> l.split("\\s+")[2]).collect(Collectors.toSet()), picked);
        assertEquals(2, picked.lines().filter(l -> l.startsWith("would replay ")).count(), picked);

        // a dry run sends nothing
        String dry = dlq("replay", "--reason", "processing_failed", "--dry-run");
        assertEquals(4, dry.lines().filter(l -> l.startsWith("would replay ")).count(), dry);
        assertEquals(9, readToEnd(IN).size(), "a dry run sent nothing");

        // fixed: the failed ones replay through the stage, with their attempt unchanged
        fixed.set(true);
        String replay = dlq("replay", "--reason", "processing_failed");
        assertTrue(replay.contains("4 replayed, 0 skipped"), replay);
        List<ConsumerRecord<byte[], byte[]>> out = awaitCount(OUT, 7);
        assertEquals(7, out.size());
        List<ConsumerRecord<byte[], byte[]>> replayedOut = out.stream().filter(r -> key(r).startsWith("broken-")).toList();
        assertEquals(List.of("broken-0", "broken-1", "broken-2", "broken-3"), replayedOut.stream().map(DlqCommandIT::key).sorted().toList());
        assertTrue(replayedOut.stream().allMatch(r -> "2".equals(header(r, SqloopHeaders.ATTEMPT))), "attempt unchanged through the stage");
        List<ConsumerRecord<byte[], byte[]>> in = readToEnd(IN);
        assertEquals(13, in.size());
        for (ConsumerRecord<byte[], byte[]> r : in.stream().filter(r -> key(r).startsWith("broken-")).toList()) {
            assertEquals("2", header(r, SqloopHeaders.ATTEMPT));
            assertFalse(headerNames(r).stream().anyMatch(h -> h.startsWith(SqloopHeaders.ERROR_PREFIX)), "no sqloop.error.* on " + headerNames(r));
        }
        assertEquals(2, in.stream().filter(r -> key(r).equals("broken-0")).count(), "the original and one replay");
        assertTrue(rows(dlq("list", "--reason", "processing_failed")).stream().allMatch(r -> replayed(r).equals("yes")));

        // again: nothing is sent twice
        String again = dlq("replay", "--reason", "processing_failed");
        assertTrue(again.contains("0 replayed, 4 skipped") && again.contains("already replayed at"), again);
        assertEquals(13, readToEnd(IN).size(), "nothing re-produced");

        // undecodable ones replay too (a fixed consumer might read them), but here they are dead-lettered again, once each
        String garbled = dlq("replay", "--reason", "undecodable");
        assertTrue(garbled.contains("2 replayed, 0 skipped"), garbled);
        List<ConsumerRecord<byte[], byte[]>> dlqAfter = awaitCount(Topics.DLQ.name(), 8);
        assertEquals(8, dlqAfter.size());
        List<String> undecodable = rows(dlq("list", "--reason", "undecodable"));
        assertEquals(4, undecodable.size());
        assertEquals(2, undecodable.stream().filter(r -> replayed(r).equals("yes")).count(), "the replayed originals");
        assertEquals(2, undecodable.stream().filter(r -> replayed(r).equals("no")).count(), "their new dead letters");

        // everything once more: only the two new dead letters are sent; no other record goes round again
        String everything = dlq("replay", "--dry-run");
        assertEquals(2, everything.lines().filter(l -> l.startsWith("would replay ")).count(), everything);
        assertEquals(6, everything.lines().filter(l -> l.startsWith("skipped ")).count(), everything);
        assertEquals(15, readToEnd(IN).size());
        Thread.sleep(1000); // a record the stage would send twice would have arrived by now
        Map<String, Long> perKey = readToEnd(OUT).stream().collect(Collectors.groupingBy(DlqCommandIT::key, Collectors.counting()));
        assertEquals(7, perKey.size(), perKey.toString());
        assertTrue(perKey.values().stream().allMatch(n -> n == 1), "each item out once: " + perKey);
    }

    @Test
    @Order(2)
    void shouldReadWithoutAConsumerGroupAndTakeBootstrapFromTheCommandLine() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code = DlqCommand.run(List.of("list", "--bootstrap", broker.bootstrapServers()), Map.of(),
                new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
        assertEquals(0, code);
        assertTrue(out.toString(StandardCharsets.UTF_8).startsWith("OFFSET "), out.toString(StandardCharsets.UTF_8));
        try (var admin = KafkaClients.admin(kafka)) {
            // the runner's own group may or may not have joined yet; any other group would be the command's
            List<String> groups = admin.listGroups().all().get().stream().map(g -> g.groupId()).filter(g -> !g.equals("dlq-it")).toList();
            assertEquals(List.of(), groups, "the command joined no group and committed nothing");
        }
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(1, DlqCommand.run(List.of("show", "999999"), Map.of(KafkaSettings.BOOTSTRAP, broker.bootstrapServers()),
                new PrintStream(new ByteArrayOutputStream()), new PrintStream(err, true, StandardCharsets.UTF_8)));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("no dead letter 999999"), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    @Order(3)
    void shouldSendEachDeadLetterOnceWhenReplaysRace() throws Exception {
        String race = "dlq-it-race";
        KafkaClients.ensureTopics(kafka, List.of(new Topics.Spec(race, 1, false)), Duration.ofSeconds(60));
        int letters = 30;
        try (Producer<byte[], byte[]> p = KafkaClients.producer(kafka, "dlq-it-race-producer")) {
            for (int i = 0; i < letters; i++) {
                RecordHeaders h = new RecordHeaders();
                h.add(SqloopHeaders.ATTEMPT, "1".getBytes(StandardCharsets.UTF_8));
                h.add(SqloopHeaders.ERROR_TOPIC, race.getBytes(StandardCharsets.UTF_8));
                h.add(SqloopHeaders.ERROR_PARTITION, "0".getBytes(StandardCharsets.UTF_8));
                h.add(SqloopHeaders.ERROR_OFFSET, Integer.toString(i).getBytes(StandardCharsets.UTF_8));
                h.add(SqloopHeaders.ERROR_STAGE, "racer".getBytes(StandardCharsets.UTF_8));
                h.add(SqloopHeaders.ERROR_REASON, "retries_exhausted".getBytes(StandardCharsets.UTF_8));
                p.send(new ProducerRecord<>(Topics.DLQ.name(), null, ("r-" + i).getBytes(StandardCharsets.UTF_8),
                        ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8), h));
            }
            p.flush();
        }
        int runs = 4;
        List<java.util.concurrent.Future<String[]>> results = new ArrayList<>();
        try (var pool = java.util.concurrent.Executors.newFixedThreadPool(runs)) {
            java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
            for (int i = 0; i < runs; i++) {
                results.add(pool.submit(() -> {
                    go.await();
                    ByteArrayOutputStream out = new ByteArrayOutputStream();
                    ByteArrayOutputStream err = new ByteArrayOutputStream();
                    int code = DlqCommand.run(List.of("replay", "--topic", race), Map.of(KafkaSettings.BOOTSTRAP,
                            broker.bootstrapServers()), new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
                    return new String[] {Integer.toString(code), out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8)};
                }));
            }
            go.countDown();
        }
        int replayed = 0;
        int succeeded = 0;
        for (var f : results) {
            String[] r = f.get();
            assertTrue(r[0].equals("0") || (r[0].equals("1") && r[2].contains("another dlq replay started meanwhile")), String.join("\n", r));
            if (r[0].equals("0")) {
                succeeded++;
                replayed += (int) r[1].lines().filter(l -> l.startsWith("replayed ")).count();
            }
        }
        assertTrue(succeeded >= 1, "one replay at least got through");
        List<ConsumerRecord<byte[], byte[]>> sent = readToEnd(race);
        assertEquals(letters, sent.size(), "each dead letter on its topic once, however the replays interleaved");
        assertEquals(letters, sent.stream().map(DlqCommandIT::key).distinct().count());
        assertEquals(letters, replayed, "the successful replays together sent each once");
        assertTrue(rows(dlq("list", "--topic", race)).stream().allMatch(r -> replayed(r).equals("yes")));
    }

    // ---- helpers

    private static String dlq(String... argv) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = DlqCommand.run(List.of(argv), Map.of(KafkaSettings.BOOTSTRAP, broker.bootstrapServers()),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(0, code, String.join(" ", argv) + ": " + err.toString(StandardCharsets.UTF_8));
        return out.toString(StandardCharsets.UTF_8);
    }

    /** The dead-letter lines of a {@code list}: those after the column header, before the count. */
    private static List<String> rows(String list) {
        List<String> lines = list.lines().toList();
        int header = lines.indexOf(lines.stream().filter(l -> l.startsWith("OFFSET ")).findFirst().orElseThrow());
        return lines.subList(header + 1, lines.size() - 1);
    }

    /** The REPLAYED column of a list row (columns hold no spaces but the last, the exception). */
    private static String replayed(String row) {
        return row.trim().split("\\s+")[6];
    }

    private static void send(Producer<byte[], byte[]> p, String key, byte[] value) {
        RecordHeaders h = new RecordHeaders();
        h.add(SqloopHeaders.ATTEMPT, "2".getBytes(StandardCharsets.UTF_8));
        h.add(SqloopHeaders.QUESTION_ID, key.getBytes(StandardCharsets.UTF_8));
        p.send(new ProducerRecord<>(IN, null, key.getBytes(StandardCharsets.UTF_8), value, h));
    }

    private static List<ConsumerRecord<byte[], byte[]>> awaitCount(String topic, int count) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        List<ConsumerRecord<byte[], byte[]>> records = readToEnd(topic);
        while (records.size() < count && System.nanoTime() < deadline) {
            Thread.sleep(200);
            records = readToEnd(topic);
        }
        return records;
    }

    /** Every committed record of {@code topic} up to its end offsets now. */
    private static List<ConsumerRecord<byte[], byte[]>> readToEnd(String topic) {
        Map<String, Object> p = new HashMap<>();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> parts = c.partitionsFor(topic).stream().map(i -> new TopicPartition(topic, i.partition())).toList();
            c.assign(parts);
            c.seekToBeginning(parts);
            Map<TopicPartition, Long> end = c.endOffsets(parts);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp)) && System.nanoTime() < deadline) {
                c.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        return records;
    }

    private static String key(ConsumerRecord<byte[], byte[]> r) {
        return r.key() == null ? "" : new String(r.key(), StandardCharsets.UTF_8);
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        var h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    private static List<String> headerNames(ConsumerRecord<byte[], byte[]> r) {
        List<String> names = new ArrayList<>();
        r.headers().forEach(h -> names.add(h.key()));
        return names;
    }
}
