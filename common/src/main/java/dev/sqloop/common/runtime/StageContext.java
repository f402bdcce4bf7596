package dev.sqloop.common.runtime;

import dev.sqloop.common.SqloopHeaders;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * What a stage may know about the record it processes, without Kafka types: its headers
 * (attempt, datasource, trace context…), when it was received, and how many infrastructure retries ran.
 */
public record StageContext(Map<String, String> headers, Instant receivedAt, int infrastructureRetries) {
    public StageContext {
        headers = Map.copyOf(headers);
    }

    public Optional<String> header(String name) {
        return Optional.ofNullable(headers.get(name));
    }

    public Optional<String> traceparent() {
        return header(SqloopHeaders.TRACEPARENT);
    }
}
