package dev.sqloop.lab;

import dev.sqloop.cli.Args;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.config.KafkaSettings;
import dev.sqloop.common.message.Message;
import dev.sqloop.common.runtime.KafkaClients;
import dev.sqloop.common.runtime.Outcome;
import dev.sqloop.common.runtime.RunnerSettings;
import dev.sqloop.common.runtime.Stage;
import dev.sqloop.common.runtime.StageRunner;
import dev.sqloop.common.topic.Topics;
import dev.sqloop.testkit.EmbeddedKafka;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * {@code ./sqloop bench runner}: how close the runtime gets to the ideal throughput of an I/O-bound stage,
 * {@code in_flight / latency}, on a single-partition topic of a real broker. It compares the two designs
 * the foundation issue allowed: a classic consumer group with per-record in-flight tracking (what
 * {@link StageRunner} does) and a KIP-932 share group (poll, process the batch concurrently, acknowledge).
 */
public final class RunnerBenchmark {
    private static final double LOGNORMAL_SIGMA = 0.8;

    /** The payload moved by the benchmark. */
    public record Item(String id, int seq) implements Message {
        public Item {
            Objects.requireNonNull(id, "id");
        }

        @Override
        public String key() {
            return id;
        }
    }

    /** A stage that only waits, like a stage waiting on an LLM or a warehouse. */
    private static final class SleepingStage implements Stage<Item> {
        private final String out;
        private final LongSupplier latencyMillis;
        final AtomicLong firstStart = new AtomicLong(Long.MAX_VALUE);

        SleepingStage(String out, LongSupplier latencyMillis) {
            this.out = out;
            this.latencyMillis = latencyMillis;
        }

        public String name() {
            return "bench";
        }

        public Class<Item> inputType() {
            return Item.class;
        }

        public Outcome process(Item in) throws InterruptedException {
            firstStart.accumulateAndGet(System.nanoTime(), Math::min);
            Thread.sleep(latencyMillis.getAsLong());
            return Outcome.forward(out, in);
        }
    }

    private record Scenario(String name, String design, int inFlight, int records, String latency) {}

    /** Steady-state (5 %→95 %) and whole-run (first start → last output) throughput. */
    private record Measured(Scenario scenario, double perSecond, double overall, double ideal) {}

    private RunnerBenchmark() {}

    public static int run(Args args) throws Exception {
        int inFlight = args.integer("in-flight", RunnerSettings.DEFAULT_MAX_IN_FLIGHT);
        int latency = args.integer("latency-ms", 100);
        int records = args.integer("records", inFlight * 60);
        boolean share = !args.flag("no-share");
        List<Scenario> scenarios = new ArrayList<>();
        scenarios.add(new Scenario("baseline: one at a time", "classic", 1, Math.max(40, 4000 / latency), "fixed"));
        scenarios.add(new Scenario("classic group, per-record tracking", "classic", inFlight, records, "fixed"));
        if (share) scenarios.add(new Scenario("share group, batch per poll", "share", inFlight, records, "fixed"));
        scenarios.add(new Scenario("classic group, per-record tracking", "classic", inFlight, records, "lognormal"));
        if (share) scenarios.add(new Scenario("share group, batch per poll", "share", inFlight, records, "lognormal"));

        System.out.printf("sqloop bench runner: stage sleeps %d ms per record (lognormal: median %d ms, sigma %.1f), one partition, real KRaft broker%n",
                latency, latency, LOGNORMAL_SIGMA);
        List<Measured> results = new ArrayList<>();
        try (EmbeddedKafka broker = EmbeddedKafka.start()) {
            KafkaSettings kafka = KafkaSettings.of(broker.bootstrapServers());
            KafkaClients.ensureTopics(kafka, List.of(new Topics.Spec(Topics.DLQ, 1, false)), Duration.ofSeconds(60));
            int i = 0;
            for (Scenario s : scenarios) {
                Measured m = measure(kafka, s, latency, i++);
                results.add(m);
                System.out.printf("  %-36s %-9s in-flight %4d  %6d records  steady %7.1f rec/s = %5.1f %% of ideal %7.1f  (whole run %7.1f rec/s)%n",
                        s.name(), s.latency(), s.inFlight(), s.records(), m.perSecond(), 100 * m.perSecond() / m.ideal(),
                        m.ideal(), m.overall());
            }
        }
        Measured baseline = results.get(0);
        Measured classic = results.get(1);
        System.out.printf("%nclassic @ %d in flight: %.1f rec/s = %.1f %% of ideal %.0f rec/s, %.0fx the one-at-a-time baseline%n",
                inFlight, classic.perSecond(), 100 * classic.perSecond() / classic.ideal(), classic.ideal(),
                classic.perSecond() / baseline.perSecond());
        return 0;
    }

    private static Measured measure(KafkaSettings kafka, Scenario s, int latency, int index) throws Exception {
        String in = "bench-in-" + index;
        String out = "bench-out-" + index;
        KafkaClients.ensureTopics(kafka, List.of(new Topics.Spec(in, 1, false), new Topics.Spec(out, 1, false)), Duration.ofSeconds(60));
        // Every acknowledgement checked, one request in flight (KafkaClients.oneRequestInFlight: KAFKA-15591): a
        // fire-and-forget loader lost input to a topic this new once, and the share-group section waited for 15,360
        // outputs that could never come.
        try (Producer<byte[], byte[]> p = KafkaClients.oneRequestInFlight(kafka, "bench-loader")) {
            List<Future<org.apache.kafka.clients.producer.RecordMetadata>> acks = new ArrayList<>(s.records());
            for (int n = 0; n < s.records(); n++) {
                Item item = new Item("i-" + n, n);
                acks.add(p.send(new ProducerRecord<>(in, item.key().getBytes(StandardCharsets.UTF_8), JsonCodec.encode(item))));
            }
            p.flush();
            for (var ack : acks) ack.get(60, java.util.concurrent.TimeUnit.SECONDS);
        }
        Random random = new Random(42);
        LongSupplier sleep = s.latency().equals("fixed") ? () -> latency
                : () -> Math.round(latency * Math.exp(LOGNORMAL_SIGMA * random.nextGaussian()));
        double meanLatency = s.latency().equals("fixed") ? latency : latency * Math.exp(LOGNORMAL_SIGMA * LOGNORMAL_SIGMA / 2);
        double ideal = s.inFlight() / (meanLatency / 1000.0);
        SleepingStage stage = new SleepingStage(out, synchronizedSupplier(sleep));
        Window window;
        if (s.design().equals("classic")) {
            RunnerSettings settings = RunnerSettings.defaults("bench-" + index).withMaxInFlight(s.inFlight());
            try (StageRunner<Item> runner = KafkaClients.runner(stage, in, kafka, settings, new SimpleMeterRegistry())) {
                runner.start();
                window = awaitOutput(kafka, out, s.records());
            }
        } else {
            window = runShareGroup(kafka, stage, in, out, s, index);
        }
        double steady = 0.9 * s.records() / ((window.ninetyFivePercent() - window.fivePercent()) / 1e9);
        double overall = s.records() / ((window.all() - stage.firstStart.get()) / 1e9);
        return new Measured(s, steady, overall, ideal);
    }

    private static LongSupplier synchronizedSupplier(LongSupplier s) {
        return () -> {
            synchronized (s) {
                return s.getAsLong();
            }
        };
    }

    /** When the output topic passed 5 % and 95 % of the records (System.nanoTime()). */
    private record Window(long fivePercent, long ninetyFivePercent, long all) {}

    /**
     * Watches the output topic's end offset: steady-state throughput is taken between 5 % and 95 % of the
     * records, so neither the start (group join, first fetch) nor the drain at the end (with heavy-tailed
     * latency the last few slow records dominate) distort it.
     */
    private static Window awaitOutput(KafkaSettings kafka, String topic, int count) throws Exception {
        TopicPartition tp = new TopicPartition(topic, 0);
        long five = 0;
        long ninetyFive = 0;
        try (Admin admin = KafkaClients.admin(kafka)) {
            long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
            while (System.nanoTime() < deadline) {
                long endOffset = admin.listOffsets(Map.of(tp, OffsetSpec.latest())).all().get().get(tp).offset();
                long now = System.nanoTime();
                if (five == 0 && endOffset >= count * 0.05) five = now;
                if (ninetyFive == 0 && endOffset >= count * 0.95) ninetyFive = now;
                if (endOffset >= count) return new Window(five, ninetyFive, now);
                Thread.sleep(2);
            }
        }
        throw new IllegalStateException("timed out waiting for " + count + " records on " + topic);
    }

    /**
     * KIP-932 share group with explicit acknowledgement: every record of a poll must be acknowledged before the
     * next poll, so each batch of up to in-flight records runs concurrently and the batch waits for its slowest.
     */
    private static Window runShareGroup(KafkaSettings kafka, SleepingStage stage, String in, String out, Scenario s, int index)
            throws Exception {
        String group = "bench-share-" + index;
        try (Admin admin = KafkaClients.admin(kafka)) {
            ConfigResource resource = new ConfigResource(ConfigResource.Type.GROUP, group);
            admin.incrementalAlterConfigs(Map.of(resource, List.of(new AlterConfigOp(
                    new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET)))).all().get();
        }
        Map<String, Object> props = new java.util.HashMap<>(kafka.clientOverrides());
        props.put("bootstrap.servers", kafka.bootstrapServers());
        props.put("group.id", group);
        props.put("share.acknowledgement.mode", "explicit");
        props.put("max.poll.records", s.inFlight());
        AtomicBoolean done = new AtomicBoolean();
        Thread consumerThread = Thread.ofPlatform().name("bench-share").start(() -> {
            try (KafkaShareConsumer<byte[], byte[]> consumer = new KafkaShareConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
                 Producer<byte[], byte[]> producer = KafkaClients.producer(kafka, "bench-share-producer");
                 ExecutorService workers = Executors.newVirtualThreadPerTaskExecutor()) {
                // Same concurrency cap as the classic runner: a poll may return more than max.poll.records.
                java.util.concurrent.Semaphore slots = new java.util.concurrent.Semaphore(s.inFlight());
                consumer.subscribe(List.of(in));
                while (!done.get()) {
                    ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(100));
                    List<ConsumerRecord<byte[], byte[]>> batch = new ArrayList<>();
                    records.forEach(batch::add);
                    List<Future<Boolean>> results = new ArrayList<>();
                    for (ConsumerRecord<byte[], byte[]> r : batch) {
                        slots.acquireUninterruptibly();
                        results.add(workers.submit(() -> {
                            try {
                                Item item = JsonCodec.decode(r.value(), Item.class);
                                stage.process(item);
                                producer.send(new ProducerRecord<>(out, r.key(), r.value())).get();
                                return true;
                            } finally {
                                slots.release();
                            }
                        }));
                    }
                    for (int k = 0; k < batch.size(); k++) {
                        boolean ok;
                        try {
                            ok = results.get(k).get();
                        } catch (Exception e) {
                            ok = false;
                        }
                        consumer.acknowledge(batch.get(k), ok ? AcknowledgeType.ACCEPT : AcknowledgeType.RELEASE);
                    }
                    if (!batch.isEmpty()) consumer.commitSync();
                }
            }
        });
        try {
            return awaitOutput(kafka, out, s.records());
        } finally {
            done.set(true);
            consumerThread.join(30_000);
        }
    }
}
