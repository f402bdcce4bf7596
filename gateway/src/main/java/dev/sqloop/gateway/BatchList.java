package dev.sqloop.gateway;

import dev.sqloop.gateway.Answers.BatchReport;
import dev.sqloop.gateway.Views.BatchStatus;
import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.state.KeyValueIterator;

/**
 * A tenant's batches on every gateway instance, newest first: Kafka Streams partitions the batch statuses, so this
 * instance reads its own share from its view and asks each other instance (from the streams metadata) for its share.
 * {@code GET /v1/batches} and the console's batch list both read it.
 */
final class BatchList {
    /** A list answers at most this many batches, the newest. */
    static final int MAX = 1_000;

    private final ResultsView view;
    private final Forwarding forwarding;

    BatchList(ResultsView view, Forwarding forwarding) {
        this.view = view;
        this.forwarding = forwarding;
    }

    /** This instance's share: the tenant's batches in its view, newest first. */
    List<BatchReport> local(String tenant) {
        List<BatchReport> mine = new ArrayList<>();
        try (KeyValueIterator<String, BatchStatus> it = view.batchStatuses()) {
            while (it.hasNext()) {
                BatchStatus s = it.next().value;
                if (s != null && s.manifest() != null && tenant.equals(s.manifest().tenant())) mine.add(StatusView.ofBatch(s));
            }
        }
        return newestFirst(mine);
    }

    /**
     * Every instance's share, newest first. The others are asked with the caller's key (their tenant check applies
     * there); one that does not answer is a 503, as for any read it owns.
     */
    List<BatchReport> all(String tenant, String apiKey, String authorization) {
        List<BatchReport> every = new ArrayList<>(local(tenant));
        for (URI other : view.otherInstances()) every.addAll(forwarding.batchesOf(other, apiKey, authorization));
        return newestFirst(every);
    }

    /**
     * Newest first, then by id; a batch listed twice (its partition moved between two reads) once, with the more
     * advanced of its two counts.
     */
    static List<BatchReport> newestFirst(List<BatchReport> reports) {
        Map<String, BatchReport> byId = new LinkedHashMap<>();
        for (BatchReport r : reports) byId.merge(r.batchId(), r, (a, b) -> a.finished() >= b.finished() ? a : b);
        List<BatchReport> out = new ArrayList<>(byId.values());
        out.sort(Comparator.comparing(BatchReport::createdAt, Comparator.nullsLast(Comparator.<Instant>reverseOrder()))
                .thenComparing(BatchReport::batchId));
        return out;
    }
}
