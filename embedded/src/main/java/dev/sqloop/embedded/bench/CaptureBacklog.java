package dev.sqloop.embedded.bench;

import dev.sqloop.common.Topics;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * A batch is final for its user when the last result is, but capture (the fewshot service's learning from each
 * success: an example, an error→fix pair) reads {@code success} after the results and may still be working through
 * it then. Its work is the batch's too: the benchmarks keep their CPU window open until the capture group has
 * committed everything on {@code success}, so the CPU per question does not leave capture's tail out.
 */
final class CaptureBacklog {
    private CaptureBacklog() {}

    /**
     * Waits until {@code groupPrefix-capture} has no record left on {@code success}; answers the seconds it took, or
     * NaN when it still had some after {@code limit}.
     */
    static double awaitDrained(String bootstrapServers, String groupPrefix, Duration limit) throws Exception {
        long start = System.nanoTime();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
            while (System.nanoTime() - start < limit.toNanos()) {
                if (lag(admin, groupPrefix + "-capture") == 0) return (System.nanoTime() - start) / 1e9;
                Thread.sleep(100);
            }
        }
        return Double.NaN;
    }

    /** Records on {@code success} the group has not committed (every partition, committed or not). */
    static long lag(Admin admin, String group) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> committed = new HashMap<>();
        admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS).forEach((tp, o) -> {
            if (o != null && tp.topic().equals(Topics.SUCCESS.name())) committed.put(tp, o);
        });
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        admin.describeTopics(java.util.List.of(Topics.SUCCESS.name())).allTopicNames().get(30, TimeUnit.SECONDS)
                .get(Topics.SUCCESS.name()).partitions().forEach(p -> latest.put(new TopicPartition(Topics.SUCCESS.name(), p.partition()),
                        OffsetSpec.latest()));
        long lag = 0;
        for (var e : admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).entrySet()) {
            OffsetAndMetadata c = committed.get(e.getKey());
            lag += e.getValue().offset() - (c == null ? 0 : c.offset());
        }
        return lag;
    }
}
