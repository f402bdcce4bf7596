package dev.sqloop.common.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.testkit.EmbeddedKafka;
import dev.sqloop.testkit.ServiceJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/** A worker JVM killed with SIGKILL mid-stream, then restarted in the same group, loses no record. */
class WorkerCrashIT {

    @Test
    void shouldLoseNothingWhenAWorkerIsKilledWithSigkillAndRestarted(@TempDir(cleanup = CleanupMode.ON_SUCCESS) Path logs) throws Exception {
        try (EmbeddedKafka broker = EmbeddedKafka.start()) {
            KafkaTestSupport kafka = new KafkaTestSupport(broker.bootstrapServers());
            kafka.createTopics(2, "crash-in", "crash-out");
            int total = 3000;
            kafka.sendProbes("crash-in", total);
            List<String> args = List.of(broker.bootstrapServers(), "crash-in", "crash-out", "crash-group", "50", "32");

            ServiceJvm first = ServiceJvm.fork(PassThroughWorkerMain.class.getName(), List.of("-Xmx256m"), args, logs.resolve("first.log"));
            try {
                List<ConsumerRecord<byte[], byte[]>> before = kafka.readUntil("crash-out", Duration.ofSeconds(90),
                        l -> KafkaTestSupport.distinctKeys(l).size() >= total / 5);
                assertTrue(KafkaTestSupport.distinctKeys(before).size() >= total / 5, "the first worker made progress: " + Files.readString(first.logFile()));
                assertTrue(KafkaTestSupport.distinctKeys(before).size() < total, "killed mid-stream, not after the end");
            } finally {
                first.kill9();
            }

            try (ServiceJvm second = ServiceJvm.fork(PassThroughWorkerMain.class.getName(), List.of("-Xmx256m"), args,
                    logs.resolve("second.log"))) {
                List<ConsumerRecord<byte[], byte[]>> after = kafka.readUntil("crash-out", Duration.ofSeconds(120),
                        l -> KafkaTestSupport.distinctKeys(l).size() >= total);
                assertEquals(KafkaTestSupport.probeIds(total), KafkaTestSupport.distinctKeys(after), "every record arrives after the crash: " + Files.readString(second.logFile()));
                System.out.printf("crash test: %d records, %d delivered, %d redelivered after SIGKILL%n",
                        total, after.size(), after.size() - total);
            }
        }
    }

}
