package dev.sqloop.lab;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ReplicaInfo;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;

/**
 * What the pipeline wrote to Kafka during a run, per topic: offsets taken (records plus transaction markers) and
 * bytes added to the broker's logs (batched, compressed as stored, one replica), read from the broker before and
 * after the batch. Per question, these are the pipeline's hops and its wire weight: every record is encoded once,
 * stored and fetched by the broker, and decoded by each consumer group that reads it.
 */
final class KafkaTraffic {
    /** Offsets and bytes of one topic at one moment. */
    record Usage(long offsets, long bytes) {
        Usage minus(Usage before) {
            return new Usage(offsets - before.offsets, bytes - before.bytes);
        }
    }

    private KafkaTraffic() {
    }

    /** Every non-internal topic's offsets (end offsets summed over partitions) and log size in bytes. */
    static Map<String, Usage> snapshot(String bootstrapServers) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
            Set<String> names = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            Map<String, TopicDescription> topics = admin.describeTopics(names).allTopicNames().get(30, TimeUnit.SECONDS);
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            topics.values().forEach(t -> t.partitions().forEach(p -> latest.put(new TopicPartition(t.name(), p.partition()), OffsetSpec.latest())));
            Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends = admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS);
            Map<String, Long> offsets = new HashMap<>();
            ends.forEach((tp, info) -> offsets.merge(tp.topic(), info.offset(), Long::sum));
            List<Integer> brokers = admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).stream().map(Node::id).toList();
            Map<String, Long> bytes = new HashMap<>();
            Set<TopicPartition> counted = new java.util.HashSet<>(); // one replica of each partition
            for (Map<String, LogDirDescription> dirs : admin.describeLogDirs(brokers).allDescriptions().get(30, TimeUnit.SECONDS).values()) {
                for (LogDirDescription dir : dirs.values()) {
                    for (Map.Entry<TopicPartition, ReplicaInfo> r : dir.replicaInfos().entrySet()) {
                        if (!r.getValue().isFuture() && counted.add(r.getKey())) bytes.merge(r.getKey().topic(), r.getValue().size(), Long::sum);
                    }
                }
            }
            Map<String, Usage> usage = new TreeMap<>();
            for (String name : names) usage.put(name, new Usage(offsets.getOrDefault(name, 0L), bytes.getOrDefault(name, 0L)));
            return usage;
        }
    }

    /** The change between two snapshots, topics that did not move left out. */
    static Map<String, Usage> between(Map<String, Usage> before, Map<String, Usage> after) {
        Map<String, Usage> delta = new TreeMap<>();
        after.forEach((topic, now) -> {
            Usage d = now.minus(before.getOrDefault(topic, new Usage(0, 0)));
            if (d.offsets() > 0) delta.put(topic, d);
        });
        return delta;
    }

    /** Report lines: per question, offsets and bytes by topic, heaviest first, and the total. */
    static List<String> perQuestion(Map<String, Usage> delta, int questions) {
        List<String> lines = new ArrayList<>();
        if (questions <= 0 || delta.isEmpty()) return lines;
        long offsets = 0, bytes = 0;
        for (Usage u : delta.values()) {
            offsets += u.offsets();
            bytes += u.bytes();
        }
        lines.add(String.format(Locale.ROOT, "%.1f offsets and %.1f KiB stored per question (records + transaction markers; bytes as the broker stores them, one replica)",
                (double) offsets / questions, bytes / 1024.0 / questions));
        delta.entrySet().stream()
                .sorted(Map.Entry.<String, Usage>comparingByValue((a, b) -> Long.compare(b.bytes(), a.bytes())))
                .forEach(e -> lines.add(String.format(Locale.ROOT, "%-28s %6.2f offsets %8.2f KiB  (%.0f bytes per offset)",
                        e.getKey(), (double) e.getValue().offsets() / questions, e.getValue().bytes() / 1024.0 / questions,
                        (double) e.getValue().bytes() / e.getValue().offsets())));
        return lines;
    }
}
