package dev.sqloop.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import org.slf4j.Marker;

/**
 * Drops one known, harmless broker error from the console (logback.xml): an embedded broker (demo, serve, bench)
 * logs at ERROR, with a stack trace, every retried changelog append of the gateway's transactional producer that
 * reaches a partition before the producer has state there ({@code OutOfOrderSequenceException ... Expected sequence 0
 * for transactions v2 idempotent producer with no existing state}, matching KAFKA-18202). The client retries and the
 * write succeeds; a newcomer running the demo read it as a failure. Only that exception, with that text, from the
 * broker's {@code ReplicaManager} is dropped; every other broker error still shows.
 */
public final class KnownBrokerNoise extends TurboFilter {
    static final String LOGGER = "kafka.server.ReplicaManager";
    static final String TEXT = "idempotent producer with no existing state";

    @Override
    public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
        if (t == null || level != Level.ERROR || logger == null || !LOGGER.equals(logger.getName())) return FilterReply.NEUTRAL;
        boolean known = "org.apache.kafka.common.errors.OutOfOrderSequenceException".equals(t.getClass().getName())
                && t.getMessage() != null && t.getMessage().contains(TEXT);
        return known ? FilterReply.DENY : FilterReply.NEUTRAL;
    }
}
