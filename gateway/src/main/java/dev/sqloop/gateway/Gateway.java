package dev.sqloop.gateway;

import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.runtime.KafkaClients;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.KafkaStreams;

/** A running gateway: producers, the Kafka Streams results view and the HTTP server, closed together. */
public final class Gateway implements AutoCloseable {
    private final Producer<byte[], byte[]> producer;
    private final Producer<byte[], byte[]> batchProducer;
    private final ResultsView view;
    private final GatewayServer server;

    private Gateway(Producer<byte[], byte[]> producer, Producer<byte[], byte[]> batchProducer, ResultsView view, GatewayServer server) {
        this.producer = producer;
        this.batchProducer = batchProducer;
        this.view = view;
        this.server = server;
    }

    /**
     * Starts everything and waits (up to {@code readyTimeout}) until the results view is running.
     */
    public static Gateway start(GatewayConfig config, PrometheusMeterRegistry registry,
                                Duration readyTimeout) throws InterruptedException {
        KafkaClients.ensureTopics(config.kafka(), Topics.ALL, Duration.ofSeconds(60));
        Producer<byte[], byte[]> producer = KafkaClients.producer(config.kafka(), config.applicationId() + "-submit");
        Map<String, Object> tx = KafkaClients.producerProperties(config.kafka(), config.applicationId() + "-batch");
        // One transactional id per instance (its advertised address): a restarted instance fences its old self.
        tx.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, config.applicationId() + "-batch-" + ResultsView.hostPort(config.advertisedUrl()));
        KafkaProducer<byte[], byte[]> batchProducer = new KafkaProducer<>(tx);
        batchProducer.initTransactions();
        new KafkaClientMetrics(producer).bindTo(registry);
        ResultsView view = new ResultsView(config, new QuestionMetrics(registry, config.datasources()), registry);
        CountDownLatch running = new CountDownLatch(1);
        view.start(state -> {
            if (state == KafkaStreams.State.RUNNING) running.countDown();
        });
        GatewayServer server = new GatewayServer(config, new Submitter(producer, batchProducer, config, Clock.systemUTC()),
                view, registry).start();
        if (!running.await(readyTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
            server.close();
            view.close();
            producer.close();
            batchProducer.close();
            throw new IllegalStateException("gateway results view not running after " + readyTimeout);
        }
        return new Gateway(producer, batchProducer, view, server);
    }

    /** Whether this instance owns {@code key} of {@code store} (tests: which instance forwards). */
    boolean owns(String store, String key) {
        return view.ownerOf(store, key).isEmpty();
    }

    /** The HTTP server, for tests that compare its routes with what it documents. */
    GatewayServer server() {
        return server;
    }

    public int port() {
        return server.port();
    }

    public boolean ready() {
        return view.running();
    }

    @Override
    public void close() {
        server.close();
        view.close();
        producer.close(Duration.ofSeconds(5));
        batchProducer.close(Duration.ofSeconds(5));
    }
}
