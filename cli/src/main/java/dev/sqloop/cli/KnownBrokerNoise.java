package dev.sqloop.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import org.slf4j.Marker;

/**
 * Drops one known broker error from the console (logback.xml): an embedded broker (demo, serve, bench) logs at ERROR,
 * with a stack trace, every produce it refuses for an out-of-order sequence ({@code OutOfOrderSequenceException} from
 * {@code ReplicaManager}: "Invalid sequence number ... with no existing state" (KAFKA-18202), "Out of order sequence
 * number ... (earliest seen sequence)" or "... (current end sequence number)": a retried or reordered send of an
 * idempotent producer, in a normal run on a loaded host). The refusal goes back to the producer, which retries or aborts
 * its transaction, and the stage runner or Kafka Streams then writes again; a write that finally fails is reported by
 * them, not by this line. A newcomer running the demo read it as a failure. Only that exception from
 * {@code ReplicaManager} is dropped; every other broker error still shows.
 */
public final class KnownBrokerNoise extends TurboFilter {
    static final String LOGGER = "kafka.server.ReplicaManager";
    static final String EXCEPTION = "org.apache.kafka.common.errors.OutOfOrderSequenceException";

    @Override
    public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
        if (t == null || level != Level.ERROR || logger == null || !LOGGER.equals(logger.getName())) return FilterReply.NEUTRAL;
        return EXCEPTION.equals(t.getClass().getName()) ? FilterReply.DENY : FilterReply.NEUTRAL;
    }
}
