package dev.sqloop.common.runtime;

import java.time.Duration;

/**
 * How one {@link StageRunner} consumes: its consumer group, how many records it keeps in flight, the
 * infrastructure retry budget and its shutdown behaviour.
 *
 * @param maxInFlight records processed concurrently by one runner, independent of the partition count
 * @param maxPollRecords records fetched per poll; the runner pauses fetching while a full poll is buffered
 * @param revokeTimeout how long a rebalance waits for in-flight records of revoked partitions to finish
 */
public record RunnerSettings(String groupId, int maxInFlight, int maxPollRecords, RetryPolicy retry,
                             Duration pollTimeout, Duration shutdownTimeout, Duration revokeTimeout) {
    public static final int DEFAULT_MAX_IN_FLIGHT = 256;

    public RunnerSettings {
        if (groupId == null || groupId.isBlank()) throw new IllegalArgumentException("groupId is required");
        if (maxInFlight < 1) throw new IllegalArgumentException("maxInFlight must be >= 1");
        if (maxPollRecords < 1) throw new IllegalArgumentException("maxPollRecords must be >= 1");
    }

    public static RunnerSettings defaults(String groupId) {
        return new RunnerSettings(groupId, DEFAULT_MAX_IN_FLIGHT, 500, RetryPolicy.DEFAULT, Duration.ofMillis(100),
                Duration.ofSeconds(30), Duration.ofSeconds(20));
    }

    public RunnerSettings withMaxInFlight(int value) {
        return new RunnerSettings(groupId, value, maxPollRecords, retry, pollTimeout, shutdownTimeout, revokeTimeout);
    }

    public RunnerSettings withRetry(RetryPolicy value) {
        return new RunnerSettings(groupId, maxInFlight, maxPollRecords, value, pollTimeout, shutdownTimeout, revokeTimeout);
    }

    public RunnerSettings withShutdownTimeout(Duration value) {
        return new RunnerSettings(groupId, maxInFlight, maxPollRecords, retry, pollTimeout, value, revokeTimeout);
    }
}
