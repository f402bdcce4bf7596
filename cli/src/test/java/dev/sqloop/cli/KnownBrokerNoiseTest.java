package dev.sqloop.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.core.spi.FilterReply;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The one broker error the console drops, in each of its wordings, and only that one. */
class KnownBrokerNoiseTest {
    private static final String KNOWN = "Invalid sequence number for producer 11 at offset 15 in partition "
            + "sqloop-gateway-questions-changelog-1: 5 (incoming seq. number). Expected sequence 0 for transactions v2 "
            + "idempotent producer with no existing state.";

    private final LoggerContext context = new LoggerContext();
    private final KnownBrokerNoise filter = new KnownBrokerNoise();

    private FilterReply decide(String logger, Level level, Throwable t) {
        return filter.decide(null, context.getLogger(logger), level, "Error processing append operation", null, t);
    }

    @Test
    void shouldDropOnlyTheReplicaManagersOutOfOrderSequenceErrors() {
        // kafka-storage 4.3.1's ProducerAppendInfo: every wording of the refusal
        for (String wording : List.of(KNOWN,
                "Out of order sequence number for producer 7 at offset 40 in partition results-2: 12 (incoming seq. number), 9 (earliest seen sequence)",
                "Out of order sequence number for producer 7 at offset 40 in partition results-2: 12 (incoming seq. number), 9 (current end sequence number)",
                "Invalid sequence number for new epoch of producer 7at offset 40 in partition results-2: 1 (request epoch), 5 (seq. number), 0 (current producer epoch)")) {
            assertEquals(FilterReply.DENY, decide(KnownBrokerNoise.LOGGER, Level.ERROR, new OutOfOrderSequenceException(wording)), wording);
        }
        assertEquals(FilterReply.NEUTRAL, decide(KnownBrokerNoise.LOGGER, Level.ERROR, new IllegalStateException(KNOWN)));
        assertEquals(FilterReply.NEUTRAL, decide(KnownBrokerNoise.LOGGER, Level.ERROR, null));
        assertEquals(FilterReply.NEUTRAL, decide("kafka.server.KafkaApis", Level.ERROR, new OutOfOrderSequenceException(KNOWN)));
        assertEquals(FilterReply.NEUTRAL, decide(KnownBrokerNoise.LOGGER, Level.WARN, new OutOfOrderSequenceException(KNOWN)));
    }

    @Test
    void shouldBeInstalledByTheLoggingConfigurationEveryProcessUses() throws Exception {
        LoggerContext configured = new LoggerContext();
        JoranConfigurator joran = new JoranConfigurator();
        joran.setContext(configured);
        joran.doConfigure(KnownBrokerNoiseTest.class.getResource("/logback.xml"));
        assertTrue(configured.getTurboFilterList().stream().anyMatch(f -> f instanceof KnownBrokerNoise),
                "logback.xml installs the filter: " + configured.getTurboFilterList());
    }
}
