package dev.sqloop.testkit;

/** A running Kafka broker the testkit started; {@link #bootstrapServers()} is what clients connect to. */
public interface KafkaBroker extends AutoCloseable {
    String bootstrapServers();

    @Override
    void close();
}
