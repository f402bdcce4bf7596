package dev.sqloop.common.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.testkit.ForkedKafka;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/** The broker itself is killed with SIGKILL mid-stream and restarted: the runner rides it out, nothing is lost. */
class BrokerOutageIT {

    @Test
    void shouldLoseNothingWhenTheBrokerIsKilledAndRestarted() throws Exception {
        try (ForkedKafka broker = ForkedKafka.start()) {
            KafkaTestSupport kafka = new KafkaTestSupport(broker.bootstrapServers());
            kafka.createTopics(2, "outage-in", "outage-out");
            int total = 2000;
            kafka.sendProbes("outage-in", total);
            try (StageRunner<Probe> runner = KafkaClients.runner(new PassThroughStage("outage", "outage-out", Duration.ofMillis(40)),
                    "outage-in", kafka.settings(), RunnerSettings.defaults("outage").withMaxInFlight(32), new SimpleMeterRegistry())) {
                runner.start();
                List<ConsumerRecord<byte[], byte[]>> before = kafka.readUntil("outage-out", Duration.ofSeconds(60),
                        l -> KafkaTestSupport.distinctKeys(l).size() >= 300);
                assertTrue(KafkaTestSupport.distinctKeys(before).size() >= 300 && KafkaTestSupport.distinctKeys(before).size() < total, "killed mid-stream");

                broker.kill9();
                Thread.sleep(3000); // the runner keeps going: polls fail, produces wait for the broker
                broker.restart();

                List<ConsumerRecord<byte[], byte[]>> after = kafka.readUntil("outage-out", Duration.ofSeconds(180),
                        l -> KafkaTestSupport.distinctKeys(l).size() >= total);
                assertEquals(KafkaTestSupport.probeIds(total), KafkaTestSupport.distinctKeys(after), "every record arrives after the broker came back");
                assertTrue(runner.healthy(), "the runner survived the outage");
                System.out.printf("broker outage: %d records, %d delivered (%d duplicates)%n", total, after.size(), after.size() - total);
            }
        }
    }

}
