package dev.sqloop.lab;

import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.runtime.Admission;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

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
                if (Admission.backlog(admin, Map.of(groupPrefix + "-capture", Topics.SUCCESS.name()), Duration.ofSeconds(30)) == 0) {
                    return (System.nanoTime() - start) / 1e9;
                }
                Thread.sleep(100);
            }
        }
        return Double.NaN;
    }
}
