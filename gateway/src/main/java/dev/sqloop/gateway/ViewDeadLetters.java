package dev.sqloop.gateway;

import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.runtime.DeadLetterReporter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.streams.errors.DeserializationExceptionHandler;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The results view's handler for records it cannot decode. On the topics only the view reads ({@code results},
 * {@code events}, {@code batches}) nobody else would ever report them, so they become dead letters like a stage's
 * (reason {@code undecodable}, stage {@value #STAGE}, key, value and headers kept), written by Kafka Streams in the
 * view's own transaction, and the view goes on. On the topics a stage also reads (the submissions on
 * {@code retrieve-examples}), the stage dead-letters them, so the view only skips them; the {@code examples} global
 * table skips too (Kafka Streams sends no dead letters from a global table).
 */
public final class ViewDeadLetters implements DeserializationExceptionHandler {
    /** The {@code sqloop.error.stage} of the view's dead letters. */
    public static final String STAGE = "gateway-view";
    /** The config key under which the gateway hands its meter registry to the handler Kafka Streams instantiates. */
    static final String REGISTRY_CONFIG = "sqloop.gateway.meter.registry";
    /** Topics the view alone reads. */
    static final Set<String> OWN_TOPICS = Set.of(Topics.RESULTS.name(), Topics.EVENTS.name(), Topics.BATCHES.name());

    private static final Logger LOG = LoggerFactory.getLogger(ViewDeadLetters.class);

    private DeadLetterReporter reporter = reporter(new SimpleMeterRegistry());

    @Override
    public void configure(Map<String, ?> configs) {
        if (configs.get(REGISTRY_CONFIG) instanceof MeterRegistry registry) reporter = reporter(registry);
    }

    private static DeadLetterReporter reporter(MeterRegistry registry) {
        for (String reason : DeadLetterReporter.REASONS) registry.counter(DeadLetterReporter.METRIC, "stage", STAGE, "reason", reason);
        return new DeadLetterReporter(STAGE, reason -> registry.counter(DeadLetterReporter.METRIC, "stage", STAGE, "reason", reason).increment());
    }

    @Override
    public Response handleError(ErrorHandlerContext context, ConsumerRecord<byte[], byte[]> record, Exception exception) {
        boolean own = OWN_TOPICS.contains(record.topic());
        // the value is not logged: it is whatever a producer put there
        LOG.warn("results view: undecodable record {}-{}@{} {} ({}: {})", record.topic(), record.partition(), record.offset(),
                own ? "dead-lettered" : "skipped (its stage dead-letters it)", exception.getClass().getSimpleName(), exception.getMessage());
        return own ? Response.resume(List.of(reporter.report(record, DeadLetterReporter.UNDECODABLE, exception))) : Response.resume();
    }
}
