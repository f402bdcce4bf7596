package dev.sqloop.common.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.config.KafkaSettings;
import dev.sqloop.testkit.EmbeddedKafka;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Admission control for the entry stage against a real KRaft broker: the backlog on the question path gates it. */
class AdmissionIT {
    private static EmbeddedKafka broker;
    private static KafkaTestSupport kafka;
    private final List<AutoCloseable> open = new ArrayList<>();

    @BeforeAll
    static void startBroker() {
        broker = EmbeddedKafka.start();
        kafka = new KafkaTestSupport(broker.bootstrapServers());
        kafka.createTopics(2, Admission.QUESTION_PATH.keySet().toArray(String[]::new));
        kafka.createTopics(1, "adm-in", "adm-out");
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) broker.close();
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : open.reversed()) c.close();
    }

    private StageRunner<Probe> runner(PassThroughStage stage, String topic, String group, int inFlight) {
        StageRunner<Probe> r = KafkaClients.runner(stage, topic, kafka.settings(),
                RunnerSettings.defaults(group).withMaxInFlight(inFlight).withShutdownTimeout(Duration.ofSeconds(10)),
                new SimpleMeterRegistry());
        open.add(r);
        return r;
    }

    @Test
    void shouldAdmitWhileTheQuestionPathBacklogIsUnderTheBoundAndResumeAsItDrains() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Admission gate = Admission.following(kafka.settings(), "adm", 10, Duration.ofMillis(100), registry);
        // The entry forwards onto the path's first topic; nothing reads it yet, so the backlog only grows.
        runner(new PassThroughStage("entry", "generate", Duration.ofMillis(20)), "adm-in", "adm-entry", 1)
                .admitting(gate).start();
        kafka.sendProbes("adm-in", 100);

        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (registry.get("sqloop.admission.open").gauge().value() != 0 && System.nanoTime() < deadline) Thread.sleep(20);
        assertEquals(0, registry.get("sqloop.admission.open").gauge().value(), "the gate closes at the bound");
        Thread.sleep(2_000);
        int admitted = kafka.readUntil("generate", Duration.ofSeconds(3), l -> false).size();
        assertTrue(admitted >= 10 && admitted <= 20,
                "the entry admitted the bound plus at most one read interval's worth, not all 100: " + admitted);
        assertEquals(admitted, (long) registry.get("sqloop.admission.backlog").gauge().value(), "the backlog is what waits on the path");

        // The path's stage starts (group adm-generate: prefix-stage) and commits as it goes: the entry resumes.
        runner(new PassThroughStage("generate", "adm-out", Duration.ZERO), "generate", "adm-generate", 256).start();
        var out = kafka.readUntil("adm-out", Duration.ofSeconds(60), l -> KafkaTestSupport.distinctKeys(l).size() >= 100);
        assertEquals(KafkaTestSupport.probeIds(100), KafkaTestSupport.distinctKeys(out), "every question admitted in the end");
        deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (registry.get("sqloop.admission.open").gauge().value() != 1 && System.nanoTime() < deadline) Thread.sleep(20);
        assertEquals(1, registry.get("sqloop.admission.open").gauge().value(), "open again once the path drained");
    }

    @Test
    void shouldStayOpenWhenTheBacklogCannotBeRead() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Admission gate = Admission.following(KafkaSettings.of("127.0.0.1:1"), "nowhere", 1, Duration.ofMillis(100), registry)) {
            assertTrue(gate.open(), "open before the first read");
            Thread.sleep(3_000);
            assertTrue(gate.open(), "a monitoring failure never stalls the pipeline");
            assertEquals(-1, registry.get("sqloop.admission.backlog").gauge().value());
        }
    }

    @Test
    void shouldBeAlwaysOpenWhenTurnedOff() {
        assertSame(Admission.ALWAYS, Admission.following(kafka.settings(), "adm", 0, Duration.ofMillis(100), new SimpleMeterRegistry()));
    }
}
